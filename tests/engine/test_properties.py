"""Property-based tests of the referee (GameState) over random tables and games.

Each test draws a table (every option), a deal (a seed, or for some tests any
explicit starting position) and a seeded play policy, and plays a whole game,
checking the rules at every step.  strategies.py holds the reference model.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kozyr.engine.actions import Action, Kind
from kozyr.engine.cards import CARD_RANK, CARD_SUIT, cards_of, deck_mask, mask_of, parse_card
from kozyr.engine.deal import Deal
from kozyr.engine.record import GameRecord, deal_from_json, deal_to_json
from kozyr.engine.rules import Rules
from kozyr.engine.state import GameState, IllegalAction
from kozyr.engine.view import view_of

from .strategies import (
    ATTACK,
    DEFEND_K,
    OVER,
    PASS,
    SHOW,
    STYLES,
    TAKE,
    THROW,
    THROW_K,
    TRANSFER,
    Policy,
    Snap,
    all_cards,
    cap,
    compare,
    examples,
    full_snapshot,
    game_st,
    play,
    ranks_of,
    ref_initial,
    ref_legal,
    ref_step,
    rules_st,
    seeds,
    snap,
    styles,
    table_mask,
    team_of,
)

GAME = settings(max_examples=examples(60), deadline=None)
MAX_ACTIONS = 20_000


def table_and_places(s: GameState) -> list[tuple[str, int]]:
    """Where every card is: one mask per place."""
    places = [(f"hand {i}", h) for i, h in enumerate(s.hands)]
    stock = 0
    for c in s.stock:
        stock |= 1 << c
    places.append(("stock", stock))
    places.append(("table", table_mask(s.att, s.dfn)))
    places.append(("discard", s.discard))
    return places


def assert_conserved(rules: Rules, s: GameState, context: str) -> None:
    """Every card of the deck is in exactly one place; nothing else exists."""
    assert all(h >= 0 for h in s.hands), context
    assert len(set(s.stock)) == len(s.stock), f"a card is twice in the stock: {context}"
    table = [c for c in s.att + s.dfn if c >= 0]
    assert len(set(table)) == len(table), f"a card is twice on the table: {context}"
    assert len(s.att) == len(s.dfn), context
    seen = 0
    for name, m in table_and_places(s):
        assert m & seen == 0, f"{name} holds a card that is also elsewhere: {context}"
        seen |= m
    assert seen == deck_mask(rules.deck), f"cards lost or invented: {context}"
    total = sum(h.bit_count() for h in s.hands) + len(s.stock) + len(table)
    assert total + s.discard.bit_count() == rules.deck, context


class Invariants:
    """Rule invariants checked after every action (property 8 of the brief)."""

    def __init__(self, rules: Rules, state: GameState) -> None:
        self.rules = rules
        self.defence_start = state.hands[state.defender].bit_count()
        self.check_state(state, "initial")

    def check_state(self, s: GameState, ctx: str) -> None:
        rules = self.rules
        assert_conserved(rules, s, ctx)
        for seat in range(s.n):
            assert s.known[seat] & ~s.hands[seat] == 0, f"known card not in hand: {ctx}"
        if s.phase == OVER:
            return
        if not rules.throw_in_after_take:
            assert not s.taking, f"the round went on after a take: {ctx}"
        c = cap(rules, s.rounds, s.bitos)
        assert len(s.att) <= s.limit <= c <= 6, ctx
        assert s.limit <= self.defence_start, f"limit above the defender's hand: {ctx}"
        assert s.limit == min(c, self.defence_start), ctx
        assert s.defender != s.attacker, ctx
        assert team_of(rules, s.attacker) != team_of(rules, s.defender), f"teammates: {ctx}"
        assert s.attacker not in s.out and s.defender not in s.out, ctx
        legal = s.legal_actions()
        if any(d >= 0 for d in s.dfn):
            assert not [a for a in legal if a.kind in (TRANSFER, SHOW)], f"transfer: {ctx}"
        if s.att and all(d < 0 for d in s.dfn):
            assert len({CARD_RANK[a] for a in s.att}) == 1, f"mixed ranks uncovered: {ctx}"

    def step(self, b: GameState, a: Action, s: GameState) -> None:
        rules = self.rules
        ctx = f"{rules} action {a}"
        seat, kind, cards, _ = a
        if kind in (ATTACK, THROW_K):
            assert team_of(rules, seat) != team_of(rules, b.defender), f"on a teammate: {ctx}"
            assert seat != b.defender, ctx
        if kind == THROW_K:
            assert CARD_RANK[cards.bit_length() - 1] in ranks_of(table_mask(b.att, b.dfn)), ctx
            assert len(b.att) < b.limit, ctx
        if kind in (TRANSFER, SHOW) and s.phase != OVER:
            assert team_of(rules, s.defender) != team_of(rules, seat), f"to a teammate: {ctx}"
            assert not any(d >= 0 for d in b.dfn), ctx
        round_over = s.rounds != b.rounds or s.phase == OVER
        if not round_over:
            assert s.out == b.out, f"someone left mid-round: {ctx}"
            assert s.stock == b.stock, ctx
            if kind in (TRANSFER, SHOW):
                self.defence_start = s.hands[s.defender].bit_count()
        else:
            assert s.rounds == b.rounds + 1, ctx
            assert s.out[: len(b.out)] == b.out, ctx
            for p in s.out[len(b.out) :]:
                assert not s.stock and not s.hands[p], f"left with cards or deck: {ctx}"
            self.check_refill(b, a, s, ctx)
            if s.phase != OVER:
                self.defence_start = s.hands[s.defender].bit_count()
        self.check_state(s, ctx)

    def check_refill(self, b: GameState, a: Action, s: GameState, ctx: str) -> None:
        # A card can only come into a hand from the stock or the table (a pick-up),
        # including the card of the action that ended the round.
        table = table_mask(b.att, b.dfn) | a.cards
        drawn_total = 0
        stock_before = 0
        for c in b.stock:
            stock_before |= 1 << c
        for seat in range(s.n):
            new = s.hands[seat] & ~b.hands[seat]
            drawn = new & stock_before
            drawn_total |= drawn
            if drawn:
                assert s.hands[seat].bit_count() <= 6, f"refilled above 6: {ctx}"
            assert new & ~(stock_before | table) == 0, f"card from nowhere: {ctx}"
        # The stock is drawn from the top (stock[-1]) down.
        k = drawn_total.bit_count()
        assert s.stock == b.stock[: len(b.stock) - k], f"not drawn from the top: {ctx}"
        if b.stock and not s.stock:
            trump = b.stock[0]
            assert trump == s.trump, ctx
            holder = s.trump_holder
            assert holder is not None and s.hands[holder] >> trump & 1, f"trump drawer: {ctx}"
            assert s.known[holder] >> trump & 1, f"trump not public: {ctx}"
        if s.stock:
            active = [p for p in range(s.n) if p not in s.out]
            assert all(s.hands[p].bit_count() >= 6 for p in active), f"short refill: {ctx}"


@given(game_st(), seeds, styles)
@GAME
def test_conservation_and_rule_invariants(game: tuple[Rules, Deal], pseed: int, style: str):
    rules, deal = game
    inv = Invariants(rules, GameState.new(rules, deal))
    play(rules, 0, Policy(pseed, style), on_step=inv.step, deal=deal)


@given(rules_st(), seeds, seeds, st.sampled_from(["uniform", "sample"]))
@settings(max_examples=examples(150), deadline=None)
def test_random_play_terminates(rules: Rules, seed: int, pseed: int, style: str):
    state, actions = play(rules, seed, Policy(pseed, style), max_actions=MAX_ACTIONS)
    assert state.game_over, f"no end after {MAX_ACTIONS} actions"
    assert state.phase == OVER and state.to_move is None and state.legal_actions() == []
    assert state.history_len == len(actions)
    result = state.result
    assert result is not None
    out = state.out
    assert len(set(out)) == len(out), f"out repeats a seat: {out}"
    assert set(out) <= set(range(rules.players))
    holders = [p for p in range(rules.players) if p not in out]
    for p in out:
        assert state.hands[p] == 0, "a seat that is out holds cards"
    assert all(state.hands[p] for p in holders), "a seat still in holds no cards"
    assert not state.stock and not state.att and not state.dfn
    if result.draw:
        assert holders == [] and result.team == () and not result.pogony
        assert result.to_json() == {"draw": True}
    else:
        assert result.durak in holders
        assert state.hands[result.durak]
        if rules.team_count:
            team = team_of(rules, result.durak)
            assert {team_of(rules, p) for p in holders} == {team}
            assert result.team == tuple(
                p for p in range(rules.players) if p % rules.team_count == team
            )
        else:
            assert holders == [result.durak] and result.team == ()
        if result.pogony:
            assert rules.pogony and rules.deck != 24
        assert result.to_json()["durak"] == result.durak
    # Any further action is refused.
    assert state.check(Action(0, TAKE)) == "the game is over"
    with pytest.raises(IllegalAction):
        state.apply(Action(0, PASS))


def candidate_actions(s: GameState, legal: list[Action], rng: random.Random) -> list[Action]:
    """Many actions of every kind and seat, most of them illegal, all in the form
    the JSON notation can express (the contract of check())."""
    n = s.n
    deck = cards_of(deck_mask(s.rules.deck))
    mover = s.to_move if s.to_move is not None else 0
    hand = cards_of(s.hands[mover]) or deck
    table = [c for c in s.att + s.dfn if c >= 0]
    ranks = ranks_of(table_mask(s.att, s.dfn))
    rank_cards = [c for c in deck if CARD_RANK[c] in ranks] or deck
    att_rank = [c for c in deck if s.att and CARD_RANK[c] == CARD_RANK[s.att[0]]] or deck
    trumps = [c for c in deck if CARD_SUIT[c] == s.trump_suit]
    others = [c for p in range(n) if p != mover for c in cards_of(s.hands[p])] or deck
    pools = [hand, hand, hand, deck, table or deck, rank_cards, att_rank, trumps, others]
    seats = [*range(-1, n + 1), mover, mover, mover]

    def mask(pool: list[int], k: int) -> int:
        m = 0
        for c in rng.sample(pool, min(k, len(pool))):
            m |= 1 << c
        return m

    out: list[Action] = []
    for _ in range(30):
        seat = rng.choice(seats)
        kind = rng.choice(list(Kind))
        if kind in (TAKE, PASS):
            out.append(Action(seat, kind))
        elif kind == DEFEND_K:
            target = rng.choice(s.att) if s.att and rng.random() < 0.8 else rng.choice(deck)
            out.append(Action(seat, kind, mask(rng.choice(pools), 1), target))
        elif kind == SHOW:
            out.append(Action(seat, kind, mask(rng.choice(pools), 1)))
        else:
            same_rank = rng.random() < 0.5
            pool = rng.choice(pools)
            if same_rank:
                r = CARD_RANK[rng.choice(pool)]
                pool = [c for c in pool if CARD_RANK[c] == r]
            out.append(Action(seat, kind, mask(pool, rng.choice([1, 1, 2, 3, 4]))))
    for a in rng.sample(legal, min(6, len(legal))):
        out.append(a._replace(seat=rng.choice(seats)))
        if a.kind == DEFEND_K:
            out.append(a._replace(target=rng.choice(deck)))
        elif a.cards:
            out.append(a._replace(cards=a.cards | mask(rng.choice(pools), 1)))
            if a.kind in (ATTACK, TRANSFER, THROW_K):
                out.append(a._replace(kind=rng.choice([ATTACK, TRANSFER, THROW_K])))
        else:
            out.append(a._replace(kind=TAKE if a.kind == PASS else PASS))
    return out


@given(rules_st(), seeds, seeds, styles)
@settings(max_examples=examples(30), deadline=None)
def test_check_accepts_exactly_the_legal_actions(rules: Rules, seed: int, pseed: int, style: str):
    rng = random.Random(pseed ^ 0x5EED)
    policy = Policy(pseed, style)
    state = GameState.from_seed(rules, seed)
    steps = 0
    while not state.game_over and steps < 600:
        legal = state.legal_actions()
        assert legal, "a player to move has no legal action"
        assert len(set(legal)) == len(legal), f"duplicates in {legal}"
        assert all(a.seat == state.to_move for a in legal)
        before = full_snapshot(state)
        for a in legal:
            assert state.check(a) is None, f"{a} is listed legal but check() says no"
            c = state.copy()
            c.apply(a)
            assert c.history_len == state.history_len + 1
        assert full_snapshot(state) == before, "playing on a copy changed the original"
        legal_set = set(legal)
        for i, a in enumerate(candidate_actions(state, legal, rng)):
            why = state.check(a)
            if a in legal_set:
                assert why is None, f"legal {a} refused: {why}"
                continue
            assert isinstance(why, str) and why.strip(), f"{a} accepted but not legal"
            if i % 4 == 0:
                with pytest.raises(IllegalAction) as exc:
                    state.apply(a)
                assert str(exc.value) == why
                assert full_snapshot(state) == before, f"refused {a} changed the state"
        state.apply(policy.choose(state, legal))
        steps += 1


@given(rules_st(), seeds, seeds, st.lists(st.floats(0, 1, exclude_max=True), min_size=1))
@settings(max_examples=examples(60), deadline=None)
def test_sample_action_matches_legal_actions(rules: Rules, seed: int, pseed: int, us):
    rng = random.Random(pseed)
    state = GameState.from_seed(rules, seed)
    us = [*us, 0.0, math.nextafter(1.0, 0.0)]
    while not state.game_over:
        legal = state.legal_actions()
        for u in [*us, rng.random()]:
            assert state.sample_action(u) == legal[int(u * len(legal))], (u, legal)
        state.apply(state.sample_action(rng.random()))


@given(rules_st(), seeds, seeds)
@settings(max_examples=examples(30), deadline=None)
def test_random_playout_is_sample_action_with_the_same_rng(rules: Rules, seed: int, pseed: int):
    a = GameState.from_seed(rules, seed)
    b = a.copy()
    result = a.random_playout(random.Random(pseed))
    rng = random.Random(pseed)
    while not b.game_over:
        b.apply(b.sample_action(rng.random()))
    assert a.to_json() == b.to_json()
    assert result == b.result and a.history_len == b.history_len


@given(game_st(), seeds, styles)
@settings(max_examples=examples(100), deadline=None)
def test_engine_matches_the_reference_model(game: tuple[Rules, Deal], pseed: int, style: str):
    """The first round, every legal-move list and every transition, against
    ref_initial/ref_legal/ref_step (an independent reading of the rules), one
    step at a time, from seeded deals and from arbitrary explicit positions."""
    rules, deal = game
    policy = Policy(pseed, style)
    check_against_model(rules, deal, lambda state, legal: policy.choose(state, legal))


def check_against_model(
    rules: Rules,
    deal: Deal,
    choose: Callable[[GameState, list[Action]], Action],
    limit: int = 3000,
) -> GameState:
    """Play ``deal`` with ``choose`` (at most ``limit`` actions), checking the legal
    moves and every transition against the reference model; the final state."""
    state = GameState.new(rules, deal)
    expected = ref_initial(rules, deal)
    compare(rules, expected, snap(state), f"initial state of {deal}")
    steps = 0
    while not state.game_over and steps < limit:
        before: Snap = snap(state)
        before.history = expected.history  # the model's own memory of the game
        legal = state.legal_actions()
        expected_legal = ref_legal(rules, before)
        assert set(legal) == expected_legal, (
            f"{rules}\nengine only: {set(legal) - expected_legal}\n"
            f"rules only: {expected_legal - set(legal)}"
        )
        action = choose(state, legal)
        expected = ref_step(rules, before, action)
        state.apply(action)
        compare(rules, expected, snap(state), f"{rules} step {steps} {action}")
        steps += 1
    return state


# --------------------------------------------------------------------- records
@given(game_st(explicit=0.4), seeds, styles, st.booleans())
@settings(max_examples=examples(40), deadline=None)
def test_record_round_trip(game: tuple[Rules, Deal], pseed: int, style: str, explicit: bool):
    rules, deal = game
    if explicit:  # the same deal written out card by card
        deal = Deal(deal.hands, deal.deck, deal.trump, deal.discard, deal.first_attacker,
                    deal.previous_durak)  # fmt: skip
    final, actions = play(rules, 0, Policy(pseed, style), max_actions=2000, deal=deal)
    record = GameRecord(rules, deal)
    for a in actions:
        record.append(a)
    text = record.dumps(final.result.to_json() if final.result else None)
    data = json.loads(text)
    assert ("seed" in data["deal"]) == (deal.seed is not None)
    assert deal_from_json(rules, deal_to_json(deal)) == deal
    loaded = GameRecord.loads(text)
    assert loaded.rules == rules and loaded.deal == deal
    replay = loaded.replay()
    assert replay.ok and replay.error_index is None, replay.error
    assert replay.state.to_json() == final.to_json()
    assert replay.state.legal_actions() == final.legal_actions()
    # Every action survives its JSON notation.
    assert [Action.from_json(a.to_json()) for a in actions] == actions


@given(rules_st(), seeds, seeds)
@settings(max_examples=examples(20), deadline=None)
def test_record_replay_stops_at_the_first_illegal_action(rules: Rules, seed: int, pseed: int):
    _, actions = play(rules, seed, Policy(pseed), max_actions=40)
    record = GameRecord(rules, Deal.from_seed(rules, seed))
    cut = random.Random(pseed).randrange(len(actions))
    for a in actions[:cut]:
        record.append(a)
    bad = actions[cut]._replace(seat=(actions[cut].seat + 1) % rules.players)
    record.append(bad)
    for a in actions[cut + 1 :]:
        record.append(a)
    replay = record.replay()
    assert not replay.ok and replay.error_index == cut and replay.error
    expected = GameState.from_seed(rules, seed)
    for a in actions[:cut]:
        expected.apply(a)
    assert replay.state.to_json() == expected.to_json()


@given(rules_st(), seeds)
@settings(max_examples=examples(60), deadline=None)
def test_seeded_deals_are_deterministic(rules: Rules, seed: int):
    a, b = Deal.from_seed(rules, seed), Deal.from_seed(rules, seed)
    assert a == b and a.seed == seed
    assert GameState.from_seed(rules, seed).to_json() == GameState.new(rules, b).to_json()
    # Different seeds usually differ (a collision is astronomically unlikely).
    others = {Deal.from_seed(rules, seed + k + 1) for k in range(5)}
    assert a not in others and len(others) == 5
    a.validate(rules)


def test_the_policies_reach_every_kind_of_action():
    """The biased policies reach transfers, shown trumps and long pick-ups, and
    every style finishes its games (guards the strength of the tests above)."""
    kinds: dict[str, set[int]] = {}
    for style in STYLES:
        kinds[style] = set()
        for seed in range(30):
            rules = Rules(players=3 + seed % 3, variant="perevodnoy", transfer_show_trump=True)
            state, actions = play(rules, seed, Policy(seed, style), max_actions=MAX_ACTIONS)
            assert state.game_over
            kinds[style] |= {a.kind for a in actions}
    honest = set(Kind) - {Kind.ACCUSE}  # accusations exist only at cheating tables
    assert kinds["uniform"] == kinds["sample"] == kinds["transferrer"] == honest


# ------------------------------------------------- the worked examples of the docs
def act(text: str) -> Action:
    """``"1 defend 8C 7S"`` -> the action (seat, type, cards..., target last for defend)."""
    seat, kind, *cards = text.split()
    data: dict[str, object] = {"seat": int(seat), "type": kind}
    if kind == "defend":
        data["card"], data["target"] = cards
    elif kind == "show_trump":
        data["card"] = cards[0]
    elif cards:
        data["cards"] = cards
    return Action.from_json(data)


def hand(s: GameState, seat: int) -> list[str]:
    return s.to_json()["hands"][seat]


def test_worked_example_throw_in_priority_take_and_refill():
    """docs/rules.md, "Throw-in priority, take, throw-in after the take, refill"."""
    s = GameState.from_seed(Rules(), 1)
    assert [hand(s, p) for p in range(4)] == [
        ["7S", "KS", "6C", "QC", "AC", "AH"],
        ["AS", "8C", "JD", "QD", "6H", "8H"],
        ["6S", "9S", "TS", "KC", "QH", "KH"],
        ["8S", "JS", "QS", "7C", "9D", "7H"],
    ]
    assert s.to_json()["trump"] == "JC" and (s.attacker, s.defender, s.limit) == (0, 1, 6)
    script = [
        ("0 attack 7S", 1),
        ("1 defend 8C 7S", 3),  # seats 0 and 2 hold no 7 or 8: skipped
        ("3 throw 7H", 1),
        ("1 defend 8H 7H", 3),
        ("3 throw 8S", 1),
        ("1 defend AS 8S", 0),  # an ace on the table: seat 0 is asked first
        ("0 throw AH", 1),
        ("1 take", 0),
        ("0 pass", 3),
        ("3 throw 7C", 0),  # the throw cancels seat 0's pass
        ("0 pass", 2),  # the round is over; seat 2 attacks next
    ]
    for i, (text, to_move) in enumerate(script):
        if i == 7:
            assert s.legal_actions() == [act("1 take")]  # nothing beats AH
        s.apply(act(text))
        assert s.to_move == to_move, text
    picked = ["7S", "8S", "AS", "7C", "8C", "7H", "8H", "AH"]
    assert s.to_json()["known"][1] == picked
    assert set(picked) <= set(hand(s, 1))
    assert [len(hand(s, p)) for p in range(4)] == [6, 11, 6, 6]
    assert len(s.stock) == 7
    assert (s.attacker, s.defender, s.phase) == (2, 3, 0)


def test_worked_example_transfer_limited_by_the_new_defender():
    """docs/rules.md, "A transfer limited by the new defender's hand"."""
    rules = Rules(players=2, variant="perevodnoy")
    hands = (mask_of_str("7S 7C AS"), mask_of_str("8S KS 7D 7H"))
    rest = deck_mask(36) & ~(hands[0] | hands[1])
    s = GameState.new(rules, Deal(hands, (), parse("6H"), rest, first_attacker=0))
    s.apply(act("0 attack 7S"))
    legal = s.legal_actions()
    assert act("1 transfer 7D") in legal and act("1 transfer 7D 7H") not in legal
    assert s.check(act("1 transfer 7D 7H")) == (
        "seat 0 holds too few cards: the table may hold at most 2 attack card(s) after a transfer"
    )
    s.apply(act("1 transfer 7D"))
    assert (s.defender, s.limit, s.attacker) == (0, 2, 1)
    assert act("0 transfer 7C") in s.legal_actions()
    s.apply(act("0 transfer 7C"))
    assert (s.defender, s.limit) == (1, 3)
    assert act("1 transfer 7H") not in s.legal_actions()
    assert s.check(act("1 transfer 7H")) is not None
    s.apply(act("1 defend 8S 7S"))
    assert not [a for a in s.legal_actions() if a.kind == TRANSFER]
    assert "no transfer once a card has been covered" in str(s.check(act("1 transfer 7H")))


def test_worked_example_show_trump_transfer_and_a_full_table():
    """docs/rules.md, "Transfer, show-trump transfer and a full table" (seed 9)."""
    rules = Rules(variant="perevodnoy", transfer_show_trump=True)
    s = GameState.from_seed(rules, 9)
    assert [hand(s, p) for p in range(4)] == [
        ["QS", "7C", "TC", "7D", "6H", "8H"],
        ["9S", "JS", "JC", "KC", "9D", "QH"],
        ["6S", "7S", "6C", "8C", "8D", "9H"],
        ["QC", "6D", "TD", "7H", "KH", "AH"],
    ]
    script = [
        ("2 attack 7S", 3, 3),
        ("3 transfer 7H", 0, 0),
        ("0 show_trump 7C", 1, 1),
        ("1 defend 9S 7S", 1, 1),
        ("1 defend QH 7H", 0, 1),
        ("0 throw 7D", 1, 1),
        ("1 defend 9D 7D", 0, 1),
        ("0 pass", 2, 1),
        ("2 throw 9H", 1, 1),
        ("1 take", 0, 1),
        ("0 throw QS", 0, 1),
        ("0 pass", 3, 1),
        ("3 throw QC", 2, 3),  # six attack cards: the round ends at once
    ]
    for text, to_move, defender in script:
        s.apply(act(text))
        assert (s.to_move, s.defender) == (to_move, defender), text
        if text.startswith("0 show_trump"):
            assert hand(s, 0).count("7C") == 1 and s.known[0] == 1 << parse("7C")
    assert [len(hand(s, p)) for p in range(4)] == [6, 12, 6, 6]
    assert len(s.stock) == 6 and s.attacker == 2 and s.phase == 0
    view = view_of(s, 0).to_json()
    assert view == {
        "seat": 0,
        "hand": ["7C", "TC", "JD", "6H", "8H", "TH"],
        "hand_counts": [6, 12, 6, 6],
        "known": [["7C"], ["7S", "9S", "QS", "QC", "7D", "9D", "7H", "9H", "QH"], [], []],
        "deck": 6,
        "trump": "9C",
        "trump_holder": None,
        "table": [],
        "discard": 0,
        "discarded": [],
        "attacker": 2,
        "defender": 3,
        "round_attacker": 2,
        "to_move": 2,
        "phase": "lead",
        "limit": 6,
        "taking": False,
        "out": [],
        "result": None,
    }


def parse(text: str) -> int:
    return parse_card(text)


def mask_of_str(text: str) -> int:
    return mask_of(parse_card(t) for t in text.split())


# ---------------------------------------------- actions built in Python, not JSON
def positions(n: int = 40) -> list[GameState]:
    """Positions of every phase from a few random perevodnoy games."""
    out = []
    for seed in range(4):
        s = GameState.from_seed(Rules(players=3, variant="perevodnoy"), seed)
        rng = random.Random(seed)
        while not s.game_over and len(out) < n * (seed + 1):
            out.append(s.copy())
            s.apply(s.sample_action(rng.random()))
    return out


def test_check_rejects_malformed_masks_and_targets():
    for s in positions():
        seat = s.to_move
        assert seat is not None
        for a in (
            Action(seat, Kind.ATTACK, -1),
            Action(seat, Kind.THROW, 1 << 52),
            Action(seat, Kind.TRANSFER, -(1 << 5)),
            Action(seat, Kind.DEFEND, s.hands[seat] & -s.hands[seat], -1),
            Action(seat, Kind.DEFEND, s.hands[seat] & -s.hands[seat], 52),
            Action(seat, Kind.DEFEND, s.hands[seat] & -s.hands[seat], 10_000),
        ):
            why = s.check(a)
            assert isinstance(why, str) and why, a


def test_check_rejects_non_canonical_actions():
    """A take or pass with cards, or a target on anything but a defend, is not in
    legal_actions(), so check() refuses it (regression: it used to be accepted)."""
    for s in positions():
        seat = s.to_move
        assert seat is not None
        legal = set(s.legal_actions())
        held = s.hands[seat] & -s.hands[seat]
        candidates = [Action(seat, k, held) for k in (TAKE, PASS)]
        candidates += [a._replace(target=5) for a in legal if a.kind != DEFEND_K]
        for a in candidates:
            assert a not in legal
            why = s.check(a)
            assert isinstance(why, str) and why, a
            with pytest.raises(IllegalAction):
                s.copy().apply(a)


@pytest.mark.parametrize(
    "bad",
    [
        "int kind",
        "int kind, apply",
        "str seat",
        "float seat",
        "str kind",
    ],
)
def test_check_judges_loosely_typed_actions(bad: str):
    """Hand-built tuples with loose field types are judged, never a TypeError
    (regression: the compiled engine raised TypeError from its typed locals, in
    check() and then in apply() for an int kind)."""
    s = GameState.from_seed(Rules(), 1)
    a = s.legal_actions()[0]
    if bad.startswith("int kind"):
        loose = Action(a.seat, int(a.kind), a.cards, a.target)  # type: ignore[arg-type]
        assert loose == a and loose in s.legal_actions()
        assert s.check(loose) is None
        if bad.endswith("apply"):
            s.apply(loose)
            assert s.history_len == 1 and s.att == cards_of(a.cards)
        return
    if bad == "str kind":
        loose = Action(a.seat, "attack", a.cards, a.target)  # type: ignore[arg-type]
    else:
        seat: object = str(a.seat) if bad == "str seat" else float(a.seat)
        loose = Action(seat, a.kind, a.cards, a.target)  # type: ignore[arg-type]
    why = s.check(loose)
    assert isinstance(why, str) and why
    with pytest.raises(IllegalAction):
        s.apply(loose)


# ------------------------------------------------------------- repetition draw
def _deal_910_endgame(rules: Rules) -> Deal:
    """The position where levels 9 and 8 went round forever (arena deal 910)."""
    golden = Path(__file__).parents[1] / "golden" / "repetition_draw_third_time.json"
    data = json.loads(golden.read_text())
    return deal_from_json(rules, data["deal"])


CYCLE = [
    "0 attack 6C",
    "1 transfer 6S",
    "0 defend 9C 6C",
    "0 defend JD 6S",
    "1 throw JS",
    "0 take",
    "1 attack JC",
    "0 transfer JS",
    "1 defend 6D JC",
    "1 defend 7D JS",
    "0 throw 6S",
    "1 take",
]


@pytest.mark.parametrize("on", [True, False])
def test_a_transfer_cycle_is_a_draw_on_the_third_time(on: bool):
    """Two pick-ups bring the position back; the third time is a draw (model and
    engine agree step by step), unless repetition_draw is off."""
    rules = Rules(players=2, deck=36, variant="perevodnoy", repetition_draw=on)
    script = iter([act(t) for t in CYCLE * 2])
    state = check_against_model(
        rules, _deal_910_endgame(rules), lambda s, legal: next(script), limit=24
    )
    assert state.history_len == 24
    if on:
        assert state.result is not None and state.result.repetition and state.result.draw
        assert state.result.to_json() == {"draw": True, "repetition": True}
    else:
        assert not state.game_over and state.to_move == 0


@pytest.mark.parametrize(("variant", "seed"), [("podkidnoy", 2473), ("perevodnoy", 2501)])
def test_random_play_can_end_by_repetition(variant: str, seed: int):
    """Three-player games of random play that come round to a position three times
    (found by search): the model agrees, and without the rule they go on."""
    results = []
    for on in (True, False):
        rules = Rules(players=3, deck=36, variant=variant, repetition_draw=on)  # type: ignore[arg-type]
        rng = random.Random(seed)
        state = check_against_model(
            rules,
            Deal.from_seed(rules, seed),
            lambda s, legal, rng=rng: s.sample_action(rng.random()),
        )
        results.append(state)
    drawn, free = results
    assert drawn.result is not None and drawn.result.repetition
    assert free.result is None or not free.result.repetition
    assert free.history_len > drawn.history_len


def test_a_cycle_with_cards_left_in_the_deck_is_a_draw_too():
    """The same cycle with bigger hands and a card still in the deck: nobody needs
    to draw, so the stock never changes and the position can come round again."""
    rules = Rules(players=2, deck=36, variant="perevodnoy")
    deal = Deal(
        hands=(
            mask_of_str("6C 9C JD 8H KS KC KH QS"),
            mask_of_str("6S JS JC 6D 7D 7H QC QH"),
        ),
        deck=(parse("AD"),),
        trump=parse("AD"),
        discard=all_cards(rules)
        & ~mask_of_str("6C 9C JD 8H KS KC KH QS 6S JS JC 6D 7D 7H QC QH AD"),
        first_attacker=0,
    )
    script = [act(t) for t in CYCLE * 2]

    def choose(s: GameState, legal: list[Action]) -> Action:
        if script and script[0] in legal:
            return script.pop(0)
        return Action.from_json({"seat": s.to_move, "type": "pass"})  # decline a throw-in

    state = check_against_model(rules, deal, choose, limit=40)
    assert not script and len(state.stock) == 1
    assert state.result is not None and state.result.repetition


# --------------------------------------------------------- throw_in_after_take
def with_throw_ins_after_take(rules: Rules, on: bool) -> Rules:
    return Rules.from_dict({**rules.to_dict(), "throw_in_after_take": on})


@given(game_st(), seeds, styles)
@GAME
def test_a_take_without_throw_ins_is_a_take_every_attacker_passes(
    game: tuple[Rules, Deal], pseed: int, style: str
):
    """Issue 12: with throw_in_after_take off a take ends the round at once, exactly
    as the round ends with the option on once every attacker has passed after the
    take. One game on both tables in lockstep: after each take the table with
    throw-ins passes until its round is over, and then the two states are equal."""
    rules, deal = game
    off = GameState.new(with_throw_ins_after_take(rules, False), deal)
    on = GameState.new(with_throw_ins_after_take(rules, True), deal)
    policy = Policy(pseed, style)
    steps = 0
    while not off.game_over and steps < 3000:
        legal = off.legal_actions()
        assert legal == on.legal_actions()
        action = policy.choose(off, legal)
        rounds = off.rounds
        off.apply(action)
        on.apply(action)
        if action.kind == TAKE:
            assert off.rounds == rounds + 1, "a take without throw-ins ends the round"
            assert not off.taking or off.game_over
            assert not [a for a in off.legal_actions() if a.kind == THROW_K]
            while on.phase == THROW and on.taking:
                seat = on.to_move
                assert seat is not None
                on.apply(Action(seat, PASS))
        assert on.to_json() == off.to_json(), f"{rules} step {steps} {action}"
        assert on.seen == off.seen and on.last_play == off.last_play
        steps += 1
    assert on.game_over == off.game_over and on.result == off.result
