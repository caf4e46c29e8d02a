"""The shipped Durak puzzles (issue 27 §5; docs/puzzles.md): every one replays
from its deal, is an exact only-move position by the solver, and plays out as
the page plays it (right, solved, wrong with a losing line, illegal refused)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kozyr.bots import puzzles
from kozyr.bots.endgame import Solver, two_sided
from kozyr.bots.puzzles import Puzzle, decode, encode
from kozyr.engine.actions import Action, Kind
from kozyr.engine.deal import Deal
from kozyr.engine.rules import Rules
from kozyr.engine.state import OVER, GameState

SHIPPED = puzzles.shipped()


def player_moves(p: Puzzle) -> list[Action]:
    return [a for a in map(decode, p.solution) if a.seat == p.seat]


def test_enough_puzzles_spread_over_tables_roles_and_levels() -> None:
    assert len(SHIPPED) >= 500
    assert len({p.id for p in SHIPPED}) == len(SHIPPED)
    tags = Counter((p.tags["variant"], p.tags["players"]) for p in SHIPPED)
    for table in [("podkidnoy", 2), ("perevodnoy", 2), ("podkidnoy", 3), ("perevodnoy", 3)]:
        assert tags[table] >= 40, tags
    roles = Counter(p.tags["role"] for p in SHIPPED)
    assert roles["attack"] >= 50 and roles["defend"] >= 50, roles
    levels = Counter(p.level for p in SHIPPED)
    assert levels["easy"] and levels["medium"] and levels["hard"] >= 20, levels
    assert any(decode(p.solution[0]).kind == Kind.TRANSFER for p in SHIPPED)


def test_every_puzzle_replays_to_an_open_two_sided_position() -> None:
    for p in SHIPPED:
        state = p.position()  # raises on an illegal action
        assert state.phase != OVER and state.to_move == p.seat, p.id
        assert state.deck_count == 0 and two_sided(state), p.id
        assert len(state.legal_actions()) == p.alternatives >= 2, p.id
        assert p.hardness == puzzles.hardness(p.moves, p.critical, p.alternatives)
        assert len(player_moves(p)) == p.moves >= p.critical >= 1


def check_only_moves(sample: list[Puzzle]) -> None:
    for p in sample:
        found = puzzles.only_move(p.position(), p.seat)
        assert found == (decode(p.solution[0]), p.alternatives), p.id


def test_the_first_move_is_the_only_winning_one() -> None:
    """A sample of 60 by the solver as the server asks it (all of them in the
    slow test below: a few minutes)."""
    check_only_moves(random.Random(3).sample(SHIPPED, min(60, len(SHIPPED))))


@pytest.mark.slow
def test_every_first_move_is_the_only_winning_one() -> None:
    check_only_moves(list(SHIPPED))


def test_the_only_move_by_fresh_solvers() -> None:
    """A sample, with a fresh solver per action (no table shared between the
    questions, so no answer leans on another's)."""
    for p in random.Random(5).sample(SHIPPED, min(25, len(SHIPPED))):
        state = p.position()
        answer = decode(p.solution[0])
        for act in state.legal_actions():
            child = state.copy()
            child.do(act)
            value = Solver(p.seat, puzzles.NODE_BUDGET).value(child, -1.0, 2.0)
            assert value == (1.0 if act == answer else 0.0), (p.id, str(act), value)


def test_playing_the_solution_solves_and_a_wrong_move_loses() -> None:
    check_play(random.Random(27).sample(SHIPPED, min(12, len(SHIPPED))))


@pytest.mark.slow
def test_every_puzzle_plays_out() -> None:
    check_play(list(SHIPPED))


def check_play(sample: list[Puzzle]) -> None:
    for p in sample:
        mine = player_moves(p)
        for k in range(1, len(mine)):
            assert puzzles.play(p, mine[:k])["result"] == "right", p.id
        done = puzzles.play(p, mine)
        assert done["result"] == "solved", p.id
        state = p.position()
        wrong = next(a for a in state.legal_actions() if a != mine[0])
        out = puzzles.play(p, [wrong])
        assert out["result"] == "wrong" and out["durak"] == p.seat, p.id
        # The line is legal from the position after the wrong move and ends the game.
        state.do(wrong)
        for a in out["line"]:
            state.apply(Action.from_json(a))
        assert state.phase == OVER and state.result is not None
        assert state.result.durak == p.seat


def test_illegal_and_out_of_turn_moves_are_refused() -> None:
    p = SHIPPED[0]
    other = 1 - p.seat if p.rules.players == 2 else (p.seat + 1) % 3
    with pytest.raises(puzzles.PuzzleError):
        puzzles.play(p, [Action(other, Kind.TAKE)])
    with pytest.raises(puzzles.PuzzleError):
        puzzles.play(p, [Action(p.seat, Kind.ATTACK, 1 << 51)])
    mine = player_moves(p)
    with pytest.raises(puzzles.PuzzleError):
        puzzles.play(p, [*mine, *mine, *mine])


def test_the_public_puzzle_hides_the_solution() -> None:
    for p in SHIPPED[:50]:
        data = puzzles.public_json(p)
        assert "solution" not in data and "actions" not in data
        pos = data["position"]
        assert pos["all_known"] is True and pos["to_move"] == p.seat
        assert len(pos["legal"]) == p.alternatives
        assert len(pos["hands"]) == p.rules.players


def test_the_daily_puzzle_changes_with_the_day_and_is_not_hard() -> None:
    days = [puzzles.daily(d) for d in range(20_000, 20_030)]
    assert len({p.id for p in days}) > 20
    assert all(p.level != "hard" for p in days)
    assert puzzles.daily(20_000) == puzzles.daily(20_000)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from([2, 3]), st.booleans(), st.integers(0, 200))
def test_the_compact_notation_round_trips(seed: int, players: int, pere: bool, steps: int) -> None:
    rules = Rules(players=players, variant="perevodnoy" if pere else "podkidnoy")
    state = GameState.new(rules, Deal.from_seed(rules, seed))
    rng = random.Random(seed)
    for _ in range(steps):
        if state.phase == OVER:
            break
        for act in state.legal_actions():
            assert decode(encode(act)) == act
        state.do(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("text", ["", "A", "0", "0Z", "0A8", "0AZZ", "0D8C", "x0P", "0A8C8"])
def test_bad_compact_actions_are_errors(text: str) -> None:
    with pytest.raises(puzzles.PuzzleError):
        decode(text)
