"""The core's rollout policy plays the level-4 rules of thumb exactly: at random
positions of every table, for the styles of levels 1-4 and several random
numbers, it picks the action :func:`kozyr.bots.rollout.policy_action` picks."""

from __future__ import annotations

import random

import pytest

from kozyr import core
from kozyr.bots.heuristics import tables
from kozyr.bots.ismcts import style_tuple
from kozyr.bots.levels import LEVELS
from kozyr.bots.rollout import policy_action, reward
from kozyr.engine.state import GameState

from .helpers import needs_core, random_rules

pytestmark = needs_core

STYLES = [LEVELS[level].style for level in (1, 2, 3, 4)]


@pytest.mark.parametrize("seed", range(6))
def test_policy_matches_the_heuristics(seed: int) -> None:
    rng = random.Random(seed)
    compared = 0
    kinds = set()
    for g in range(60):
        rules = random_rules(rng, players=2 + g % 5)
        state = GameState.from_seed(rules, rng.getrandbits(64))
        while not state.game_over:
            mine = core.from_state(state)
            for style in STYLES:
                t = tables(state.trump_suit, rules.deck, style.trump_aware)
                for u in (rng.random(), 0.01, 0.99):
                    expected = policy_action(state, t, style, u)
                    got = mine.policy_action(style_tuple(style), u)
                    assert got == tuple(expected), (rules, state.history_len, style, u)
                    kinds.add(expected.kind)
                    compared += 1
            for seat in range(state.n):
                assert mine.reward(seat) == reward(state, seat)
            legal = state.legal_actions()
            state.do(legal[rng.randrange(len(legal))])
        mine = core.from_state(state)
        for seat in range(state.n):
            assert mine.reward(seat) == reward(state, seat)
    assert compared > 10_000
    assert len(kinds) >= 5  # leads, covers, throws, takes, passes (transfers in perevodnoy)


def test_policy_playouts_end_and_are_seeded():
    """Whole rollouts in C: every game ends, and a seed replays the same game."""
    rng = random.Random(7)
    for g in range(200):
        rules = random_rules(rng, players=2 + g % 5)
        start = core.new_seeded(rules, g)
        a, b = start.copy(), start.copy()
        steps = a.policy_playout(g, style_tuple(STYLES[3]), 0.05, 3000)
        assert a.over and steps == a.history_len
        b.policy_playout(g, style_tuple(STYLES[3]), 0.05, 3000)
        assert a.snapshot() == b.snapshot()
