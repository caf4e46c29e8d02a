"""``kozyr arena``: play bots against each other and print durak rates and ratings.

Examples::

    kozyr arena 10 4                       # level 10 vs level 4, heads-up
    kozyr arena 10 4 4 4 --deals 200       # one level 10 at a 4-player table
    kozyr arena --round-robin 1,2,4,10     # every pairing of four levels
    kozyr arena 10 mc10                    # level 10 vs the frozen flat Monte Carlo level 10
    kozyr arena 10 is10                    # level 10 vs level 10 as issue 12 shipped it
    kozyr arena 10x10 10                   # level 10 with 10 times its budget vs level 10
    kozyr arena random random --json       # machine-readable summary
    kozyr arena --rule teams=2v2 10 4      # 2 vs 2: a team of level 10s vs level 4s
    kozyr arena 10 4 --deals 300 --first-deal 150 --save part2   # a long run in parts...
    kozyr arena --merge part1 part2        # ...and its one table

Every deal is played once per rotation of the seats (duplicate deals), so each
bot holds every hand of it; docs for the statistics are in kozyr.arena.stats.
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from kozyr.arena import runner
from kozyr.arena.schedule import Pairing, build_schedule, make_pairing
from kozyr.arena.spec import ArenaError, check, parse_spec
from kozyr.arena.summary import Summary, summarize
from kozyr.bots import SEARCH_COMPILED
from kozyr.bots import match as referee
from kozyr.engine import native
from kozyr.engine.rules import Rules, RulesError

DEFAULT_DEALS = 100
DEFAULT_WORKERS = 2
DEFAULT_SEED = 1
_TEAM_PLAYERS = {"2v2": 4, "3v3": 6, "2v2v2": 6}


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "arena",
        help="play bots against each other: durak rates and Elo ratings",
        description=(
            "Play bots against each other on duplicate deals (each deal replayed with "
            "the seats rotated) and print each bot's durak rate with a 95% Wilson "
            "interval, per pairing, and Elo ratings fitted by maximum likelihood."
        ),
        epilog=(
            "bots: 'random', a level 1..10, mc5..mc10: the frozen flat Monte Carlo "
            "search that levels 5..10 played before issue 12, is5..is10: the frozen "
            "search of issue 12 (before issue 29), or a search level or isN with k times "
            "its budget: 10x3, is10x30.  examples: 'kozyr arena 10 4', 'kozyr arena 10 4 4 4', "
            "'kozyr arena 10 mc10', 'kozyr arena --round-robin 1,2,4,10 --deals 200'"
        ),
    )
    p.add_argument(
        "bots",
        nargs="*",
        metavar="BOT",
        help="the line-up, one bot per seat (with teams: one per team): random, 1..10, "
        "mc5..mc10, is5..is10, or a multiple such as 10x3",
    )
    p.add_argument(
        "--round-robin",
        metavar="BOTS",
        help="comma-separated bots: play every pairing of them heads-up (e.g. 1,2,4,10 "
        "or 9,10,mc9,mc10)",
    )
    p.add_argument(
        "--players",
        type=int,
        choices=[2, 3, 4, 5, 6],
        help="players at the table (default: the number of bots given)",
    )
    p.add_argument("--variant", choices=["podkidnoy", "perevodnoy"], help="default podkidnoy")
    p.add_argument("--deck", type=int, choices=[24, 36, 52], help="deck size (default 36)")
    p.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="any other table rule, e.g. --rule throw_in=neighbours --rule teams=2v2",
    )
    count = p.add_mutually_exclusive_group()
    count.add_argument(
        "--deals",
        type=int,
        help=f"duplicate deals per pairing, each played in every seat rotation "
        f"(default {DEFAULT_DEALS})",
    )
    count.add_argument(
        "--games",
        type=int,
        help="games per pairing, rounded up to whole duplicate deals",
    )
    p.add_argument(
        "--first-deal",
        type=int,
        default=0,
        metavar="N",
        help="skip the deals before N, to play a long run in parts: "
        "'--deals 100' then '--first-deal 100 --deals 300' are the games of '--deals 300'",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=DEFAULT_WORKERS,
        help=f"parallel worker processes (default {DEFAULT_WORKERS}); results do not depend on it",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=DEFAULT_SEED,
        help=f"seed of the deals and bots (default {DEFAULT_SEED})",
    )
    p.add_argument("--save", metavar="DIR", help="save every game as a record (kozyr replay)")
    p.add_argument(
        "--merge",
        nargs="+",
        metavar="DIR",
        help="print one table for a run played in parts, each saved with --save DIR "
        "(every record is replayed)",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=run)


# ------------------------------------------------------------------ set-up
def _rule_value(name: str, text: str) -> Any:
    choices = Rules.options()[name]
    sample = choices[0]
    if isinstance(sample, bool):
        t = text.strip().lower()
        if t in ("true", "yes", "on", "1"):
            return True
        if t in ("false", "no", "off", "0"):
            return False
    elif isinstance(sample, int):
        try:
            return int(text)
        except ValueError:
            pass
    else:
        return text.strip()
    raise ArenaError(f"rule {name!r} must be one of {list(choices)}, not {text!r}")


def build_rules(args: argparse.Namespace, bots_given: int) -> Rules:
    """The table rules from --players, --variant, --deck and --rule options."""
    options: dict[str, Any] = {}
    known = Rules.options()
    for item in args.rule:
        name, sep, value = item.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or not name:
            raise ArenaError(f"--rule needs NAME=VALUE, not {item!r}")
        if name not in known:
            raise ArenaError(f"unknown rule {name!r} (rules: {', '.join(known)})")
        options[name] = _rule_value(name, value)
    for name in ("players", "variant", "deck"):
        value = getattr(args, name)
        if value is None:
            continue
        if name in options and options[name] != value:
            raise ArenaError(f"--{name} {value} and --rule {name}={options[name]} disagree")
        options[name] = value
    if "players" not in options:
        teams = options.get("teams", "none")
        if args.round_robin:
            options["players"] = 2
        elif teams in _TEAM_PLAYERS:
            options["players"] = _TEAM_PLAYERS[teams]
        elif bots_given:
            options["players"] = bots_given
    try:
        return Rules.from_dict(options)
    except (RulesError, TypeError) as exc:
        raise ArenaError(str(exc)) from None


def build_pairings(args: argparse.Namespace, rules: Rules) -> list[Pairing]:
    if args.round_robin:
        if args.bots:
            raise ArenaError("give either a line-up of bots or --round-robin, not both")
        if rules.players != 2:
            raise ArenaError("--round-robin plays heads-up games: it needs 2 players")
        specs: list[str] = []
        for text in args.round_robin.split(","):
            if text.strip():
                spec = parse_spec(text)
                if spec in specs:
                    raise ArenaError(f"{text.strip()!r} is listed twice in --round-robin")
                specs.append(spec)
        if len(specs) < 2:
            raise ArenaError("--round-robin needs at least two bots")
        pairs = [(a, b) for i, a in enumerate(specs) for b in specs[i + 1 :]]
        return [make_pairing(i, [a, b], 2, 0) for i, (a, b) in enumerate(pairs)]
    if not args.bots:
        raise ArenaError("name the bots to play (e.g. 'kozyr arena 10 4') or use --round-robin")
    lineup = [parse_spec(b) for b in args.bots]
    return [make_pairing(0, lineup, rules.players, rules.team_count)]


def canonical_command(args: argparse.Namespace, rules: Rules, deals: int) -> str:
    """A command that reproduces the run (every result-changing option spelled out)."""
    parts = ["kozyr", "arena"]
    if args.round_robin:
        specs = [parse_spec(t) for t in args.round_robin.split(",") if t.strip()]
        parts += ["--round-robin", ",".join(specs)]
        inferred = 2
    else:
        parts += [parse_spec(b) for b in args.bots]
        inferred = _TEAM_PLAYERS.get(rules.teams, len(args.bots))
    defaults = Rules().to_dict()
    chosen = rules.to_dict()
    if chosen["players"] != inferred:
        parts += ["--players", str(chosen["players"])]
    if chosen["variant"] != defaults["variant"]:
        parts += ["--variant", chosen["variant"]]
    if chosen["deck"] != defaults["deck"]:
        parts += ["--deck", str(chosen["deck"])]
    for name, value in chosen.items():
        if name in ("players", "variant", "deck") or value == defaults[name]:
            continue
        text = str(value).lower() if isinstance(value, bool) else str(value)
        parts += ["--rule", f"{name}={text}"]
    if args.first_deal:
        parts += ["--first-deal", str(args.first_deal)]
    parts += ["--deals", str(deals), "--seed", str(args.seed), "--workers", str(args.workers)]
    return shlex.join(parts)


# ----------------------------------------------------------------- output
def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _interval(rate: float, low: float, high: float) -> str:
    return f"{_pct(rate)} [{100 * low:.1f}–{100 * high:.1f}]"


def _elo(summary: Summary, i: int) -> str:
    r = summary.bots[i].rating
    if r.rating is None or r.low is None or r.high is None:
        return "—"
    if r.anchor:
        return f"{r.rating:.0f} (anchor)"
    return f"{r.rating:.0f} [{r.low:.0f}–{r.high:.0f}]"


def _header(rules: Rules, pairings: list[Pairing], deals: int, first: int = 0) -> list[str]:
    rots = sorted({len(p.rotations()) for p in pairings})
    per = (deals - first) * rots[-1]
    table = f"{rules.players} players, {rules.variant}, {rules.deck} cards"
    if rules.team_count:
        table += f", teams {rules.teams}"
    defaults = Rules().to_dict()
    extra = [
        f"{k}={v}"
        for k, v in rules.to_dict().items()
        if k not in ("players", "variant", "deck", "teams") and v != defaults[k]
    ]
    if extra:
        table += " (" + ", ".join(extra) + ")"
    count = f"{len(pairings)} pairing" + ("s" if len(pairings) != 1 else "")
    rot = "/".join(map(str, rots))
    return [
        table,
        f"{count}, {per} games each: {deals - first} duplicate deals × {rot} seat rotations"
        + (f" (deals {first}–{deals - 1} of the run)" if first else ""),
    ]


def cheating_table(summary: Summary) -> Table:
    """Rule 13 per side: cheats per game, the share caught, catches, false accusations."""
    table = Table(title="Cheating", title_justify="left")
    for name in ("Pairing", "Side", "Cheats", "Per game", "Caught", "Catches", "False acc."):
        table.add_column(name, justify="left" if name in ("Pairing", "Side") else "right")
    for p in summary.pairings:
        for k, s in enumerate(p.sides):
            cheats, caught, catches, false = s.cheating or (0, 0, 0, 0)
            share = f"{caught} ({_pct(caught / cheats)})" if cheats else "0"
            table.add_row(
                p.label if k == 0 else "",
                s.label,
                str(cheats),
                f"{cheats / p.games:.2f}" if p.games else "0",
                share,
                str(catches),
                str(false),
                end_section=k == len(p.sides) - 1,
            )
    return table


def render(console: Console, summary: Summary, info: dict[str, Any]) -> None:
    lines = info["header"]
    console.print(f"[bold]kozyr arena[/bold]: {lines[0]}", highlight=False)
    for line in lines[1:]:
        console.print(line, highlight=False)
    console.print()
    teams = bool(info["rules"]["teams"] != "none")
    side = "team" if teams else "seat"
    multi = any(b.sides_per_game > 1 for b in summary.bots)

    bots = Table(title="Bots", title_justify="left")
    bots.add_column("Bot")
    if multi:
        bots.add_column(f"{side.capitalize()}s/game", justify="right")
    bots.add_column("Games", justify="right")
    bots.add_column("Durak", justify="right")
    bots.add_column("Durak rate [95% CI]", justify="right")
    bots.add_column("Elo [95% CI]", justify="right")
    for i, b in enumerate(summary.bots):
        row = [b.label]
        if multi:
            row.append(str(b.sides_per_game))
        rate = f"{_pct(b.rate)} (self-play)" if b.self_play else _interval(b.rate, b.low, b.high)
        row += [str(b.games), str(b.duraks), rate, _elo(summary, i)]
        bots.add_row(*row)
    console.print(bots)
    console.print()

    pairs = Table(title="Pairings", title_justify="left")
    pairs.add_column("Pairing")
    pairs.add_column("Games", justify="right")
    pairs.add_column("Draws", justify="right")
    pairs.add_column("Length", justify="right")
    pairs.add_column("Side")
    pairs.add_column("Durak", justify="right")
    pairs.add_column("Durak rate [95% CI]", justify="right")
    for p in summary.pairings:
        for k, s in enumerate(p.sides):
            first = k == 0
            pairs.add_row(
                p.label if first else "",
                str(p.games) if first else "",
                str(p.draws) if first else "",
                f"{p.mean_actions:.1f}" if first else "",
                s.label,
                str(s.duraks),
                _interval(s.rate, s.low, s.high),
                end_section=k == len(p.sides) - 1,
            )
    console.print(pairs)
    console.print()
    if any(s.cheating is not None for p in summary.pairings for s in p.sides):
        console.print(cheating_table(summary))
        console.print()
    notes = [
        f"Durak rate: games lost{' by the team' if teams else ''} per {side} played, "
        "with a 95% Wilson score interval.",
        "Elo: Bradley–Terry maximum likelihood on (not durak beats durak) pairs, "
        f"{info['anchor_label']} = 1000;",
        "  95% interval from the Fisher information, clustered by deal.",
        "Length: mean actions per game.",
    ]
    unfinished = sum(p.unfinished for p in summary.pairings)
    if unfinished:
        games, verb = ("1 game", "was counted as a draw")
        if unfinished != 1:
            games, verb = f"{unfinished} games", "were counted as draws"
        notes.append(
            f"Unfinished: {games} passed {referee.GAME_CAP:,} actions and {verb} "
            "(possible only with repetition_draw off)."
        )
    for note in notes:
        console.print(note, highlight=False)
    console.print()
    console.print(f"Command: {info['command']}", highlight=False, soft_wrap=True)
    if info.get("merged_from"):
        parts = ", ".join(info["merged_from"])
        console.print(f"Merged from the parts saved in {parts}", highlight=False, soft_wrap=True)
    console.print(
        f"Elapsed: {info['elapsed_s']:.1f} s with {info['workers']} worker"
        f"{'s' if info['workers'] != 1 else ''} ({info['games_per_s']:.1f} games/s)",
        highlight=False,
    )


@contextmanager
def progress_bar(total: int, enabled: bool) -> Iterator[Callable[[int], None]]:
    """A progress bar on standard error (a no-op callback when disabled)."""
    if not enabled:
        yield lambda _n: None
        return
    console = Console(stderr=True)
    with Progress(
        TextColumn("playing"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("games"),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    ) as progress:
        task = progress.add_task("games", total=total)
        yield lambda n: progress.advance(task, n)


# -------------------------------------------------------------------- run
def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except ArenaError as exc:
        print(f"kozyr arena: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("kozyr arena: interrupted", file=sys.stderr)
        return 130


def _run(args: argparse.Namespace) -> int:
    if args.merge:
        if args.bots or args.round_robin or args.save:
            raise ArenaError("--merge takes saved parts only: no bots, --round-robin or --save")
        from .arena_merge import merge

        report, command, seed = merge(args.merge)
        return report.output(command, seed, None, args.json)
    if args.workers < 1:
        raise ArenaError("--workers must be at least 1")
    if args.seed < 0:
        raise ArenaError("--seed must be a non-negative integer")
    rules = build_rules(args, len(args.bots))
    pairings = build_pairings(args, rules)
    for spec in sorted({e.spec for p in pairings for e in p.entrants}):
        check(spec)
    rotations = max(len(p.rotations()) for p in pairings)
    if args.games is not None:
        if args.games < 1:
            raise ArenaError("--games must be at least 1")
        deals = math.ceil(args.games / rotations)
    else:
        deals = DEFAULT_DEALS if args.deals is None else args.deals
        if deals < 1:
            raise ArenaError("--deals must be at least 1")
    if not 0 <= args.first_deal < deals:
        raise ArenaError(f"--first-deal must be at least 0 and below the {deals} deals of the run")
    blocks = build_schedule(pairings, deals, args.seed, args.first_deal)
    total = sum(len(b) for b in blocks)

    show = not args.quiet and sys.stderr.isatty()
    start = time.perf_counter()
    with progress_bar(total, show) as advance:
        results = runner.run(
            rules, pairings, blocks, args.workers, args.save, args.seed, on_progress=advance
        )
    elapsed = time.perf_counter() - start

    command = canonical_command(args, rules, deals)
    report = Report(rules, pairings, results, deals, args.first_deal, elapsed, args.workers)
    return report.output(command, args.seed, args.save, args.json)


@dataclass
class Report:
    """The results of a run (or of several parts merged) and how to print them."""

    rules: Rules
    pairings: list[Pairing]
    results: list[runner.GameResult]
    #: The results are of deals ``first..deals-1`` of the run.
    deals: int
    first: int
    elapsed: float
    workers: int
    #: The saved parts these results were merged from (``--merge``), in deal order.
    merged_from: list[str] | None = None

    def output(self, command: str, seed: int, save: str | None, as_json: bool) -> int:
        summary = summarize(self.pairings, self.results, self.deals - self.first)
        anchor_label = next(b.label for b in summary.bots if b.spec == summary.anchor)
        elapsed = self.elapsed
        info: dict[str, Any] = {
            "command": command,
            "elapsed_s": round(elapsed, 3),
            "games_per_s": round(len(self.results) / elapsed, 2) if elapsed > 0 else None,
            "workers": self.workers,
            "seed": seed,
            "deals": self.deals,
            "first_deal": self.first,
            "rules": self.rules.to_dict(),
            **({"merged_from": self.merged_from} if self.merged_from else {}),
            "engine_compiled": native.COMPILED,
            "search_compiled": SEARCH_COMPILED,
            "anchor_label": anchor_label,
            "header": _header(self.rules, self.pairings, self.deals, self.first),
        }
        summary.info = {k: info[k] for k in info if k not in ("anchor_label", "header")}
        if save:
            with open(f"{save}/arena.json", "w", encoding="utf-8") as f:
                json.dump(summary.to_json(), f, indent=2, ensure_ascii=False)
                f.write("\n")
        if as_json:
            print(json.dumps(summary.to_json(), indent=2, ensure_ascii=False))
            return 0
        console = Console(width=None if sys.stdout.isatty() else 110)
        render(console, summary, info)
        return 0
