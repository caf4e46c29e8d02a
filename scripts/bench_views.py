"""Microbenchmark: µs per view of a game, with warm caches and with cold ones.

Why both: in the benchmark's server each move finds little of its code and
data in the CPU caches (a thousand sockets, SQLite, the log and the client
processes run between two moves of a room), and there the same code runs
several times slower than in a loop of its own.  "Cold" sweeps a 16 MB buffer
(larger than this machine's per-core L2 cache) before each call, over 250
games.  docs/performance.md, "Third pass".

    PYTHONPATH=src python scripts/bench_views.py
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from kozyr.engine import Rules
from kozyr.engine.view import view_json, view_of
from kozyr.server.tables.game_session import GameSession

GAMES = 250
CALLS = 2000


def _games() -> list[GameSession]:
    rng = random.Random(1)
    games = []
    for _ in range(GAMES):
        g = GameSession.deal(Rules(players=4), 1, 0)
        for _ in range(12):
            g.apply(rng.choice(g.state.legal_actions()))
        games.append(g)
    return games


def _per_call(games: list[GameSession], call: Callable[[GameSession], object], cold: bool) -> float:
    sweep = bytearray(16 * 1024 * 1024)
    zeros = bytes(len(sweep[::64]))
    total = 0
    for k in range(CALLS):
        g = games[k % GAMES]
        g._public = None  # made again, as after a move
        if cold:
            sweep[::64] = zeros  # one write per cache line
        start = time.perf_counter_ns()
        call(g)
        total += time.perf_counter_ns() - start
    return total / CALLS / 1000


def main() -> None:
    games = _games()
    cases: dict[str, Callable[[GameSession], object]] = {
        "view_of(state, seat).to_json()": lambda g: view_of(g.state, 0).to_json(),
        "view_json(state, seat)": lambda g: view_json(g.state, 0),
        "the four seats' views of a move": lambda g: [g.seat_view(s) for s in range(4)],
    }
    for name, call in cases.items():
        warm = _per_call(games, call, cold=False)
        cold = _per_call(games, call, cold=True)
        print(f"{name:36s} warm {warm:6.1f} µs   cold {cold:6.1f} µs")


if __name__ == "__main__":
    main()
