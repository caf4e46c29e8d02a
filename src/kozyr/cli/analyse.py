"""``kozyr analyse RECORD``: every decision of a finished game, judged by the search.

Prints a table per seat (the move played, the best move, their chances of not
being the durak, the label) and each seat's accuracy; ``--json`` prints the
contract of docs/records.md ("Analysis") instead.  docs/analysis.md explains
the figures.  Exit codes: 0 done, 2 a record or seat that cannot be analysed.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from kozyr.bots.analysis import Analysis, AnalysisError, Decision, analyse, default_budget
from kozyr.engine.record import GameRecord, RecordError

_STYLE = {
    "best": "green",
    "good": "green",
    "inaccuracy": "yellow",
    "mistake": "dark_orange",
    "blunder": "bold red",
    "forced": "dim",
}


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "analyse",
        aliases=["analyze"],
        help="judge every decision of a game record (best, mistake, blunder ...)",
        description="Evaluate every legal action at each decision of the chosen seats, "
        "from what that seat knew, and label the move played (docs/analysis.md).",
    )
    p.add_argument("record", help="the game record (JSON), or - for standard input")
    p.add_argument(
        "--seat",
        type=int,
        action="append",
        metavar="N",
        help="a seat to analyse (repeatable; default: every seat that had a choice)",
    )
    p.add_argument(
        "--budget",
        type=int,
        metavar="ITERATIONS",
        help="search iterations per decision (default: 3x level 10's at the table, "
        f"{default_budget(2):,} for two players)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="decisions analysed in parallel threads (the result does not depend on it)",
    )
    p.add_argument("--seed", type=int, default=0, metavar="S", help="search seed (default 0)")
    p.add_argument("--json", action="store_true", help="print the JSON of docs/records.md")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=run)


def _read(path: str) -> GameRecord:
    if path == "-":
        return GameRecord.loads(sys.stdin.read())
    return GameRecord.load(path)


def run(args: argparse.Namespace) -> int:
    err = Console(stderr=True)
    if args.workers < 1:
        err.print("kozyr analyse: error: --workers must be at least 1")
        return 2
    if args.budget is not None and args.budget < 1:
        err.print("kozyr analyse: error: --budget must be at least 1")
        return 2
    try:
        record = _read(args.record)
        show = not args.quiet and err.is_terminal
        with Progress(
            TextColumn("analysing"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("decisions"),
            TimeElapsedColumn(),
            console=err,
            transient=True,
            disable=not show,
        ) as bar:
            task = bar.add_task("decisions", total=None)

            def progress(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            result = analyse(record, args.seat, args.budget, args.seed, args.workers, progress)
    except (RecordError, AnalysisError) as exc:
        err.print(f"kozyr analyse: error: {exc}", markup=False, highlight=False)
        return 2
    except KeyboardInterrupt:
        err.print("kozyr analyse: interrupted")
        return 130
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        print_tables(result, Console())
    return 0


def _chance(value: float) -> str:
    return f"{100 * value:.1f} %"


def _move(decision: Decision) -> tuple[str, str]:
    played = str(decision.played).split(" ", 2)[2]
    best = "" if decision.best == decision.played else str(decision.best).split(" ", 2)[2]
    return played, best


def print_tables(result: Analysis, console: Console) -> None:
    """One rich table per seat, then a summary line with the label counts."""
    for seat, sa in sorted(result.seats.items()):
        table = Table(title=f"seat {seat}", title_justify="left")
        table.add_column("#", justify="right")
        table.add_column("played")
        table.add_column("chance", justify="right")
        table.add_column("best")
        table.add_column("best's chance", justify="right")
        table.add_column("label")
        for d in sa.decisions:
            played, best = _move(d)
            style = _STYLE[d.label]
            exact = " =" if d.exact else ""
            table.add_row(
                str(d.index),
                played,
                _chance(d.chance_played) + exact,
                best,
                "" if not best else _chance(d.chance_best),
                f"[{style}]{d.label}[/]",
            )
        console.print(table)
        counts = sa.counts()
        acc = sa.accuracy
        summary = ", ".join(f"{counts[k]} {k}" for k in counts if counts[k])
        line = f"seat {seat}: accuracy {'-' if acc is None else f'{acc:.1f}'}  ({summary})"
        if sa.not_judged:
            line += f"; {sa.not_judged} cheats and accusations not judged"
        console.print(line)
    console.print(
        f"[dim]budget {result.budget:,} iterations per decision, seed {result.seed}; "
        "= marks chances solved exactly[/]"
    )
