"""Issue 29's knobs at the opponents' nodes of the tree: progressive widening
(``IsmctsConfig.widening``), the bias towards the reply the policy would
choose with the opponent's hand in each deal (``opponent_bias``) and the
replies kept apart by the class of that hand (``opponent_split``; and the
same split of the searching seat's own moves, ``own_split``)."""

from __future__ import annotations

import pytest

from kozyr.bots.ismcts import IsmctsConfig, search_root
from kozyr.engine.rules import Rules

from ..bots.helpers import choice_views
from .helpers import TREE_CONFIG as CONFIG
from .helpers import needs_core, search_twice, tree_children, tree_searches


@needs_core
def test_widening_keeps_the_opponents_nodes_narrower_and_the_walks_deeper() -> None:
    plain, plain_depth = tree_children(CONFIG)
    narrow, narrow_depth = tree_children(CONFIG._replace(widening=1.0))
    assert narrow["opponent_nodes"] < 0.8 * plain["opponent_nodes"]
    assert narrow_depth > plain_depth


@needs_core
def test_the_opponent_bias_concentrates_the_opponents_replies() -> None:
    plain, _ = tree_children(CONFIG, "effective")
    biased, _ = tree_children(CONFIG._replace(opponent_bias=0.5), "effective")
    assert biased["opponent_nodes"] < 0.9 * plain["opponent_nodes"]


@needs_core
@pytest.mark.parametrize(
    ("split_config", "split", "kept", "more"),
    [
        (CONFIG._replace(opponent_split=2), "opponent_nodes", "own_nodes", 1.2),
        (CONFIG._replace(own_split=2), "own_nodes", "opponent_nodes", 1.1),
    ],
    ids=["opponent_split", "own_split"],
)
def test_a_split_keeps_the_moves_of_different_hands_apart(
    split_config: IsmctsConfig, split: str, kept: str, more: float
) -> None:
    # Each move gets a child per class of hand that played it (trumps 0, 1, 2+),
    # so the split side's nodes have more children, each visited less.  The
    # bot's own hand differs between deals only after a refill (own_split).
    plain, _ = tree_children(CONFIG)
    apart, _ = tree_children(split_config)
    assert apart[split] > more * plain[split]
    # the other side's nodes are not split
    assert apart[kept] < 1.2 * plain[kept]


@needs_core
def test_the_opponents_knobs_are_deterministic_and_checked() -> None:
    view = choice_views(Rules(players=2), 1, seed=5)[0]
    config = CONFIG._replace(widening=1.5)
    search_twice(view, config)
    with pytest.raises(ValueError, match="widen"):
        search_root(view, 7, config._replace(widening=-1.0))
    with pytest.raises(ValueError, match="opp_bias"):
        search_root(view, 7, config._replace(opponent_bias=-0.1))
    with pytest.raises(ValueError, match="opp_split"):
        search_root(view, 7, config._replace(opponent_split=-1))
    for shrink in (-1.0, float("inf")):
        with pytest.raises(ValueError, match="opp_shrink"):
            search_root(view, 7, config._replace(opponent_shrink=shrink))
    for knob in ({"opponent_split": 3}, {"opponent_shrink": 3.0}):
        search_twice(view, config._replace(widening=0.0, **knob))


@needs_core
def test_the_shrink_scores_replies_by_the_hands_class_without_splitting_the_tree() -> None:
    # opponent_split gives every class of hand its own child (the test above);
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
