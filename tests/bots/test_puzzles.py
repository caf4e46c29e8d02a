"""The shipped Durak puzzles (issue 27 §5; docs/puzzles.md): every one replays
from its deal; an exact one is an only-move position by the solver, a search
one a 3-player position with hidden cards where a deep search of the player's
view finds one move far better than every other; each plays out as the page
plays it (right, solved, wrong with a losing line or chances, illegal refused)
and the page never gets a card the player could not know."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kozyr.bots import puzzles
from kozyr.bots.endgame import Solver, two_sided
from kozyr.bots.ismcts import refine_actions
from kozyr.bots.puzzles import Puzzle, decode, encode
from kozyr.bots.sampler import Slots
from kozyr.engine.actions import Action, Kind
from kozyr.engine.cards import cards_str
from kozyr.engine.deal import Deal
from kozyr.engine.rules import Rules
from kozyr.engine.state import OVER, GameState
from kozyr.engine.view import view_of

from .helpers import load_script

SHIPPED = puzzles.shipped()
EXACT = [p for p in SHIPPED if p.kind == "exact"]
SEARCH = [p for p in SHIPPED if p.kind == "search"]


def player_moves(p: Puzzle) -> list[Action]:
    return [a for a in map(decode, p.solution) if a.seat == p.seat]


def test_enough_puzzles_spread_over_tables_roles_and_levels() -> None:
    assert len(SHIPPED) >= 500 and len(EXACT) + len(SEARCH) == len(SHIPPED)
    assert len({p.id for p in SHIPPED}) == len(SHIPPED)
    tags = Counter((p.tags["variant"], p.tags["players"]) for p in SHIPPED)
    for table in [("podkidnoy", 2), ("perevodnoy", 2), ("podkidnoy", 3), ("perevodnoy", 3)]:
        assert tags[table] >= 40, tags
    roles = Counter(p.tags["role"] for p in SHIPPED)
    assert roles["attack"] >= 50 and roles["defend"] >= 50, roles
    levels = Counter(p.level for p in SHIPPED)
    assert levels["easy"] and levels["medium"] and levels["hard"] >= 20, levels
    assert any(decode(p.solution[0]).kind == Kind.TRANSFER for p in SHIPPED)


def test_every_exact_puzzle_replays_to_an_open_two_sided_position() -> None:
    for p in EXACT:
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
    check_only_moves(random.Random(3).sample(EXACT, min(60, len(EXACT))))


@pytest.mark.slow
def test_every_first_move_is_the_only_winning_one() -> None:
    check_only_moves(EXACT)


def test_the_only_move_by_fresh_solvers() -> None:
    """A sample, with a fresh solver per action (no table shared between the
    questions, so no answer leans on another's)."""
    for p in random.Random(5).sample(EXACT, min(25, len(EXACT))):
        state = p.position()
        answer = decode(p.solution[0])
        for act in state.legal_actions():
            child = state.copy()
            child.do(act)
            value = Solver(p.seat, puzzles.NODE_BUDGET).value(child, -1.0, 2.0)
            assert value == (1.0 if act == answer else 0.0), (p.id, str(act), value)


def test_playing_the_solution_solves_and_a_wrong_move_loses() -> None:
    check_play(random.Random(27).sample(EXACT, min(12, len(EXACT))))


@pytest.mark.slow
def test_every_puzzle_plays_out() -> None:
    check_play(EXACT)


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
    p = EXACT[0]
    other = 1 - p.seat if p.rules.players == 2 else (p.seat + 1) % 3
    with pytest.raises(puzzles.PuzzleError):
        puzzles.play(p, [Action(other, Kind.TAKE)])
    with pytest.raises(puzzles.PuzzleError):
        puzzles.play(p, [Action(p.seat, Kind.ATTACK, 1 << 51)])
    mine = player_moves(p)
    with pytest.raises(puzzles.PuzzleError):
        puzzles.play(p, [*mine, *mine, *mine])


def test_the_public_puzzle_hides_the_solution() -> None:
    for p in EXACT[:50]:
        data = puzzles.public_json(p)
        assert "solution" not in data and "actions" not in data
        pos = data["position"]
        assert pos["all_known"] is True and pos["to_move"] == p.seat
        assert len(pos["legal"]) == p.alternatives
        assert len(pos["hands"]) == p.rules.players


# ------------------------------------------------------------ search puzzles
def test_search_puzzles_are_three_player_positions_with_hidden_cards() -> None:
    assert len(SEARCH) >= 100
    tags = Counter((p.tags["variant"], p.tags["role"]) for p in SEARCH)
    assert tags[("podkidnoy", "defend")] and tags[("perevodnoy", "defend")], tags
    assert tags[("podkidnoy", "attack")] + tags[("perevodnoy", "attack")] >= 5, tags
    for p in SEARCH:
        state = p.position()
        assert p.rules.players == 3 and all(state.hands), p.id
        assert state.deck_count == 0 and state.to_move == p.seat, p.id
        assert not Slots(view_of(state, p.seat)).determined(), p.id  # some cards are hidden
        legal = state.legal_actions()
        assert sorted(map(encode, legal)) == sorted(a for a, _ in p.chances), p.id
        assert p.alternatives == len(legal) and p.moves == p.critical == 1
        chances = [c for _, c in p.chances]
        assert p.chances[0][0] == p.solution[0] and chances == sorted(chances, reverse=True)
        # Stored rounded to 3 places: the margin holds to within the rounding.
        assert chances[0] - chances[1] >= puzzles.SEARCH_MARGIN - 0.001, p.id


def check_search_again(sample: list[Puzzle], iterations: int, margin: float) -> None:
    """A third seed, never used in mining, must find the same best move."""
    for p in sample:
        state = p.position()
        view = view_of(state, p.seat)
        chances = refine_actions(view, view.legal, iterations, seed=3)
        ranked = sorted(zip(map(encode, view.legal), chances, strict=True), key=lambda ac: -ac[1])
        assert ranked[0][0] == p.solution[0], (p.id, ranked, p.chances)
        assert ranked[0][1] - ranked[1][1] >= margin, (p.id, ranked)


def test_a_new_seed_finds_the_same_best_move() -> None:
    """A sample at a third of the mining budget (all at the full one: slow)."""
    check_search_again(random.Random(1).sample(SEARCH, min(4, len(SEARCH))), 30_000, 0.15)


def test_judging_a_search_puzzle_again_keeps_it_only_while_its_move_stands() -> None:
    """``scripts/mine_puzzles.py --merge ... --rejudge`` (run when the search
    behind the puzzles changes): the mining's two seeds again, with today's
    search; the chances are renewed, and a puzzle whose move is not the only
    one any more is dropped (here: one given the second-best move)."""
    mine = load_script("mine_puzzles")
    p = min(SEARCH, key=lambda q: (q.alternatives, q.id))
    judged = mine.rejudge(p)
    assert judged is not None
    assert (judged.id, judged.solution, judged.actions) == (p.id, p.solution, p.actions)
    chances = [c for _, c in judged.chances]
    assert judged.chances[0][0] == p.solution[0] and chances == sorted(chances, reverse=True)
    assert chances[0] - chances[1] >= puzzles.SEARCH_MARGIN - 0.001
    assert mine.rejudge(replace(p, solution=(p.chances[1][0],))) is None


@pytest.mark.slow
def test_every_search_puzzle_holds_on_a_new_seed() -> None:
    check_search_again(SEARCH, puzzles.SEARCH_BUDGET, 0.15)


CARD = re.compile(r'"([2-9TJQKA][SCDH])"')


def test_a_search_puzzle_never_shows_a_hidden_card() -> None:
    """Neither the page's position nor any answer to a move names a card the
    player could not know (an opponent's card not known to be in its hand)."""
    for p in SEARCH:
        state = p.position()
        hidden = set()
        for s, h in enumerate(state.hands):
            if s != p.seat:
                hidden |= set(cards_str(h & ~state.known[s]))
        data = puzzles.public_json(p)
        assert "solution" not in data and "chances" not in json.dumps(data)
        pos = data["position"]
        assert pos["all_known"] is False and len(pos["legal"]) == p.alternatives
        for s in range(3):
            want = state.hands[s] if s == p.seat else state.hands[s] & state.known[s]
            assert pos["hands"][s] == cards_str(want)
        answers = [puzzles.play(p, [decode(a)]) for a, _ in p.chances]
        for blob in [data, *answers]:
            assert hidden.isdisjoint(CARD.findall(json.dumps(blob))), p.id


def test_a_search_puzzle_is_one_move_answered_with_chances() -> None:
    for p in SEARCH[:: max(1, len(SEARCH) // 12)]:
        best = decode(p.solution[0])
        done = puzzles.play(p, [best])
        assert done["result"] == "solved" and done["chance"] == p.chances[0][1]
        listed = [(Action.from_json(c["action"]), c["chance"]) for c in done["chances"]]
        assert listed == [(decode(a), c) for a, c in p.chances]
        for text, chance in p.chances[1:]:
            out = puzzles.play(p, [decode(text)])
            assert out["result"] == "wrong" and out["line"] == [] and out["durak"] is None
            assert (out["chance"], out["chance_best"]) == (chance, p.chances[0][1])
            assert "chances" not in out  # Try again stays a puzzle
        assert puzzles.play(p, [])["result"] == "start"
        with pytest.raises(puzzles.PuzzleError):
            puzzles.play(p, [best, best])
        other = (p.seat + 1) % 3
        with pytest.raises(puzzles.PuzzleError):
            puzzles.play(p, [Action(other, Kind.TAKE)])


def test_an_exact_puzzle_with_a_player_out_shows_every_hand() -> None:
    """At a 3-player table with one player out every card's place is known."""
    p = next(p for p in EXACT if p.rules.players == 3)
    pos = puzzles.public_json(p)["position"]
    state = p.position()
    assert pos["all_known"] is True
    assert pos["hands"] == [cards_str(h) for h in state.hands]
    assert sum(1 for h in state.hands if h) == 2


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
