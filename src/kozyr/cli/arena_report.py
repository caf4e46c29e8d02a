"""The results of an arena run (or of its parts merged) and how they print:
the rich table, or the JSON summary."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.table import Table

from kozyr.arena import runner
from kozyr.arena.schedule import Pairing
from kozyr.arena.summary import Summary, summarize
from kozyr.bots import SEARCH_COMPILED
from kozyr.bots import match as referee
from kozyr.engine import native
from kozyr.engine.rules import Rules


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
