"""Issue 29's Smooth UCT below the root (``IsmctsConfig.smooth``): a node
chooses by UCB only with a chance that falls with its visits, else draws a
child in proportion to its visits (the node's average strategy)."""

from __future__ import annotations

import pytest

from kozyr.bots.ismcts import search_root
from kozyr.engine.rules import Rules

from ..bots.helpers import choice_views
from .helpers import TREE_CONFIG as CONFIG
from .helpers import needs_core, search_twice, tree_children


@needs_core
def test_smooth_uct_follows_the_average_strategy_and_walks_deeper() -> None:
    # Drawing in proportion to the visits spends less on exploration than UCB:
    # the visits gather on the replies the node already played most (a lower
    # effective number of children, at both sides' nodes) and the walks deepen.
    plain, plain_depth = tree_children(CONFIG, "effective")
    smooth, smooth_depth = tree_children(CONFIG._replace(smooth=1.0), "effective")
    for who in plain:
        assert smooth[who] < 0.8 * plain[who]
    assert smooth_depth > plain_depth


@needs_core
def test_smooth_uct_is_deterministic_checked_and_off_by_default() -> None:
    view = choice_views(Rules(players=2), 1, seed=5)[0]
    config = CONFIG._replace(smooth=0.1)
    assert search_twice(view, config).visits != search_root(view, 7, CONFIG).visits
    assert CONFIG.smooth == 0.0
    for smooth in (-0.1, float("nan")):
        with pytest.raises(ValueError, match="smooth"):
            search_root(view, 7, config._replace(smooth=smooth))
    # with the shrink, an opponent's average strategy is its class of hand's
    search_twice(view, config._replace(opponent_shrink=10.0))


@needs_core
def test_smooth_uct_only_at_tables_of_at_most_smooth_players() -> None:
    # Level 10 smooths at two-player tables only (``smooth_players`` 2): at a
    # three-player table its search is the plain one, visit for visit.
    plain = CONFIG
    two_only = CONFIG._replace(smooth=0.1, smooth_players=2)
    three = choice_views(Rules(players=3), 1, seed=5)[0]
    assert search_root(three, 7, two_only).visits == search_root(three, 7, plain).visits
    up_to_three = two_only._replace(smooth_players=3)
    assert search_root(three, 7, up_to_three).visits != search_root(three, 7, plain).visits
    two = choice_views(Rules(players=2), 1, seed=5)[0]
    assert search_root(two, 7, two_only).visits != search_root(two, 7, plain).visits
    # below two it would switch smoothing off at every table without a word
    for players in (1, 0, -3):
        with pytest.raises(ValueError, match="smooth_players must be at least 2"):
            search_root(two, 7, two_only._replace(smooth_players=players))
