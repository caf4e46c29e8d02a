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
import math
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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

from kozyr.arena import runner
from kozyr.arena.schedule import build_schedule
from kozyr.arena.spec import ArenaError, check

from .arena_report import Report
from .arena_setup import build_pairings, build_rules, canonical_command

DEFAULT_DEALS = 100
DEFAULT_WORKERS = 2
DEFAULT_SEED = 1


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
