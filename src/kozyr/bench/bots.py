"""``kozyr bench bots``: decision speed of every level on one core.

For each level the bot plays seeded 2-player 36-card podkidnoy games against
level 4, taking both seats in turn, for about ``seconds`` of wall-clock time
(whole games, the opponent's turns included).  Only real decisions are timed
(forced moves return at once and would flatter the figures).  Reported per
level: decisions per second, search iterations (rollouts + endgame positions)
per second, simulated engine actions per second, median and maximum decision
time (wall clock, and median CPU time), and how many decisions the endgame
solver settled.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from kozyr import core
from kozyr.bots.ismcts import IsmctsBot
from kozyr.bots.levels import MAX_LEVEL, MIN_LEVEL, level_bot
from kozyr.bots.native import COMPILED
from kozyr.bots.search import SearchBot
from kozyr.engine.deal import Deal
from kozyr.engine.rules import Rules
from kozyr.engine.state import GameState
from kozyr.engine.view import view_of


@dataclass
class LevelFigures:
    level: int
    times: list[float] = field(default_factory=list)
    #: CPU time of each decision (unaffected by other processes on the machine).
    cpu: list[float] = field(default_factory=list)
    iterations: int = 0
    steps: int = 0
    endgame: int = 0
    timed_out: int = 0
    games: int = 0

    @property
    def thinking(self) -> float:
        return sum(self.times)

    def to_json(self) -> dict[str, Any]:
        t = self.thinking or 1e-9
        return {
            "level": self.level,
            "decisions": len(self.times),
            "games": self.games,
            "decisions_per_s": len(self.times) / t,
            "iterations_per_s": self.iterations / t,
            "steps_per_s": self.steps / t,
            "median_ms": statistics.median(self.times) * 1000 if self.times else 0.0,
            "max_ms": max(self.times) * 1000 if self.times else 0.0,
            "cpu_median_ms": statistics.median(self.cpu) * 1000 if self.cpu else 0.0,
            "cpu_max_ms": max(self.cpu) * 1000 if self.cpu else 0.0,
            "endgame_solved": self.endgame,
            "timed_out": self.timed_out,
        }


def parse_levels(text: str) -> list[int]:
    """``"1-10"``, ``"5,10"`` or ``"1-3,8"`` to a sorted list of levels."""
    levels: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        lo, _, hi = part.partition("-")
        try:
            a = int(lo)
            b = int(hi) if hi else a
        except ValueError:
            raise ValueError(f"not a level or range of levels: {part!r}") from None
        if not MIN_LEVEL <= a <= b <= MAX_LEVEL:
            raise ValueError(f"levels must be within {MIN_LEVEL}..{MAX_LEVEL}: {part!r}")
        levels.update(range(a, b + 1))
    if not levels:
        raise ValueError("no levels given")
    return sorted(levels)


def measure_level(
    level: int,
    seconds: float,
    seed: int,
    players: int = 2,
    variant: str = "podkidnoy",
    cheating: bool = False,
) -> LevelFigures:
    """Time ``level``'s real decisions in seeded games against level-4 bots
    (36 cards; the measured bot changes seat every game)."""
    rules = Rules.from_dict(
        {"players": players, "deck": 36, "variant": variant, "cheating": cheating}
    )
    figures = LevelFigures(level)
    game = 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end or not figures.times:
        me = game % players
        bots = [level_bot(4, seed + game) for _ in range(players)]
        bots[me] = level_bot(level, seed + game)
        state = GameState.new(rules, Deal.from_seed(rules, seed + game))
        while not state.game_over and (time.perf_counter() < end or not figures.times):
            seat = state.to_move
            assert seat is not None
            view = view_of(state, seat)
            bot = bots[seat]
            start = time.perf_counter()
            cpu_start = time.process_time()
            action = bot.choose(view)
            cpu = time.process_time() - cpu_start
            spent = time.perf_counter() - start
            if seat == me and len(view.legal) > 1:
                figures.times.append(spent)
                figures.cpu.append(cpu)
                inner = getattr(bot, "inner", bot)  # the level inside its rule-13 wrapper
                if isinstance(inner, SearchBot | IsmctsBot):
                    last = inner.last
                    figures.iterations += last.iterations
                    figures.steps += last.steps
                    figures.endgame += last.method == "endgame"
                    figures.timed_out += last.timed_out
            state.apply(action)
        game += 1
        figures.games = game
    return figures


def run_bench(
    levels: list[int],
    seconds: float,
    seed: int,
    players: int = 2,
    variant: str = "podkidnoy",
    cheating: bool = False,
) -> list[LevelFigures]:
    return [measure_level(level, seconds, seed, players, variant, cheating) for level in levels]


def _rate(x: float) -> str:
    return f"{x:.0f}" if x >= 100 else f"{x:.1f}"


def print_table(
    rows: list[LevelFigures], players: int = 2, variant: str = "podkidnoy", cheating: bool = False
) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(
        title=f"kozyr bench bots: {players} players, 36 cards, {variant}"
        + (", cheating table" if cheating else "")
        + ", vs level 4",
        caption="reference engine and flat search "
        + ("compiled with mypyc" if COMPILED else "in pure Python")
        + "; levels 5-10: ISMCTS in the compiled core"
        + ("" if core.AVAILABLE else " NOT BUILT (flat search fallback)"),
        box=box.SIMPLE_HEAD,
    )
    for name in (
        "level",
        "decisions",
        "dec/s",
        "iter/s",
        "sim/s",
        "med ms",
        "max ms",
        "cpu ms",
        "solved",
        "capped",
    ):
        table.add_column(name, justify="right", no_wrap=True)
    for row in rows:
        f = row.to_json()
        search = row.level >= 5
        table.add_row(
            str(row.level),
            str(f["decisions"]),
            _rate(f["decisions_per_s"]),
            _rate(f["iterations_per_s"]) if search else "-",
            _rate(f["steps_per_s"]) if search else "-",
            f"{f['median_ms']:.1f}",
            f"{f['max_ms']:.1f}",
            f"{f['cpu_median_ms']:.1f}",
            str(f["endgame_solved"]) if search else "-",
            str(f["timed_out"]) if search else "-",
        )
    Console(width=100).print(table)
    print(
        "med/max ms: wall-clock time of real decisions (forced moves excluded); cpu ms:\n"
        "median CPU time (equal to med ms on an idle machine).  dec/s: decisions per\n"
        "second of thinking; iter/s: rollouts + endgame positions per second; sim/s:\n"
        "simulated engine actions per second; solved: decisions settled by the endgame\n"
        "solver; capped: decisions cut short by the wall-clock cap (0 on an idle machine)."
    )
