"""``kozyr bench engine``: throughput of the rules engine on one core, the
reference engine beside the compiled core."""

from __future__ import annotations

import random
import time

from kozyr import core
from kozyr.engine.deal import Deal
from kozyr.engine.rules import Rules
from kozyr.engine.state import GameState


def playout_rate(rules: Rules, seconds: float, seed: int) -> dict[str, float]:
    """Random games per second, each from a fresh seeded deal to the end."""
    rng = random.Random(seed)
    games = actions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        state = GameState.new(rules, Deal.from_seed(rules, seed + games))
        state.random_playout(rng)
        games += 1
        actions += state.history_len
        if games % 16 == 0 and time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - start
    return {
        "games_per_s": games / elapsed,
        "actions_per_game": actions / games,
        "us_per_action": elapsed / actions * 1e6,
    }


def core_playout_rate(rules: Rules, seconds: float, seed: int) -> dict[str, float]:
    """The same measurement on the compiled core: fresh seeded deals played out
    with uniformly random actions, in batches that run entirely in C."""
    games = actions = 0
    start = time.perf_counter()
    deadline = start + seconds
    batch = 500
    while time.perf_counter() < deadline or not games:
        actions += core.bench_random(rules, seed + games, batch)
        games += batch
    elapsed = time.perf_counter() - start
    return {
        "games_per_s": games / elapsed,
        "actions_per_game": actions / games,
        "us_per_action": elapsed / actions * 1e6,
    }


def legal_rate(rules: Rules, seconds: float, seed: int) -> dict[str, float]:
    """Legal-move generations per second over positions from random games."""
    rng = random.Random(seed)
    positions: list[GameState] = []
    g = 0
    while len(positions) < 5000:
        state = GameState.from_seed(rules, seed + g)
        g += 1
        while not state.game_over:
            positions.append(state.copy())
            state.do(state.sample_action(rng.random()))
    calls = moves = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for p in positions:
            moves += len(p.legal_actions())
        calls += len(positions)
    elapsed = time.perf_counter() - start
    return {"generations_per_s": calls / elapsed, "moves_per_generation": moves / calls}
