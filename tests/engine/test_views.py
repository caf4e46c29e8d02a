"""Views: a seat sees its own hand and what has been shown, nothing else; and a
state rebuilt from a view with the true hidden cards is the same state."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings

from kozyr.bots.public import decision_seed
from kozyr.engine.actions import Action
from kozyr.engine.cards import card_str, cards_of, deck_mask
from kozyr.engine.deal import Deal
from kozyr.engine.rules import Rules
from kozyr.engine.state import PHASE_NAMES, GameState
from kozyr.engine.view import View, legal_of, state_from_view, view_json, view_of

from .strategies import (
    OVER,
    Policy,
    examples,
    full_snapshot,
    game_st,
    play,
    rules_st,
    seeds,
    styles,
    table_mask,
)


def stock_mask(s: GameState) -> int:
    m = 0
    for c in s.stock:
        m |= 1 << c
    return m


CARD_NAMES = {card_str(c): c for c in range(52)}


def json_cards(data: Any) -> int:
    """Every card named anywhere in a JSON value; any other string must be a phase."""
    m = 0
    if isinstance(data, dict):
        for v in data.values():
            m |= json_cards(v)
    elif isinstance(data, list):
        for v in data:
            m |= json_cards(v)
    elif isinstance(data, str) and data not in PHASE_NAMES:
        assert data in CARD_NAMES, f"not a card in canonical form: {data!r}"
        m |= 1 << CARD_NAMES[data]
    return m


def view_cards(v: View) -> int:
    """Every card a view mentions: its JSON and its fields."""
    m = json_cards(v.to_json()) | v.hand | v.discard | v.last_play | (1 << v.trump)
    for k in v.known:
        m |= k
    for a, d in v.table:
        m |= 1 << a
        if d >= 0:
            m |= 1 << d
    for act in v.legal + v.history:
        m |= act.cards
        if act.target >= 0:
            m |= 1 << act.target
    return m


class Exposure:
    """Which cards each seat has been shown, replayed from the game's events."""

    def __init__(self, deal: Deal, n: int) -> None:
        # The face-up trump (or the last dealt card when the deal takes the whole
        # deck) is shown to everybody, like any discard the deal starts with.
        self.public = 1 << deal.trump | deal.discard
        self.private = list(deal.hands)
        self.n = n

    def seen(self, seat: int) -> int:
        return self.public | self.private[seat]

    def step(self, b: GameState, a: Action, s: GameState) -> None:
        # Every card played (attack, throw, transfer, cover) or shown goes face up.
        self.public |= a.cards
        stock = stock_mask(b)
        table = table_mask(b.att, b.dfn) | a.cards
        for seat in range(self.n):
            new = s.hands[seat] & ~b.hands[seat]
            assert new & ~(stock | table) == 0, "a card came into a hand from nowhere"
            self.private[seat] |= new & stock  # drawn: seen by the drawer only
            # picked-up cards were on the table, so they are public already


def check_views(s: GameState, exp: Exposure) -> None:
    full = deck_mask(s.rules.deck)
    for seat in range(s.n):
        v = view_of(s, seat)
        seen = exp.seen(seat)
        leaked = view_cards(v) & ~seen
        assert not leaked, f"seat {seat} sees {[card_str(c) for c in cards_of(leaked)]}"
        # ...and it sees all it is entitled to: every card it ever saw is still placed.
        assert v.unseen() == full & ~seen, f"seat {seat}: unseen() is not the unseen cards"
        assert v.hand == s.hands[seat]
        assert v.hand_counts == tuple(h.bit_count() for h in s.hands)
        assert v.deck_count == len(s.stock) and v.discard == s.discard
        assert v.table == tuple(zip(s.att, s.dfn, strict=True))
        # The server's shortcut to the JSON (no View built) says the same, in order.
        assert list(view_json(s, seat).items()) == list(v.to_json().items())
        assert legal_of(s, seat) == v.legal
        if s.rules.cheating:  # accusations (and last-call passes) out of turn
            assert v.legal == tuple(s.legal_actions_for(seat))
        else:
            assert v.legal == (tuple(s.legal_actions()) if s.to_move == seat else ())
        # Cheating tables: marks, fair cards, the last call, who played each card and
        # the cheats (each decided by face-up cards) are public; all zero elsewhere.
        assert (v.marked, v.cleared, v.pending) == (s.marked, s.cleared, s.pending)
        assert v.plays == tuple(s.plays) and v.cheats == tuple(s.cheats)
        assert v.my_turn == (s.to_move == seat)
        assert v.trump_suit == s.trump_suit
        # Every action is played in front of everyone: the history is public.
        assert v.history == tuple(s.log or ())
        for other in range(s.n):
            # A card said to be known in a hand really is in that hand.
            assert v.known[other] & ~s.hands[other] == 0, f"seat {other}'s known cards"
        # The repetition rule's positions hold whole hands: they may be shown only
        # when the seat can place every unseen card (all in one other hand).
        holders = [p for p in range(s.n) if p != seat and s.hands[p] & v.unseen()]
        if v.positions:
            assert v.positions == s.seen and v.deck_count == 0 and len(holders) <= 1
        elif s.seen:
            assert v.deck_count > 0 or len(holders) > 1, f"seat {seat} could be told"


#: Every field of a View, each checked by check_views.  A new field must be
#: reviewed for what it reveals before it is added here.
VIEW_FIELDS = {
    "seat", "rules", "hand", "hand_counts", "known", "table", "deck_count", "discard",
    "trump", "trump_holder", "phase", "attacker", "defender", "round_attacker", "to_move",
    "limit", "taking", "passed", "shown", "out", "result", "rounds", "bitos", "last_play",
    "legal", "positions", "history", "marked", "cleared", "pending", "plays", "cheats",
}  # fmt: skip


def test_view_fields_are_the_reviewed_ones():
    assert set(View.__dataclass_fields__) == VIEW_FIELDS


@given(game_st(), seeds, styles)
@settings(max_examples=examples(40), deadline=None)
def test_views_leak_nothing(game: tuple[Rules, Deal], pseed: int, style: str) -> None:
    rules, deal = game
    exp = Exposure(deal, rules.players)
    check_views(GameState.new(rules, deal), exp)

    def step(b: GameState, a: Action, s: GameState) -> None:
        exp.step(b, a, s)
        check_views(s, exp)

    play(rules, 0, Policy(pseed, style), deal=deal, on_step=step)


def other_assignment(s: GameState, seat: int, rng: random.Random) -> tuple[list[int], list[int]]:
    """The hands and deck (top to bottom) with every card hidden from ``seat``
    reshuffled among the places that hide cards from it."""
    pool: list[int] = []
    for p in range(s.n):
        if p != seat:
            pool += cards_of(s.hands[p] & ~s.known[p])
    stock_hidden = s.stock[1:]  # stock[0] is the face-up trump
    pool += stock_hidden
    rng.shuffle(pool)
    hands = list(s.hands)
    for p in range(s.n):
        if p != seat:
            k = (s.hands[p] & ~s.known[p]).bit_count()
            hands[p] = s.known[p]
            for c in pool[:k]:
                hands[p] |= 1 << c
            del pool[:k]
    assert len(pool) == len(stock_hidden)
    stock = s.stock[:1] + pool
    return hands, list(reversed(stock))


@given(game_st(), seeds, styles)
@settings(max_examples=examples(40), deadline=None)
def test_hidden_cards_do_not_change_a_view(
    game: tuple[Rules, Deal], pseed: int, style: str
) -> None:
    """Two states that differ only in cards hidden from a seat look the same to it."""
    rules, deal = game
    rng = random.Random(pseed)

    def step(_b: GameState, _a: Action, s: GameState) -> None:
        if rng.random() > 0.3:
            return
        seat = rng.randrange(s.n)
        view = view_of(s, seat)
        hands, deck = other_assignment(s, seat, rng)
        other = state_from_view(view, hands, deck)
        assert other.log is None and view_of(other, seat).history == ()
        other.log = list(view.history)  # a rebuilt state keeps no log; give it the same
        assert view_of(other, seat) == view
        assert view_of(other, seat).to_json() == view.to_json()
        if s.to_move == seat:
            assert other.legal_actions() == s.legal_actions()
        # Any other seat's view differs at most in that seat's own hand and moves
        # (and the repetition positions, which hold its hand).
        for p in range(s.n):
            v1, v2 = view_of(s, p), view_of(other, p)
            masked = [replace(v, hand=0, legal=(), positions=()) for v in (v1, v2)]
            assert masked[0] == masked[1]

    play(rules, 0, Policy(pseed, style), deal=deal, on_step=step)


def lockstep(a: GameState, b: GameState, policy: Policy) -> None:
    """Play the same actions on both states to the end; they must stay equal."""
    steps = 0
    while not a.game_over and steps < 3000:
        assert b.legal_actions() == a.legal_actions()
        action = policy.choose(a, a.legal_actions())
        a.apply(action)
        b.apply(action)
        assert b.to_json() == a.to_json()
        steps += 1
    assert b.result == a.result and b.game_over == a.game_over


@given(game_st(), seeds, styles)
@settings(max_examples=examples(60), deadline=None)
def test_state_from_view_with_the_true_cards_is_the_same_state(
    game: tuple[Rules, Deal], pseed: int, style: str
) -> None:
    rules, deal = game
    rng = random.Random(pseed)
    stop = rng.randrange(200)
    s, _ = play(rules, 0, Policy(pseed, style), max_actions=stop, deal=deal)
    seat = rng.randrange(rules.players)
    view = view_of(s, seat)
    rebuilt = state_from_view(view, s.hands, list(reversed(s.stock)))
    assert rebuilt.log is None  # a rebuilt state keeps no history...
    rebuilt.log = list(view.history)  # ...so give it the public one to compare views
    assert rebuilt.seen == view.positions
    if not view.positions:  # the repetition rule's memory is not public here
        rebuilt.seen = s.seen
    assert rebuilt.to_json() == s.to_json()
    assert rebuilt.legal_actions() == s.legal_actions()
    mine, theirs = full_snapshot(rebuilt), full_snapshot(s)
    del mine["history_len"], theirs["history_len"]  # not part of the game
    if s.game_over:
        del mine["order"], theirs["order"]  # the throw-in order of a round that is over
    assert mine == theirs
    for p in range(rules.players):
        assert view_of(rebuilt, p) == view_of(s, p)
    lockstep(s, rebuilt, Policy(pseed + 1, style))


@given(rules_st(), seeds, seeds)
@settings(max_examples=examples(30), deadline=None)
def test_state_from_view_refuses_impossible_guesses(rules: Rules, seed: int, pseed: int) -> None:
    rng = random.Random(pseed)
    s, _ = play(rules, seed, Policy(pseed), max_actions=rng.randrange(1, 60))
    if s.game_over:
        return
    seat = rng.randrange(rules.players)
    view = view_of(s, seat)
    hands, deck = list(s.hands), list(reversed(s.stock))
    other = (seat + 1) % rules.players

    def refused(h: list[int], d: list[int]) -> None:
        with pytest.raises(ValueError) as exc:
            state_from_view(view, h, d)
        assert str(exc.value)

    refused(hands[:-1], deck)  # a hand short
    mine = hands[seat]
    if mine:
        refused([*hands[:seat], mine & (mine - 1), *hands[seat + 1 :]], deck)  # own hand changed
    if deck[:-1]:
        # Move the top card of the deck into a hand: counts no longer fit.
        moved = list(hands)
        moved[other] |= 1 << deck[0]
        refused(moved, deck[1:])
        refused(hands, deck[:-1])  # the face-up trump missing from the bottom
        refused(hands, [*deck[:-1], deck[0]])  # the bottom card is not the trump
        dup = list(hands)
        low = dup[other] & -dup[other]
        if low:
            dup[other] = dup[other] ^ low | 1 << deck[0]
            refused(dup, deck)  # a card in a hand and in the deck
    if s.known[other]:
        # Swap a publicly known card of another seat for a hidden one.
        k = s.known[other] & -s.known[other]
        swap = [
            p for p in range(rules.players) if p not in (seat, other) and s.hands[p] & ~s.known[p]
        ]
        if swap:
            p = swap[0]
            h2 = s.hands[p] & ~s.known[p]
            h2 &= -h2
            moved = list(hands)
            moved[other] = moved[other] ^ k | h2
            moved[p] = moved[p] ^ h2 | k
            refused(moved, deck)


def test_view_of_rejects_a_seat_that_does_not_exist() -> None:
    s = GameState.from_seed(Rules(), 1)
    for seat in (-1, 4, 10):
        with pytest.raises(ValueError, match="no seat"):
            view_of(s, seat)


def test_view_json_has_no_hidden_fields_and_only_the_own_hand():
    rules = Rules(players=3)
    s = GameState.from_seed(rules, 7)
    for seat in range(3):
        data = view_of(s, seat).to_json()
        assert data["seat"] == seat
        assert data["hand"] == [card_str(c) for c in cards_of(s.hands[seat])]
        assert data["hand_counts"] == [6, 6, 6]
        assert data["deck"] == 36 - 18
        assert "deck_cards" not in data and "hands" not in data
        assert data["trump"] == card_str(s.trump)
        assert json_cards(data) & ~(s.hands[seat] | 1 << s.trump) == 0


def test_over_view_has_no_round_fields():
    s = GameState.from_seed(Rules(players=2), 3)
    s.random_playout(random.Random(3))
    data = view_of(s, 0).to_json()
    assert data["phase"] == "over" and data["to_move"] is None
    assert data["attacker"] is None and data["defender"] is None and data["limit"] is None
    assert s.phase == OVER and s.result is not None
    assert data["result"] == s.result.to_json()


# ------------------------------------------------------------ the public history
@given(game_st(), seeds, styles)
@settings(max_examples=examples(20), deadline=None)
def test_history_is_every_action_applied_for_every_seat(
    game: tuple[Rules, Deal], pseed: int, style: str
) -> None:
    rules, deal = game
    start = GameState.new(rules, deal)
    assert start.log == []
    for seat in range(rules.players):
        assert view_of(start, seat).history == ()
    s, actions = play(rules, 0, Policy(pseed, style), deal=deal)
    assert s.log == actions
    for seat in range(rules.players):
        assert view_of(s, seat).history == tuple(actions)


def test_a_copy_keeps_its_own_log():
    s = GameState.from_seed(Rules(players=3), 5)
    rng = random.Random(5)
    for _ in range(10):
        s.do(s.sample_action(rng.random()))
    c = s.copy()
    assert c.log == s.log and c.log is not s.log
    before = list(s.log or ())
    c.do(c.sample_action(rng.random()))
    assert s.log == before and c.log is not None and len(c.log) == len(before) + 1
    s.do(s.sample_action(rng.random()))
    assert c.log[: len(before)] == before
    # A state that keeps no log copies to one that keeps none.
    s.log = None
    assert s.copy().log is None


def test_state_from_view_keeps_no_history():
    s = GameState.from_seed(Rules(), 11)
    rng = random.Random(11)
    for _ in range(15):
        s.do(s.sample_action(rng.random()))
    view = view_of(s, 0)
    assert len(view.history) == 15
    rebuilt = state_from_view(view, s.hands, list(reversed(s.stock)))
    assert rebuilt.log is None
    assert view_of(rebuilt, 0).history == ()
    rebuilt.do(rebuilt.sample_action(rng.random()))  # playing on keeps none: search pays nothing
    assert rebuilt.log is None and rebuilt.copy().log is None


def test_history_is_not_in_the_json_nor_the_decision_seed():
    s = GameState.from_seed(Rules(players=3), 12)
    rng = random.Random(12)
    for _ in range(20):
        s.do(s.sample_action(rng.random()))
    view = view_of(s, 1)
    bare = replace(view, history=())
    assert view.history and view != bare
    assert view.to_json() == bare.to_json()
    assert "history" not in view.to_json()
    for seed in (0, 1, 2**63 - 1):
        assert decision_seed(seed, view) == decision_seed(seed, bare)
