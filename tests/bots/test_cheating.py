"""Bots at cheating tables (rule 13): they catch only real cheats, with their
level's attention; they cheat with their appetite, never once marked; at any
other table the rule-13 wrapper changes nothing."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from kozyr.arena.runner import cheating_counts
from kozyr.bots.cheating import (
    PROFILES,
    CheatingTableBot,
    cheat_candidates,
    honest,
    is_cheat,
    noticed,
)
from kozyr.bots.levels import LEVELS, level_bot
from kozyr.bots.match import play_game
from kozyr.engine.actions import Action, Kind
from kozyr.engine.deal import Deal
from kozyr.engine.rules import Rules
from kozyr.engine.state import LAST_CALL, GameState
from kozyr.engine.view import View, view_of

from .helpers import RULE_SETS, reduced_bot

CHEATING_SETS = [replace(r, cheating=True) for r in RULE_SETS]


def events(rules: Rules, deal: Deal, log: list[Action]) -> list[tuple[str, int, int, int]]:
    state = GameState.new(rules, deal)
    out = []
    for a in log:
        event = state.cheat_event(a)
        if event is not None:
            out.append(event)
        state.do(a)
    return out


@pytest.mark.parametrize("index", range(len(CHEATING_SETS)))
def test_heuristic_levels_catch_only_real_cheats_and_cheat_only_unmarked(index: int) -> None:
    rules = CHEATING_SETS[index]
    totals = {"cheat": 0, "caught": 0, "fair": 0}
    for game in range(6):
        deal = Deal.from_seed(rules, 100 * index + game)
        bots = [level_bot(1 + (game + s) % 4, game * 10 + s) for s in range(rules.players)]
        state = play_game(rules, deal, bots)
        assert state.game_over and state.log is not None
        marked: set[int] = set()
        for verdict, seat, _card, other in events(rules, deal, state.log):
            totals[verdict] += 1
            if verdict == "cheat":
                assert seat not in marked, "a marked bot cheated"
            if verdict == "caught":
                marked.add(other)
                tc = rules.team_count
                assert (seat % tc != other % tc) if tc else seat != other
    assert totals["fair"] == 0, "a bot accused a fair card"
    assert totals["cheat"] > 0


def test_a_search_level_plays_a_cheating_game():
    rules = Rules(players=3, cheating=True)
    deal = Deal.from_seed(rules, 7)
    bots = [reduced_bot(6, 1), level_bot(4, 2), reduced_bot(5, 3)]
    state = play_game(rules, deal, bots)
    assert state.game_over and state.log is not None
    assert all(v != "fair" for v, *_ in events(rules, deal, state.log))


def cheating_views(rules: Rules, seed: int, count: int) -> list[View]:
    rng = random.Random(seed)
    out: list[View] = []
    state = GameState.from_seed(rules, seed)
    while len(out) < count:
        if state.game_over:
            state = GameState.from_seed(rules, rng.randrange(10**6))
            continue
        assert state.to_move is not None  # a game in play has a player to move
        out.append(view_of(state, state.to_move))
        legal = state.legal_actions()
        fair = [a for a in legal if a.kind != Kind.ACCUSE]
        state.do(rng.choice(fair if rng.random() < 0.9 else legal))
    return out


def test_is_cheat_and_cheat_candidates_agree_with_the_referee():
    for rules in (Rules(players=2, cheating=True), Rules(players=4, cheating=True)):
        for view in cheating_views(rules, 3, 300):
            state_cheats = {a for a in view.legal if is_cheat(view, a)}
            assert set(honest(view)) == {
                a for a in view.legal if a.kind != Kind.ACCUSE and a not in state_cheats
            }
            for a in cheat_candidates(view):
                assert a in view.legal and is_cheat(view, a)
            if view.phase != LAST_CALL and view.marked >> view.seat & 1:
                assert not state_cheats


def test_a_marked_seat_gets_no_cheats():
    rules = Rules(players=2, cheating=True)
    for view in cheating_views(rules, 5, 200):
        if view.marked >> view.seat & 1:
            assert not cheat_candidates(view)
            assert all(not is_cheat(view, a) for a in view.legal)


def test_attention_is_one_roll_per_cheat_at_the_level_rate():
    """About ``attention`` of distinct cheats are noticed; the same cheat gives the same answer."""
    rules = Rules(players=2, cheating=True)
    view = cheating_views(rules, 1, 1)[0]
    for level in (1, 4, 10):
        attention = PROFILES[level].attention
        seen = sum(noticed(view, 9, attention, (0, card, 1, *range(10))) for card in range(52))
        seen += sum(noticed(view, 10, attention, (1, card, 1)) for card in range(52))
        assert abs(seen / 104 - attention) < 0.15
        record = (0, 5, 1)
        assert len({noticed(view, 9, attention, record) for _ in range(5)}) == 1
    ladder = [PROFILES[level].attention for level in range(1, 11)]
    assert ladder == sorted(ladder) and ladder[0] < 0.3 and ladder[-1] >= 0.9


def test_the_wrapper_is_invisible_at_an_honest_table():
    rules = Rules(players=3)
    state = GameState.from_seed(rules, 4)
    rng = random.Random(4)
    for _ in range(40):
        if state.game_over:
            break
        assert state.to_move is not None  # a game in play has a player to move
        view = view_of(state, state.to_move)
        for level in (1, 4, 5):
            bot = level_bot(level, 11) if level < 5 else reduced_bot(level, 11)
            assert isinstance(bot, CheatingTableBot)
            assert bot.choose(view) == bot.inner.choose(view)
        state.do(state.sample_action(rng.random()))


def test_cheating_counts_read_a_game():
    """A cheat caught, a fair card accused: the counts per entrant."""
    rules = Rules(players=2, deck=24, cheating=True)
    deal = Deal.from_seed(rules, 2)
    state = GameState.new(rules, deal)
    attacker = state.to_move
    assert attacker is not None
    lead = state.legal_actions()[0]
    state.do(lead)
    defender = state.to_move
    assert defender is not None and defender != attacker
    view = view_of(state, defender)
    cover = next(a for a in state.legal_actions() if a.kind == Kind.DEFEND and is_cheat(view, a))
    state.do(cover)
    fair_card = lead.cards.bit_length() - 1
    card = cover.cards.bit_length() - 1
    state.apply(Action(attacker, Kind.ACCUSE, cover.cards))  # caught
    state.apply(Action(defender, Kind.ACCUSE, 1 << fair_card))  # fair: defender marked
    assert state.marked == (1 << defender)
    assert state.log is not None and card >= 0
    entrant_of = [0, 1] if attacker == 0 else [1, 0]
    counts = cheating_counts(rules, deal, state.log, entrant_of)
    a, d = entrant_of[attacker], entrant_of[defender]
    assert counts[d] == (1, 1, 0, 1)  # cheated, was caught, caught nobody, one false accusation
    assert counts[a] == (0, 0, 1, 0)


def test_levels_have_profiles():
    assert set(PROFILES) == set(LEVELS)
