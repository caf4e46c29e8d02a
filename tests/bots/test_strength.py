"""A short seeded strength check: the strongest level beats level 1 clearly.

Level 10 runs here with its budget divided by ``STRENGTH_REDUCE`` (same
algorithm: sampling search, level-4 rollouts, endgame solver) so that the
duplicate games fit in the test time; the full-budget figures are in the
report of ``kozyr bench bots`` and docs/bots.md.
"""

from __future__ import annotations

from math import comb

from kozyr.bots.base import Bot
from kozyr.bots.levels import LEVELS, bot_for, reduced
from kozyr.bots.match import duplicate
from kozyr.engine.rules import Rules

STRENGTH_REDUCE = 40
DEALS = 16


def reduced_level_10(seed: int) -> Bot:
    return bot_for(reduced(LEVELS[10], STRENGTH_REDUCE), seed)


def sign_test_p(wins: int, losses: int) -> float:
    """One-sided binomial p-value of at least ``wins`` of ``wins + losses`` at 1/2."""
    n = wins + losses
    return sum(comb(n, k) for k in range(wins, n + 1)) / (1 << n)


def test_level_10_beats_level_1_on_duplicate_deals() -> None:
    rules = Rules(players=2, deck=36)
    score = duplicate(rules, reduced_level_10, lambda seed: bot_for(LEVELS[1], seed), range(DEALS))
    assert score.games == 2 * DEALS
    # Level 1 is the durak far more often, and not by luck of the deal.
    assert score.b_durak >= 3 * max(1, score.a_durak)
    assert sign_test_p(score.b_durak, score.a_durak) < 0.001
    assert score.a_score > 0.75
