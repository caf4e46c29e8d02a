"""The core's endgame solver (core/solver.c) against bots/endgame.py."""

from __future__ import annotations

import random

import pytest

from kozyr import core
from kozyr.bots.endgame import OutOfBudget, Solver, two_sided
from kozyr.bots.heuristics import SOLID, tables
from kozyr.bots.rollout import policy_action
from kozyr.engine.rules import Rules
from kozyr.engine.state import GameState

from .helpers import needs_core, random_rules


def endgame(rules: Rules, seed: int) -> GameState | None:
    """A two-sided position with an empty stock reached by a noisy level-4 game
    from the deal of ``seed`` (None if the game ended first)."""
    state = GameState.from_seed(rules, seed)
    rng = random.Random(seed)
    t = tables(state.trump_suit, rules.deck)
    while not state.game_over and not (not state.stock and two_sided(state)):
        if rng.random() < 0.2:
            state.do(state.sample_action(rng.random()))
        else:
            state.do(policy_action(state, t, SOLID, rng.random()))
    return None if state.game_over else state


@needs_core
@pytest.mark.parametrize("seed", range(3))
def test_the_core_solver_agrees_with_the_reference_solver(seed: int) -> None:
    """Same exact value (for the lowest active seat) on endgames of random honest
    tables; positions the reference cannot finish within its budget are skipped."""
    rng = random.Random(seed)
    compared = 0
    for k in range(25):
        rules = random_rules(rng, players=rng.choice([2, 2, 3]))
        if rules.cheating:
            continue
        state = endgame(rules, seed * 1000 + k)
        if state is None:
            continue
        side = min(x for x in range(state.n) if state.active >> x & 1)
        reference = Solver(side, 20_000)
        try:
            expected = reference.value(state, -1.0, 2.0)
        except OutOfBudget:
            continue
        got = core._require().solve(core.from_state(state), side, 10_000_000)
        assert got is not None, f"unsolved: seed {seed * 1000 + k}, {rules}"
        assert got[0] / 2 == expected, f"seed {seed * 1000 + k}, {rules}"
        compared += 1
    assert compared >= 5


@needs_core
def test_the_core_solver_refuses_what_it_cannot_solve() -> None:
    solve = core._require().solve
    fresh = core.new_seeded(Rules(players=2), 1)  # a full stock: not an endgame
    assert solve(fresh, 0, 1000) is None
    state = endgame(Rules(players=2), 3)
    assert state is not None
    tiny = solve(core.from_state(state), 0, 0)  # no node to spend
    assert tiny is None or tiny[1] == 0  # (solved from the start only if trivially over)
    with pytest.raises(ValueError):
        solve(core.from_state(state), 5, 1000)
    with pytest.raises(ValueError):
        solve(core.from_state(state), 0, -1)
    with pytest.raises(TypeError):
        solve("not a state", 0, 1000)
