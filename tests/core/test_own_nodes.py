"""Issue 29's split of the searching seat's own nodes (``IsmctsConfig.own_split``):
after a refill from the stock the bot holds another hand in every deal, and
the split keeps its moves apart by the class of that hand (that it does:
``test_opponent_nodes.py``, which tests both splits)."""

from __future__ import annotations

import pytest

from kozyr.bots.ismcts import search_root
from kozyr.engine.rules import Rules

from ..bots.helpers import choice_views
from .helpers import TREE_CONFIG as CONFIG
from .helpers import needs_core, search_twice


@needs_core
def test_without_a_refill_ahead_the_split_changes_nothing() -> None:
    # With the stock empty the bot's hand is the same in every deal: one class
    # at every own node, so the same tree, visit for visit.
    views = choice_views(Rules(players=2), 60, seed=3, base_steps=40)
    endgames = [v for v in views if v.deck_count == 0 and len(v.legal) > 1][:3]
    assert endgames, "no decision with an empty stock among the views"
    for view in endgames:
        plain = search_root(view, 7, CONFIG._replace(iterations=2_000))
        split = search_root(view, 7, CONFIG._replace(iterations=2_000, own_split=3))
        assert (split.best, split.visits) == (plain.best, plain.visits)


@needs_core
def test_the_split_is_deterministic_and_checked() -> None:
    view = choice_views(Rules(players=2), 1, seed=5)[0]
    config = CONFIG._replace(iterations=2_000, own_split=2)
    search_twice(view, config)
    with pytest.raises(ValueError, match="own_split"):
        search_root(view, 7, config._replace(own_split=-1))
    with pytest.raises(ValueError, match="own_split"):
        search_root(view, 7, config._replace(own_split=14))
