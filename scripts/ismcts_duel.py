"""Tune the ISMCTS of levels 5-10: one configuration against another, or
against a frozen flat Monte Carlo bot (mc5..mc10), on duplicate deals.

``kozyr arena`` measures the shipped levels; this script measures settings
that are not (yet) a level, so the figures in docs/bots.md that chose the
settings can be reproduced::

    python scripts/ismcts_duel.py '{"iterations": 10000, "bias": 1.0}' mc10 --deals 20
    python scripts/ismcts_duel.py '{"iterations": 10000, "inference": true}' \\
        '{"iterations": 10000, "inference": false}' --deals 60

A side is a JSON object of :class:`kozyr.bots.ismcts.IsmctsConfig` fields
(``iterations`` required; ``endgame_nodes`` 25,000 and ``time_cap`` 3 s by
default) or ``mcN``.  Two players, 36 cards; each deal (seed 9000 + deal,
or 5000 + deal against an mc bot, as in the first measurements) is played
twice with the seats swapped.  Prints how often each side was the durak.
"""

from __future__ import annotations

import argparse
import json
import time
from multiprocessing import Pool
from typing import Any

from kozyr.arena.match import play_game
from kozyr.bots.base import Bot
from kozyr.bots.flat_mc import flat_mc_bot
from kozyr.bots.ismcts import IsmctsBot, IsmctsConfig
from kozyr.engine.deal import Deal
from kozyr.engine.rules import Rules


def make(side: str, seed: int, name: str) -> Bot:
    if side.lower().startswith("mc"):
        return flat_mc_bot(int(side[2:]), seed, name)
    fields: dict[str, Any] = {"endgame_nodes": 25_000, "time_cap": 3.0, **json.loads(side)}
    return IsmctsBot(IsmctsConfig(**fields), seed, name)


def game(job: tuple[int, int, str, str, dict[str, Any], int]) -> str | None:
    """Who was the durak ("A", "B") or None for a draw."""
    deal, rot, a, b, rules_dict, base = job
    rules = Rules.from_dict(rules_dict)
    bot_a = make(a, deal * 2 + rot, "A")
    bot_b = make(b, deal * 2 + rot + 999 if not b.startswith("mc") else deal * 2 + rot + 1000, "B")
    bots = [bot_a, bot_b] if rot == 0 else [bot_b, bot_a]
    played = play_game(rules, Deal.from_seed(rules, base + deal), bots)
    durak = played.result.durak if played.result else None
    return None if durak is None else bots[durak].name


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("a", help="JSON IsmctsConfig fields")
    p.add_argument("b", help="JSON IsmctsConfig fields, or mc5..mc10")
    p.add_argument("--deals", type=int, default=20)
    p.add_argument("--first-deal", type=int, default=0)
    p.add_argument("--variant", default="podkidnoy", choices=["podkidnoy", "perevodnoy"])
    p.add_argument("--rule", action="append", default=[], help="NAME=true|false")
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args()
    rules: dict[str, Any] = {"players": 2, "deck": 36, "variant": args.variant}
    for item in args.rule:
        name, _, value = item.partition("=")
        rules[name] = value == "true"
    base = 5000 if args.b.lower().startswith("mc") else 9000
    jobs = [
        (d, r, args.a, args.b, rules, base)
        for d in range(args.first_deal, args.first_deal + args.deals)
        for r in (0, 1)
    ]
    start = time.perf_counter()
    with Pool(args.workers) as pool:
        out = pool.map(game, jobs, chunksize=1)
    print(
        f"A {args.a} | B {args.b} | {args.variant} | durak: A {out.count('A')}, "
        f"B {out.count('B')}, draws {out.count(None)} of {len(out)} "
        f"| {time.perf_counter() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
