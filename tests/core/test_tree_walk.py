"""Issue 29's knobs on the tree walk itself: a round limit (``IsmctsConfig.
tree_rounds``), the progressive bias towards the level-4 policy's move
(``bias``) and blind iterations for the opponents' nodes (``blind``), all
measured at ten times level 10's budget in docs/bots.md."""

from __future__ import annotations

import pytest

from kozyr.bots.ismcts import IsmctsConfig, search_root
from kozyr.engine.rules import Rules, Variant

from ..bots.helpers import choice_views
from .helpers import TREE_CONFIG as CONFIG
from .helpers import needs_core, raw_search, tree_children


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


@needs_core
def test_blind_iterations_teach_the_opponents_nodes_only() -> None:
    view = choice_views(Rules(players=2), 1, seed=3, base_steps=6)[0]
    assert view.deck_count > 0
    plain = raw_search(view)
    assert sum(plain["visits"]) == plain["iterations"] == 2_000
    assert raw_search(view, blind=0.0) == plain  # off: the same search, number for number
    blind = raw_search(view, blind=0.4)
    # Every iteration ran, but about 40 % of them (binomial: 800 +- 22) left the
    # root's children, our moves, alone...
    assert blind["iterations"] == 2_000
    assert 1_050 < sum(blind["visits"]) < 1_350
    # ...while they still grew the tree at the opponents' nodes.
    assert blind["nodes"] > 0.7 * plain["nodes"]


@needs_core
@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("variant", ["podkidnoy", "perevodnoy"])
def test_a_blind_search_stays_legal_at_any_table(players: int, variant: Variant) -> None:
    config = IsmctsConfig(iterations=800, endgame_nodes=100, time_cap=60.0, blind=0.5)
    rules = Rules(players=players, variant=variant)
    for view in choice_views(rules, 3, seed=players, base_steps=2 + 6 * players):
        found = search_root(view, 2, config)
        assert found.candidates[found.best] in view.legal
        assert 0 < sum(found.visits) < 800


@needs_core
@pytest.mark.parametrize("share", [-0.1, 1.0, float("nan")])
def test_a_blind_share_outside_zero_to_one_is_refused(share: float) -> None:
    view = choice_views(Rules(players=2), 1, seed=3, base_steps=6)[0]
    with pytest.raises(ValueError, match="blind"):
        raw_search(view, blind=share)
