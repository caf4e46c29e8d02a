"""Issue 29's knobs on the tree walk itself: a round limit (``IsmctsConfig.
tree_rounds``) and the progressive bias towards the level-4 policy's move
(``bias``), both measured at ten times level 10's budget in docs/bots.md."""

from __future__ import annotations

from kozyr.bots.ismcts import IsmctsConfig, search_root
from kozyr.engine.rules import Rules

from ..bots.helpers import choice_views
from .helpers import TREE_CONFIG as CONFIG
from .helpers import needs_core, tree_children


def _rounds_passed(config: IsmctsConfig) -> list[int]:
    """Walks by the number of round ends they passed in the tree, summed over a
    few early decisions (cards still in the stock, so rounds end in the tree)."""
    total: list[int] = []
    for view in choice_views(Rules(players=2), 4, seed=5, base_steps=4):
        hist = search_root(view, 3, config, debug=True).info["debug"]["rounds"]
        total = [a + b for a, b in zip(total, hist, strict=True)] if total else list(hist)
    return total


@needs_core
def test_the_round_limit_stops_every_walk_at_that_many_round_ends() -> None:
    plain = _rounds_passed(CONFIG)
    assert sum(plain[2:]) > 0  # without the limit some walks go past two round ends
    for limit in (1, 2):
        limited = _rounds_passed(CONFIG._replace(tree_rounds=limit))
        assert sum(limited[limit + 1 :]) == 0
        assert limited[limit] > 0
        assert sum(limited) == sum(plain)  # every iteration still walks


@needs_core
def test_the_progressive_bias_sends_the_visits_to_the_policys_moves() -> None:
    plain, _ = tree_children(CONFIG, "effective")
    # A bonus bias/(visits+1) fades: a moderate one narrows the opponents' replies...
    moderate, _ = tree_children(CONFIG._replace(bias=5.0), "effective")
    assert moderate["opponent_nodes"] < 0.9 * plain["opponent_nodes"]
    # ...one that never fades makes the tree follow the policy at every node.
    ruled, _ = tree_children(CONFIG._replace(bias=1e6), "effective")
    assert ruled["own_nodes"] < 0.5 * plain["own_nodes"]
    assert ruled["opponent_nodes"] < 0.5 * plain["opponent_nodes"]
