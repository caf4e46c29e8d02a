"""Issue 29's inference inside the tree (``IsmctsConfig.tree_inference``): an
opponent's move in a tree walk weighs the deal by how likely the move is with
the hand the opponent holds there.  The core's chance of a move must be the
one :func:`kozyr.bots.inference.card_weights` reads from the same move in a
game's history, and with factors that say nothing the search must not change."""

from __future__ import annotations

import dataclasses
import math
import random

import pytest

from kozyr import core
from kozyr.bots.inference import FLOOR, LEVEL4_EVIDENCE, Evidence, card_weights
from kozyr.bots.ismcts import _tree_evidence, search_root
from kozyr.engine.actions import Kind
from kozyr.engine.rules import Rules
from kozyr.engine.state import LEAD, GameState
from kozyr.engine.view import view_of

from ..bots.helpers import choice_views
from .helpers import TREE_CONFIG as CONFIG
from .helpers import needs_core, search_twice

_factors = _tree_evidence(CONFIG._replace(tree_inference=1.0))
assert _factors is not None
FACTORS: tuple[float, ...] = _factors


def move_evidence(state: object, action: tuple[int, ...], factors: tuple[float, ...]) -> float:
    """The core's chance of ``action`` in a core ``state``."""
    return float(core._require().move_evidence(state, action, factors))


#: The kinds of move whose evidence card_weights applies without first closing
#: a round (a lead fades the old evidence first, so only a game's first lead
#: compares one to one).
READ_AT_ONCE = (Kind.DEFEND, Kind.TAKE, Kind.PASS)


def _weights(state: GameState, seat: int) -> list[list[float]] | None:
    """card_weights of ``seat``'s view: all 1 before the first move; None where
    its replay of the hand counts cannot follow (after a take, until the round ends)."""
    if not state.history_len:
        return [[1.0] * 52 for _ in range(state.rules.players)]
    return card_weights(view_of(state, seat))


@needs_core
@pytest.mark.parametrize(
    "rules",
    [Rules(players=2), Rules(players=2, variant="perevodnoy"), Rules(players=3)],
    ids=str,
)
def test_a_moves_chance_is_what_the_history_inference_reads_from_it(rules: Rules) -> None:
    rng = random.Random(29)
    checked = {kind: 0 for kind in (Kind.ATTACK, *READ_AT_ONCE)}
    for seed in range(40):
        state = GameState.from_seed(rules, seed)
        while not state.game_over:
            action = state.sample_action(rng.random())
            mover = action.seat
            viewer = (mover + 1) % rules.players
            first_lead = action.kind == Kind.ATTACK and state.history_len == 0
            if action.kind in READ_AT_ONCE or first_lead:
                hand = state.hands[mover]
                chance = move_evidence(core.from_state(state), tuple(action), FACTORS)
                after_state = state.copy()
                after_state.do(action)
                w_before, w_after = _weights(state, viewer), _weights(after_state, viewer)
                cards = [c for c in range(52) if hand >> c & 1]
                # A move that ends the round fades the old evidence (the draws that
                # follow dilute it); a floor hides a factor.  Neither is the move's.
                ends_with_draws = after_state.phase == LEAD and view_of(state, viewer).deck_count
                if (
                    w_before is not None
                    and w_after is not None
                    and not ends_with_draws
                    and all(w_after[mover][c] > FLOOR for c in cards)
                ):
                    before, after = w_before[mover], w_after[mover]
                    expected = math.prod(after[c] / before[c] for c in cards)
                    assert chance == pytest.approx(expected, rel=1e-9), (seed, action)
                    checked[action.kind] += 1
            state.do(action)
    assert all(n >= 5 for n in checked.values()), checked


@needs_core
def test_the_chance_refuses_bad_factors_and_illegal_moves() -> None:
    state = GameState.from_seed(Rules(players=2), 1)
    action = tuple(state.legal_actions()[0])
    with pytest.raises(ValueError, match="tree_evidence"):
        move_evidence(core.from_state(state), action, FACTORS[:6])
    with pytest.raises(ValueError, match="tree_evidence"):
        move_evidence(core.from_state(state), action, (*FACTORS[:6], 0.0))
    wrong_seat = (1 - action[0], *action[1:])
    with pytest.raises(ValueError, match="not legal"):
        move_evidence(core.from_state(state), wrong_seat, FACTORS)


@needs_core
def test_factors_that_say_nothing_change_nothing() -> None:
    # Every chance 1: each iteration weighs 1 and the tree is the plain one.
    neutral = Evidence(*([1.0] * 7))
    for view in choice_views(Rules(players=2), 4, seed=13, base_steps=12):
        plain = search_root(view, 7, CONFIG._replace(iterations=2_000, evidence=neutral))
        weighed = search_root(
            view, 7, CONFIG._replace(iterations=2_000, evidence=neutral, tree_inference=1.0)
        )
        assert (weighed.best, weighed.visits) == (plain.best, plain.visits)


@needs_core
def test_the_weights_change_the_tree_and_stay_reproducible() -> None:
    config = CONFIG._replace(iterations=4_000, tree_inference=1.0)
    changed = 0
    for view in choice_views(Rules(players=2), 6, seed=21, base_steps=8):
        first = search_twice(view, config, seed=5)
        plain = search_root(view, 5, config._replace(tree_inference=0.0))
        changed += first.visits != plain.visits
    assert changed >= 3
    squared = _tree_evidence(config._replace(tree_inference=2.0))
    assert squared is not None
    assert squared[0] == pytest.approx(LEVEL4_EVIDENCE.took_instead_of_cover**2)


@needs_core
def test_the_tree_can_read_with_factors_of_its_own() -> None:
    # tree_evidence sets the tree's factors apart from the root's: neutral ones
    # in the tree leave the search plain while the root still reads the game.
    neutral = Evidence(*([1.0] * 7))
    fitted = Evidence(took_instead_of_cover=0.6)
    config = CONFIG._replace(iterations=2_000, tree_inference=1.0, evidence=fitted)
    assert _tree_evidence(config) == dataclasses.astuple(fitted)
    assert _tree_evidence(config._replace(tree_evidence=neutral)) == (1.0,) * 7
    for view in choice_views(Rules(players=2), 4, seed=17, base_steps=12):
        plain = search_root(view, 7, config._replace(tree_inference=0.0))
        apart = search_root(view, 7, config._replace(tree_evidence=neutral))
        assert (apart.best, apart.visits) == (plain.best, plain.visits)


@needs_core
def test_the_debug_figures_say_how_far_the_weights_thin_the_deals() -> None:
    config = CONFIG._replace(iterations=6_000, tree_inference=1.0)
    neutral = config._replace(evidence=Evidence(*([1.0] * 7)))
    thinned = 0
    for view in choice_views(Rules(players=2), 4, seed=5, base_steps=8):
        root = search_root(view, 3, config, debug=True)
        assert root.visits == search_root(view, 3, config).visits  # figures change nothing
        rows = root.info["debug"]["tree_weights"]
        by_depth = {int(depth): (share, mean) for depth, _, share, mean in rows}
        assert by_depth[1] == (pytest.approx(1.0), pytest.approx(1.0))  # no reply above
        for share, mean in by_depth.values():
            assert 0 < share <= 1 + 1e-9 and 0 < mean <= 1 + 1e-9
        thinned += any(mean < 0.99 for _, mean in by_depth.values())
        for _, _, share, mean in search_root(view, 3, neutral, debug=True).info["debug"][
            "tree_weights"
        ]:
            assert (share, mean) == (pytest.approx(1.0), pytest.approx(1.0))
        plain = search_root(view, 3, config._replace(tree_inference=0.0), debug=True)
        assert plain.info["debug"]["tree_weights"] is None
    assert thinned >= 3
