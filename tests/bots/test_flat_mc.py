"""The frozen flat Monte Carlo bots mc5..mc10: levels 5-10 as they were before issue 12."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kozyr.bots.flat_mc import FLAT_MC_LEVELS, flat_mc_bot
from kozyr.bots.search import SearchBot, SearchConfig
from kozyr.engine.rules import Rules
from kozyr.engine.view import View, view_of

from .helpers import random_position

#: The budgets levels 5-10 had before issue 12; mcN must keep them for good.
FROZEN = {
    5: (1_000, 500, 0.5, 0.05),
    6: (2_500, 1_500, 0.6, 0.05),
    7: (6_000, 4_000, 0.8, 0.05),
    8: (14_000, 8_000, 1.2, 0.05),
    9: (30_000, 15_000, 2.0, 0.05),
    10: (60_000, 25_000, 3.0, 0.05),
}

#: mc5's choice in each view of :func:`seeded_views` (kept so that mc5 stays
#: checked once level 5 plays another search).
MC5_ACTIONS = [
    "seat 1 attack 7S",
    "seat 1 defend KC on 8C",
    "seat 1 attack QH",
    "seat 1 attack JS JH",
    "seat 1 transfer 6S",
    "seat 1 attack 6H",
    "seat 1 attack KH",
    "seat 1 attack 6S",
    "seat 1 throw 9D",
]


def seeded_views() -> Iterator[tuple[int, View]]:
    """Three positions with at least three legal actions for each of three tables,
    with the seed they were dealt from."""
    tables = [Rules(players=2), Rules(players=2, variant="perevodnoy"), Rules(players=3, deck=52)]
    for rules in tables:
        found = 0
        for seed in range(100):
            for steps in (2, 9, 20, 33):
                state = random_position(rules, seed, steps)
                assert state.to_move is not None
                view = view_of(state, state.to_move)
                if len(view.legal) >= 3:
                    yield seed, view
                    found += 1
                    break
            if found == 3:
                break


def test_mc10_keeps_the_budget_of_level_10_before_issue_12() -> None:
    assert FLAT_MC_LEVELS[10] == SearchConfig(
        steps=60_000, endgame_nodes=25_000, time_cap=3.0, epsilon=0.05
    )
    assert {n: tuple(c) for n, c in FLAT_MC_LEVELS.items()} == FROZEN
    with pytest.raises(TypeError):
        FLAT_MC_LEVELS[10] = SearchConfig(1, 1, 0.1)  # type: ignore[index]


def test_mc_bots_are_the_flat_search() -> None:
    bot = flat_mc_bot(10, 7)
    assert isinstance(bot, SearchBot)
    assert bot.config is FLAT_MC_LEVELS[10] and bot.seed == 7 and bot.name == "mc10"
    assert flat_mc_bot(6, 1, "mine").name == "mine"
    for bad in (4, 11, 0):
        with pytest.raises(ValueError, match=r"mc5\.\.mc10"):
            flat_mc_bot(bad, 1)


def test_mc5_plays_what_level_5_played_before_issue_12() -> None:
    """mc5 chooses what level 5 chose before issue 12 gave the levels another
    search (MC5_ACTIONS was recorded from level 5 then, and both agreed)."""
    chosen = [str(flat_mc_bot(5, seed).choose(view)) for seed, view in seeded_views()]
    assert chosen == MC5_ACTIONS
