"""The opponents' nodes of the tree: an opponent's reply scored by the class of
the hand it holds in each deal (``IsmctsConfig.opponent_shrink``, in level 10),
without splitting the tree below (docs/bots.md, issue 29)."""

from __future__ import annotations

import pytest

from kozyr.bots.ismcts import search_root
from kozyr.engine.rules import Rules

from ..bots.helpers import choice_views
from .helpers import TREE_CONFIG as CONFIG
from .helpers import needs_core, search_twice, tree_children, tree_searches


@needs_core
def test_the_shrink_is_deterministic_and_checked() -> None:
    view = choice_views(Rules(players=2), 1, seed=5)[0]
    for shrink in (-1.0, float("inf")):
        with pytest.raises(ValueError, match="opp_shrink"):
            search_root(view, 7, CONFIG._replace(opponent_shrink=shrink))
    search_twice(view, CONFIG._replace(opponent_shrink=3.0))


@needs_core
def test_the_shrink_scores_replies_by_the_hands_class_without_splitting_the_tree() -> None:
    # the shrink keeps one child per reply, and learns its value per class too.
    plain_searches = tree_searches(CONFIG)
    shrunk_searches = tree_searches(CONFIG._replace(opponent_shrink=10.0))
    plain, _ = tree_children(plain_searches)
    shrunk, _ = tree_children(shrunk_searches)
    assert shrunk["opponent_nodes"] < 1.2 * plain["opponent_nodes"]
    mixed = 0
    for off, on in zip(plain_searches, shrunk_searches, strict=True):
        assert off.info["debug"]["opponent_classes"] is None
        classes = on.info["debug"]["opponent_classes"]
        assert classes["replies"] > 0
        # every visit of a reply is one of its class's (nothing lost, nothing twice)
        assert classes["class_visits_share"] == 1.0
        if classes["classes_per_reply"] > 1:
            # hands of several classes: their means differ from the reply's
            # mean over all its deals, and steer the search
            mixed += 1
            assert classes["mean_gap"] > 0
            assert on.visits != off.visits
        else:
            # every deal gives the opponent as many trumps (here: the trumps
            # are all accounted for): one class, the plain search
            assert classes["mean_gap"] == 0
            assert on.visits == off.visits
    assert mixed >= 3
