"""evaluate_actions: a value for every legal action (the analysis of issue 27)."""

from __future__ import annotations

import random

import pytest

from kozyr import core
from kozyr.bots.endgame import Solver, two_sided
from kozyr.bots.ismcts import ActionValue, IsmctsConfig, evaluate_actions, refine_actions
from kozyr.bots.levels import LEVELS
from kozyr.bots.sampler import Slots, sample_state
from kozyr.engine.rules import Rules
from kozyr.engine.state import GameState
from kozyr.engine.view import View, view_of

from .helpers import choice_views, random_position
from .test_views_only import other_worlds

needs_core = pytest.mark.skipif(not core.AVAILABLE, reason="the compiled core is not built")


@needs_core
@pytest.mark.parametrize("rules", [Rules(players=2), Rules(players=3, variant="perevodnoy")])
def test_every_legal_action_gets_a_value_from_the_budget(rules: Rules) -> None:
    for view in choice_views(rules, 3, seed=4):
        got = evaluate_actions(view, 2_000, seed=7)
        assert [v.action for v in got] == list(view.legal)  # every action, the view's order
        assert all(isinstance(v, ActionValue) and 0.0 <= v.chance <= 1.0 for v in got)
        if all(v.visits for v in got):  # searched: the budget is spread over them all
            assert sum(v.visits for v in got) == 2_000
        assert evaluate_actions(view, 2_000, seed=7) == got  # deterministic


@needs_core
def test_a_bigger_budget_looks_further_and_the_seed_matters() -> None:
    view = choice_views(Rules(players=2), 1, seed=11)[0]
    small = evaluate_actions(view, 500, seed=1)
    large = evaluate_actions(view, 5_000, seed=1)
    assert sum(v.visits for v in large) == 10 * sum(v.visits for v in small)
    other = evaluate_actions(view, 500, seed=2)
    assert [v.chance for v in other] != [v.chance for v in small]


@needs_core
def test_only_the_view_is_read() -> None:
    view = choice_views(Rules(players=2), 1, seed=5)[0]
    results = {
        tuple(evaluate_actions(view_of(world, view.seat), 800, seed=3))
        for world in other_worlds(view, 3)
    }
    assert len(results) == 1


def endgame_view() -> View:
    """A two-player view with an empty stock (nothing hidden) and a real choice."""
    rules = Rules(players=2)
    for seed in range(200):
        state = random_position(rules, seed, 200)
        if state.to_move is None or state.stock:
            continue
        view = view_of(state, state.to_move)
        if len(view.legal) > 1 and Slots(view).determined():
            return view
    raise AssertionError("no endgame found")


@needs_core
def test_an_endgame_is_solved_exactly_for_every_action() -> None:
    view = endgame_view()
    got = evaluate_actions(view, 1_000, seed=0)
    state = sample_state(view, random.Random(0))
    assert two_sided(state)
    for value in got:
        assert value.visits == 0
        child: GameState = state.copy()
        child.do(value.action)
        if child.game_over:
            continue
        expected = Solver(view.seat, 10_000_000).value(child, -1.0, 2.0)
        assert value.chance == expected


@needs_core
def test_bad_requests_are_refused() -> None:
    view = choice_views(Rules(players=2), 1, seed=2)[0]
    with pytest.raises(ValueError):
        evaluate_actions(view, len(view.legal) - 1)
    state = GameState.from_seed(Rules(players=2), 1)
    assert state.to_move is not None
    with pytest.raises(ValueError):
        evaluate_actions(view_of(state, 1 - state.to_move), 1_000)


@needs_core
def test_another_configuration_can_be_asked_for() -> None:
    view = choice_views(Rules(players=2), 1, seed=8)[0]
    level5 = LEVELS[5].search
    assert isinstance(level5, IsmctsConfig)
    assert evaluate_actions(view, 600, 1, level5) != evaluate_actions(
        view, 600, 1, level5._replace(exploration=3.0)
    )


@needs_core
def test_root_parallelization_splits_the_budget_over_threads() -> None:
    view = choice_views(Rules(players=2), 1, seed=6)[0]
    two = evaluate_actions(view, 4_000, seed=9, workers=2)
    assert [v.action for v in two] == list(view.legal)
    assert sum(v.visits for v in two) == 4_000
    assert evaluate_actions(view, 4_000, seed=9, workers=2) == two  # deterministic
    assert two != evaluate_actions(view, 4_000, seed=9)  # other searches than one worker's
    with pytest.raises(ValueError):
        evaluate_actions(view, len(view.legal), seed=9, workers=2)


@needs_core
def test_the_judge_searches_as_level_10_without_the_shrink() -> None:
    """The analysis, hints and puzzles judge with level 10's search less the
    shrink, whose chances vary more between seeds (docs/analysis.md, "Stable"),
    and less Smooth UCT, not measured as a judge."""
    level = LEVELS[10].search
    assert isinstance(level, IsmctsConfig) and level.opponent_shrink > 0 and level.smooth > 0
    judge = level._replace(opponent_shrink=0.0, smooth=0.0)
    views = choice_views(Rules(players=2), 4, seed=5)
    judged = [evaluate_actions(view, 3_000, seed=2) for view in views]
    assert judged == [evaluate_actions(view, 3_000, seed=2, config=judge) for view in views]
    as_level = [evaluate_actions(view, 3_000, seed=2, config=level) for view in views]
    assert judged != as_level  # the default is not the level's own search
    view = views[0]
    pair = view.legal[:2]
    assert refine_actions(view, pair, 2_000, seed=2) == refine_actions(
        view, pair, 2_000, seed=2, config=judge
    )
