"""Shared by the environment's tests: random games on random tables."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from kozyr.engine.rules import Rules
from kozyr.engine.state import GameState
from tests.core.helpers import random_rules

pytest.importorskip("pettingzoo")

__all__ = ["positions", "random_rules"]


def positions(games: int, seed: int, cheating_share: float = 0.3) -> Iterator[GameState]:
    """Every position of ``games`` random games, each on a random table (about
    ``cheating_share`` of them cheating tables, which random tables would rarely
    make long enough), uniformly random legal actions, at most 600 actions."""
    rng = random.Random(seed)
    for g in range(games):
        rules = random_rules(rng)
        if rng.random() < cheating_share and not rules.cheating:
            rules = Rules.from_dict({**rules.to_dict(), "cheating": True})
        state = GameState.from_seed(rules, rng.getrandbits(64))
        for _ in range(600):
            yield state
            if state.game_over:
                break
            acts = state.legal_actions()
            state.do(acts[rng.randrange(len(acts))])
        del g
