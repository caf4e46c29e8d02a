"""Tune the ISMCTS of levels 5-10: one configuration against another, or
against a frozen flat Monte Carlo bot (mc5..mc10), on duplicate deals.

``kozyr arena`` measures the shipped levels (and ``isN``, ``10x3``); this
script measures settings that are not (yet) a level, so the figures in
docs/bots.md that chose the settings can be reproduced::

    python scripts/ismcts_duel.py '{"iterations": 10000, "exploration": 0.4}' mc10 --deals 20
    python scripts/ismcts_duel.py '{"iterations": 10000, "inference": true}' \\
        '{"iterations": 10000, "inference": false}' --deals 60
    python scripts/ismcts_duel.py '{"base": "10", "scale": 10}' '{"base": "10"}' \\
        --deals 100 --workers 1 --out s10.jsonl

A side is ``mcN`` or a JSON object of :class:`kozyr.bots.ismcts.IsmctsConfig`
fields.  ``"oracle": true`` in a side's JSON is a diagnostic, not a player:
that side's search is told the opponent's hand (not the stock's order), so a
duel of two oracles measures what the search gains with time once the
sampling of hidden cards is taken out of the question.  ``"oracle": f`` (a
share, 0 < f < 1) tells only a seeded f of the cards: those of them the
opponent holds are known, the rest of its hand is sampled as usual, so that
duels at several shares tell how the gain with time grows with what the
search knows of the hidden hand.  ``"after_stock": {...}``
is a diagnostic too: from the first decision with an empty stock on (a
perfect-information endgame for two players), or with at most
``"stock_at_most": k`` cards in it, that side plays with the configuration
the inner JSON describes, so that a duel can tell in which part of the game
a larger budget gains: while hands are hidden, or only once they are known.
``"evidence": {...}``
gives the inference's factors by name (:class:`kozyr.bots.inference.Evidence`;
``inference_calibration.py --by-kind`` measures them for a level).

With ``"base": "is10"`` (a frozen issue-12 level, ``is5``..``is10``)
or ``"base": "10"`` (a level of today's table) the fields override that
level's configuration, and ``"scale": k`` multiplies its iterations and
solver nodes; without a base, ``iterations`` is required and
``endgame_nodes`` is 25,000.  The wall-clock cap is 60 s unless given (a
safety net: results depend on seeds only).  Two players, 36 cards; each deal
(seed 9000 + deal, or 5000 + deal against an mc bot, as in the first
measurements) is played twice with the seats swapped.  ``--players N`` (3..6)
plays each deal N times, side A in each seat in turn and side B in all the
others (the label says ``perevodnoy, 3 players``), as the bars with more
players ask: one new level against today's.  Prints how often each
side was the durak, with 95 % Wilson intervals; ``--out`` appends one JSON
line per game (deal, rotation, durak side) so that runs in parts add up
(``--merge FILE...`` prints the table of several such files, and per deal
whether the play or the seat decided it; ``--resume``
skips the games the ``--out`` file already holds for the same sides (the
same JSON however it is spelled: ``10`` or ``10.0``, spacing, key order),
so an interrupted part goes on where it stopped: each line keeps a digest of
both sides' configurations as they were played, and a file whose games of the
same sides were played otherwise (a level of today's table has changed since;
lines from before the digest were played with ``BEFORE_DIGEST``'s table) is
refused; ``--compare FILE REF``
sets two such runs of the same deals side by side, game by game, with a
sign test on the games they end differently).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import random
import time
from multiprocessing import Pool
from typing import Any

from kozyr.arena.match import play_game
from kozyr.arena.stats import sign_test, wilson
from kozyr.bots.base import Bot
from kozyr.bots.flat_mc import flat_mc_bot
from kozyr.bots.frozen import FROZEN_LEVELS
from kozyr.bots.inference import Evidence
from kozyr.bots.ismcts import IsmctsBot, IsmctsConfig, with_hands_known
from kozyr.bots.levels import LEVELS
from kozyr.engine.actions import Action
from kozyr.engine.deal import Deal
from kozyr.engine.rules import Rules
from kozyr.engine.state import GameState
from kozyr.engine.view import View


def config_of(side: str, table: dict[int, IsmctsConfig] | None = None) -> IsmctsConfig:
    """The configuration a JSON side describes (a level's as ``table`` gives
    it, if it does, else as today's table does)."""
    fields: dict[str, Any] = json.loads(side)
    fields.pop("oracle", None)
    fields.pop("after_stock", None)
    fields.pop("stock_at_most", None)
    base = fields.pop("base", None)
    scale = int(fields.pop("scale", 1))
    if "evidence" in fields:
        fields["evidence"] = Evidence(**fields["evidence"])
    if base is None:
        fields = {"endgame_nodes": 25_000, "time_cap": 60.0, **fields}
        cfg = IsmctsConfig(**fields)
    else:
        text = str(base).lower()
        if text.startswith("is"):
            cfg = FROZEN_LEVELS[int(text[2:])]
        else:
            found = (table or {}).get(int(text)) or LEVELS[int(text)].search
            assert isinstance(found, IsmctsConfig), f"level {base} is not a search level"
            cfg = found
        cfg = cfg._replace(time_cap=60.0)._replace(**fields)
    if scale != 1:
        cfg = cfg._replace(
            iterations=cfg.iterations * scale, endgame_nodes=cfg.endgame_nodes * scale
        )
    return cfg


class OracleBot:
    """A search told the opponents' hands: each view's ``known`` is completed
    from the true state, replayed from the deal and the view's public history.
    With ``share`` below 1 only the cards of a fixed random set (each card in
    it with that chance, drawn from ``seed``) are told when an opponent holds
    them."""

    def __init__(
        self, inner: Bot, rules: Rules, deal: Deal, share: float = 1.0, seed: int = 0
    ) -> None:
        if not 0 < share <= 1:
            raise ValueError(f"an oracle's share must be in (0, 1], not {share}")
        self.inner, self.rules, self.deal, self.name = inner, rules, deal, inner.name
        rng = random.Random(f"oracle {seed}")
        self.told = sum(1 << c for c in range(52) if share == 1 or rng.random() < share)

    def choose(self, view: View) -> Action:
        state = GameState.new(self.rules, self.deal)
        for action in view.history:
            state.apply(action)
        told = zip(view.known, state.hands, strict=True)
        hands = [known | (hand & self.told) for known, hand in told]
        return self.inner.choose(with_hands_known(view, hands))


class PhaseBot:
    """One search while the stock has more than ``stock_at_most`` cards, another after."""

    def __init__(self, with_stock: Bot, after_stock: Bot, stock_at_most: int = 0) -> None:
        self.with_stock, self.after_stock, self.name = with_stock, after_stock, with_stock.name
        self.stock_at_most = stock_at_most

    def choose(self, view: View) -> Action:
        late = view.deck_count <= self.stock_at_most
        return (self.after_stock if late else self.with_stock).choose(view)


def make(side: str, seed: int, name: str, rules: Rules, deal: Deal) -> Bot:
    if side.lower().startswith("mc"):
        return flat_mc_bot(int(side[2:]), seed, name)
    bot: Bot = IsmctsBot(config_of(side), seed, name)
    fields = json.loads(side)
    after = fields.get("after_stock")
    if after is not None:
        late = IsmctsBot(config_of(json.dumps(after)), seed, name)
        bot = PhaseBot(bot, late, int(fields.get("stock_at_most", 0)))
    share = fields.get("oracle")
    return OracleBot(bot, rules, deal, float(share), seed) if share else bot


def game(job: tuple[int, int, str, str, dict[str, Any], int]) -> tuple[int, int, str | None]:
    """(deal, rotation, who was the durak: "A", "B" or None for a draw).  Side A
    sits in seat ``rotation``, side B in every other seat (a bot each, seeded
    apart; with two players the seeds are those of the first measurements)."""
    deal, rot, a, b, rules_dict, base = job
    rules = Rules.from_dict(rules_dict)
    n = rules.players
    cards = Deal.from_seed(rules, base + deal)
    seed = deal * n + rot
    bot_a = make(a, seed, "A", rules, cards)
    seed_b = seed + 999 if not b.startswith("mc") else seed + 1000
    others = [make(b, seed_b + 10_000 * k, "B", rules, cards) for k in range(n - 1)]
    bots = [*others[:rot], bot_a, *others[rot:]]
    played = play_game(rules, cards, bots)
    durak = played.result.durak if played.result else None
    return deal, rot, None if durak is None else bots[durak].name


def report(label: str, out: list[str | None], seconds: float | None = None) -> str:
    n = len(out)
    parts = []
    for side in ("A", "B"):
        k = out.count(side)
        lo, hi = wilson(k, n) if n else (0.0, 0.0)
        parts.append(f"{side} {k} ({100 * k / max(n, 1):.1f} % [{100 * lo:.1f}-{100 * hi:.1f}])")
    tail = f" | {seconds:.0f} s" if seconds is not None else ""
    return f"{label} | durak: {', '.join(parts)}, draws {out.count(None)} of {n}{tail}"


#: One duel's games: (deal, rotation) -> the durak's side ("A", "B"), None for a draw.
Games = dict[tuple[int, int], str | None]


def _side(text: str) -> object:
    """A side as its parsed JSON (an ``mc`` bot's name as it is)."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def sides_of(label: str) -> tuple[object, ...]:
    """A duel's label (``A <side> | B <side> | <variant>``) as its parsed sides
    and variant, so that labels that spell the same sides differently match."""
    head, sep, variant = label.rpartition(" | ")
    a, sep_b, b = head.removeprefix("A ").partition(" | B ")
    if not (sep and sep_b):
        return (label,)
    return (_side(a), _side(b), variant)


#: The levels as they were before the games' lines carried their sides' digest
#: (where they differ from today's table): lines without one were played so.
#: Level 10 has scored the opponents' replies by class of hand since then.
BEFORE_DIGEST: dict[int, IsmctsConfig] = {10: FROZEN_LEVELS[10]._replace(endgame_eval=True)}


def _spelled(config: object) -> str:
    """A configuration as text in which equal values read the same (``10`` and
    ``10.0`` both as ``10.0``), nested factors (``evidence``) included.  A
    field left at its default is not spelled, in the search's knobs as in the
    factors, so that a knob or factor added later (at a default that changes
    nothing) leaves every digest as it was."""
    no_default = dataclasses.MISSING
    fields: list[tuple[object, object, object]] | None = None
    if dataclasses.is_dataclass(config) and not isinstance(config, type):
        kind = type(config).__name__
        fields = [(f.name, getattr(config, f.name), f.default) for f in dataclasses.fields(config)]
    elif isinstance(config, tuple):
        kind = ""
        names = getattr(config, "_fields", range(len(config)))
        defaults = getattr(config, "_field_defaults", {})
        pairs = zip(names, config, strict=True)
        fields = [(k, v, defaults.get(k, no_default)) for k, v in pairs]
    if fields is not None:
        kept = ", ".join(f"{k}={_spelled(v)}" for k, v, default in fields if v != default)
        return f"{kind}({kept})"
    if isinstance(config, int | float) and not isinstance(config, bool):
        return repr(float(config))
    return repr(config)


def resolved(side: str, table: dict[int, IsmctsConfig] | None = None) -> str:
    """What a side plays with: an ``mc`` bot's name, or its configuration
    (and its ``after_stock`` one) spelled out, the levels' changed by ``table``."""
    if side.lower().startswith("mc"):
        return side.lower()
    after = json.loads(side).get("after_stock")
    late = "" if after is None else f" after stock {_spelled(config_of(json.dumps(after), table))}"
    return f"{_spelled(config_of(side, table))}{late}"


def configs_key(a: str, b: str, table: dict[int, IsmctsConfig] | None = None) -> str:
    """A short digest of both sides resolved: each line keeps it, so that a
    resumed duel cannot mix in games of a level whose table has changed since."""
    text = f"{resolved(a, table)} | {resolved(b, table)}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class StaleGames(ValueError):
    """An ``--out`` file holds games of the same sides played with other configurations."""


def load_games(
    path: str, label: str | None = None, configs: tuple[str, str] | None = None
) -> tuple[Games, str]:
    """The games an ``--out`` file holds (only those of ``label``'s sides, if
    given) and the first label in it; a game played twice keeps its last line.

    With ``configs`` (for ``--resume``: :func:`configs_key` of the sides with
    today's table and with :data:`BEFORE_DIGEST`'s), a game of the same sides
    played with other configurations raises :class:`StaleGames` rather than
    being counted as this duel's; a line without a digest is judged by the
    second."""
    games: Games = {}
    first = ""
    stale = 0
    wanted = None if label is None else sides_of(label)
    with open(path, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if wanted is not None and sides_of(row["label"]) != wanted:
                continue
            if configs is not None and row.get("configs", configs[1]) != configs[0]:
                stale += 1
                continue
            games[(row["deal"], row["rotation"])] = row["durak"]
            first = first or row["label"]
    if stale:
        raise StaleGames(
            f"{path} holds {stale} game{'s' * (stale != 1)} of these sides played with other "
            "configurations (a level's table has changed since): give another --out file"
        )
    return games, first


def players_of(label: str) -> int:
    """How many players a duel's label says (``perevodnoy, 3 players``; 2 if it says none)."""
    table = label.rpartition(" | ")[2]
    count, sep, _ = table.partition(", ")[2].partition(" players")
    return int(count) if sep else 2


def deal_split(games: Games, n: int = 2) -> str:
    """Per deal played in both seats, who was the durak: the same side twice
    (the play decided the deal), one each (the seat decided it, whoever sat
    there), or a draw in one of the two games.  Only the first kind can move
    when one side gets stronger, which bounds what any fix can show.  With
    more players, per deal played in every seat: in how many of them side A
    was the durak."""
    seats: dict[int, list[str | None]] = {}
    for (deal, _), durak in sorted(games.items()):
        seats.setdefault(deal, []).append(durak)
    if n > 2:
        full = [d for d in seats.values() if len(d) == n]
        counts = ", ".join(f"{k}: {sum(d.count('A') == k for d in full)}" for k in range(n + 1))
        return f"per deal ({len(full)} played in all {n} seats), A the durak in {counts}"
    pairs = [tuple(d) for d in seats.values() if len(d) == 2]
    both_a = pairs.count(("A", "A"))
    both_b = pairs.count(("B", "B"))
    by_seat = pairs.count(("A", "B")) + pairs.count(("B", "A"))
    return (
        f"per deal ({len(pairs)} played in both seats): A the durak in both games in {both_a}, "
        f"B in both in {both_b}, one each (the seat decided) in {by_seat}, "
        f"a draw in {len(pairs) - both_a - both_b - by_seat}"
    )


def compare(games: Games, ref: Games) -> str:
    """Two runs of side A on the same deals, game by game: the duplicate
    deals make the games that end the same carry no information, so the
    verdict is the sign test on the games that A lost in one run only, and
    per deal, which run's A was the durak more often."""
    common = sorted(set(games) & set(ref))
    if not common:
        return "no game in common"
    lost = sum(games[g] == "A" for g in common)
    lost_ref = sum(ref[g] == "A" for g in common)
    same = sum(games[g] == ref[g] for g in common)
    only = sum(games[g] == "A" != ref[g] for g in common)
    only_ref = sum(ref[g] == "A" != games[g] for g in common)
    per_deal: dict[int, int] = {}
    for deal, rot in common:
        per_deal[deal] = per_deal.get(deal, 0) + (games[deal, rot] == "A") - (ref[deal, rot] == "A")
    worse = sum(d > 0 for d in per_deal.values())
    better = sum(d < 0 for d in per_deal.values())
    n = len(common)
    return (
        f"{n} games in common ({len(per_deal)} deals): A the durak in {lost} "
        f"({100 * lost / n:.1f} %) against {lost_ref} ({100 * lost_ref / n:.1f} %) in REF; "
        f"{same} end the same; A lost {only} that REF's A did not, REF's A {only_ref} "
        f"(sign test p {sign_test(only, only_ref):.3f}); per deal worse in {worse}, "
        f"better in {better}, the same in {len(per_deal) - worse - better}"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("a", nargs="?", help="JSON IsmctsConfig fields")
    p.add_argument("b", nargs="?", help="JSON IsmctsConfig fields, or mc5..mc10")
    p.add_argument("--deals", type=int, default=20)
    p.add_argument("--first-deal", type=int, default=0)
    p.add_argument("--variant", default="podkidnoy", choices=["podkidnoy", "perevodnoy"])
    p.add_argument(
        "--players", type=int, default=2, choices=range(2, 7), metavar="N",
        help="2..6: side A in one seat (each seat in turn), side B in the others",
    )  # fmt: skip
    p.add_argument("--rule", action="append", default=[], help="NAME=true|false")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", help="append one JSON line per game to this file")
    p.add_argument(
        "--resume", action="store_true", help="skip the games --out already holds for these sides"
    )
    p.add_argument(
        "--merge",
        nargs="+",
        metavar="FILE",
        help="the table of --out files, and who lost each deal",
    )
    p.add_argument(
        "--compare",
        nargs=2,
        metavar=("FILE", "REF"),
        help="two --out files game by game, on the games both hold",
    )
    args = p.parse_args()
    if args.merge:
        games: Games = {}
        label = ""
        for path in args.merge:
            found, label_here = load_games(path)
            games.update(found)
            label = label or label_here
        n = players_of(label)
        print(report(f"{label} | {len(games) // n} deals merged", list(games.values())))
        print(deal_split(games, n))
        return
    if args.compare:
        print(compare(*(load_games(path)[0] for path in args.compare)))
        return
    if args.a is None or args.b is None:
        p.error("two sides, or --merge FILE..., or --compare FILE REF")
    rules: dict[str, Any] = {"players": args.players, "deck": 36, "variant": args.variant}
    for item in args.rule:
        name, _, value = item.partition("=")
        rules[name] = value == "true"
    base = 5000 if args.b.lower().startswith("mc") else 9000
    jobs = [
        (d, r, args.a, args.b, rules, base)
        for d in range(args.first_deal, args.first_deal + args.deals)
        for r in range(args.players)
    ]
    table = args.variant if args.players == 2 else f"{args.variant}, {args.players} players"
    label = f"A {args.a} | B {args.b} | {table}"
    configs = (configs_key(args.a, args.b), configs_key(args.a, args.b, BEFORE_DIGEST))
    out: list[str | None] = []
    if args.resume and args.out:
        done: Games = {}
        try:
            done = load_games(args.out, label, configs)[0]
        except FileNotFoundError:
            pass
        except StaleGames as error:
            p.error(str(error))
        out = [done[(d, r)] for d, r, *_ in jobs if (d, r) in done]
        jobs = [job for job in jobs if (job[0], job[1]) not in done]
    start = time.perf_counter()
    with Pool(args.workers) as pool:
        for deal, rot, durak in pool.imap(game, jobs, chunksize=1):
            out.append(durak)
            if args.out:
                with open(args.out, "a", encoding="utf-8") as f:
                    row = {"label": label, "deal": deal, "rotation": rot, "durak": durak}
                    row["configs"] = configs[0]
                    f.write(json.dumps(row) + "\n")
    print(report(label, out, time.perf_counter() - start))


if __name__ == "__main__":
    main()
