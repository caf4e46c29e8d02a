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
from kozyr.engine.rules import Rules, Variant
from kozyr.engine.state import GameState, IllegalAction
from kozyr.engine.view import view_of

from .strategies import (
    ACCUSE,
    ATTACK,
    DEFEND_K,
    LAST_CALL,
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
    ref_legal_for,
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


def is_cheat(s: GameState, a: Action) -> bool:
    """Rule 13, read from the table before ``a``: a throw-in of a rank not on the
    table, a cover that does not beat, a lead of two ranks."""
    _, kind, cards, target = a
    if kind == THROW_K:
        return CARD_RANK[cards.bit_length() - 1] not in ranks_of(table_mask(s.att, s.dfn))
    if kind == DEFEND_K:
        c = cards.bit_length() - 1
        if CARD_SUIT[c] == CARD_SUIT[target]:
            return CARD_RANK[c] < CARD_RANK[target]
        return CARD_SUIT[c] != s.trump_suit
    if kind == ATTACK:
        return len(ranks_of(cards)) > 1
    return False


class Invariants:
    """Rule invariants checked after every action (property 8 of the brief)."""

    def __init__(self, rules: Rules, state: GameState) -> None:
        self.rules = rules
        self.defence_start = state.hands[state.defender].bit_count()
        #: Cheating tables: defence_start before the play that put the i-th card
        #: of the round on the table (a caught cheat takes the round back there).
        self.defence_at: dict[int, int] = {}
        self.check_state(state, "initial")

    def check_state(self, s: GameState, ctx: str) -> None:
        rules = self.rules
        assert_conserved(rules, s, ctx)
        for seat in range(s.n):
            assert s.known[seat] & ~s.hands[seat] == 0, f"known card not in hand: {ctx}"
        self.check_cheating(s, ctx)
        if s.phase == OVER:
            return
        if not rules.throw_in_after_take:  # taking: only the last call (rule 13) is left
            assert not s.taking or s.phase == LAST_CALL, f"the round went on after a take: {ctx}"
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
        if s.att and all(d < 0 for d in s.dfn) and not (rules.cheating and s.taking):
            # Rule 13: a cheat led alongside is of another rank than the fair cards
            # (after a take, a throw-in of the cheat's rank is fair).
            fair = [a for a in s.att if not s.cheat_cards >> a & 1]
            assert len({CARD_RANK[a] for a in fair}) == 1, f"mixed ranks uncovered: {ctx}"

    def check_cheating(self, s: GameState, ctx: str) -> None:
        """Rule 13's public fields agree with the table; a marked seat is never
        offered a cheat; nothing of it exists at an honest table."""
        rules = self.rules
        table = table_mask(s.att, s.dfn)
        others = [p for p in range(-1, s.n + 1) if p != s.to_move]
        if not rules.cheating:
            assert (s.marked, s.cleared, s.pending, s.cheat_cards) == (0, 0, 0, 0), ctx
            assert s.plays == [] and s.cheats == [], ctx
            assert all(s.legal_actions_for(p) == [] for p in others), f"out of turn: {ctx}"
            return
        plays = [(p & 63, p >> 6 & 7, bool(p & 512)) for p in s.plays]
        assert [c for c, _, cover in plays if not cover] == s.att, f"plays and att: {ctx}"
        assert sorted(c for c, _, cover in plays if cover) == sorted(d for d in s.dfn if d >= 0)
        for _, who, cover in plays:
            assert 0 <= who < s.n and (not cover or who == s.defender), f"who played: {ctx}"
        assert s.cheat_cards & ~table == 0 and s.cleared & ~table == 0, ctx
        assert s.cheat_cards & s.cleared == 0, f"a cheat found fair: {ctx}"
        assert len(s.cheats) == s.cheat_cards.bit_count(), ctx
        assert s.marked >> s.n == 0, ctx
        assert (s.phase == LAST_CALL) == (s.pending != 0), f"pending: {ctx}"
        if s.phase == LAST_CALL:
            assert s.to_move is not None and s.pending >> s.to_move & 1, ctx
            assert s.pending & ~s.active == 0, ctx
            clockwise = [(s.defender + k) % s.n for k in range(s.n)]
            first = next(p for p in clockwise if s.pending >> p & 1)
            assert s.to_move == first, f"last call asks the first pending seat: {ctx}"
        for p in range(-1, s.n + 1):
            acts = s.legal_actions_for(p) if p != s.to_move else s.legal_actions()
            for a in acts:
                assert a.seat == p, ctx
                if a.kind == ACCUSE:
                    card = a.cards.bit_length() - 1
                    assert table >> card & 1 and not s.cleared >> card & 1, f"{a}: {ctx}"
                    assert (card, p) not in [(c, w) for c, w, _ in plays], f"own card: {ctx}"
                elif p != s.to_move:
                    assert s.phase == LAST_CALL and a.kind == PASS, f"{a} out of turn: {ctx}"
                if 0 <= p < s.n and s.marked >> p & 1:
                    assert not is_cheat(s, a), f"marked seat {p} offered the cheat {a}: {ctx}"
            if not 0 <= p < s.n or not s.active >> p & 1:
                assert acts == [], f"seat {p} is out or no seat: {ctx}"

    def step(self, b: GameState, a: Action, s: GameState) -> None:
        rules = self.rules
        ctx = f"{rules} action {a}"
        seat, kind, _, _ = a
        if kind in (ATTACK, THROW_K):
            assert team_of(rules, seat) != team_of(rules, b.defender), f"on a teammate: {ctx}"
            assert seat != b.defender, ctx
        if is_cheat(b, a):
            assert rules.cheating and not b.marked >> seat & 1, f"a cheat: {ctx}"
        if kind == THROW_K:
            assert len(b.att) < b.limit, ctx
        if kind in (TRANSFER, SHOW) and s.phase != OVER:
            assert team_of(rules, s.defender) != team_of(rules, seat), f"to a teammate: {ctx}"
            assert not any(d >= 0 for d in b.dfn), ctx
        if kind in (ATTACK, THROW_K, DEFEND_K, TRANSFER):
            self.defence_at[len(b.plays)] = self.defence_start
        round_over = s.rounds != b.rounds or s.phase == OVER
        if not round_over:
            assert s.out == b.out, f"someone left mid-round: {ctx}"
            assert s.stock == b.stock, ctx
            if kind in (TRANSFER, SHOW):
                self.defence_start = s.hands[s.defender].bit_count()
            if kind == ACCUSE and len(s.plays) < len(b.plays):  # a cheat caught
                self.defence_start = self.defence_at[len(s.plays)]
        else:
            assert s.rounds == b.rounds + 1, ctx
            assert s.out[: len(b.out)] == b.out, ctx
            for p in s.out[len(b.out) :]:
                assert not s.stock and not s.hands[p], f"left with cards or deck: {ctx}"
            self.check_refill(b, a, s, ctx)
            self.defence_at = {}
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
def test_conservation_and_rule_invariants(game: tuple[Rules, Deal], pseed: int, style: str) -> None:
    rules, deal = game
    inv = Invariants(rules, GameState.new(rules, deal))
    play(rules, 0, Policy(pseed, style), on_step=inv.step, deal=deal)


@given(rules_st(), seeds, seeds, st.sampled_from(["uniform", "sample"]))
@settings(max_examples=examples(150), deadline=None)
def test_random_play_terminates(rules: Rules, seed: int, pseed: int, style: str) -> None:
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
        assert result.team == () and not result.pogony
        if result.repetition:  # rule 9: the seats still holding cards share the draw
            assert rules.repetition_draw and len(holders) >= 2
            assert result.to_json() == {"draw": True, "repetition": True}
        else:
            assert holders == []
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


@given(game_st(cheating=True), seeds, st.sampled_from([0.05, 0.3, 0.7]))
@settings(max_examples=examples(40), deadline=None)
def test_cheating_random_play_with_random_accusations_ends(
    game: tuple[Rules, Deal], pseed: int, rate: float
) -> None:
    """Rule 13: random play in which random seats call out random cards at random
    moments (out of turn too, from legal_actions_for) always ends, within a
    bounded number of actions; after every action every card is in exactly one
    place, known cards are in their hands, marks are never lifted, a marked seat
    is never offered a cheat (Invariants), a caught cheat marks its cheater and
    a fair card called out marks the accuser."""
    rules, deal = game
    rng = random.Random(pseed)
    state = GameState.new(rules, deal)
    inv = Invariants(rules, state)
    steps = 0
    while not state.game_over:
        assert steps < MAX_ACTIONS, f"no end after {MAX_ACTIONS} actions"
        seat = rng.randrange(-1, rules.players + 1) if rng.random() < rate else state.to_move
        assert seat is not None
        acts = state.legal_actions_for(seat) or state.legal_actions()
        action = rng.choice(acts)
        before = state.copy()
        state.apply(action)
        if action.kind == ACCUSE:
            card = action.cards.bit_length() - 1
            owner = next(p >> 6 & 7 for p in before.plays if p & 63 == card)
            if before.cheat_cards >> card & 1:
                assert state.marked == before.marked | 1 << owner, "the cheater is marked"
                assert state.hands[owner] >> card & 1 and state.known[owner] >> card & 1
            else:
                assert state.marked == before.marked | 1 << action.seat, "the accuser is marked"
                if state.rounds == before.rounds:  # else it ended the last call
                    assert state.cleared == before.cleared | 1 << card
                    assert (state.hands, state.att) == (before.hands, before.att)
                    assert (state.dfn, state.plays) == (before.dfn, before.plays)
        assert state.marked & before.marked == before.marked, "a mark was lifted"
        inv.step(before, action, state)
        steps += 1
    assert state.result is not None and state.history_len == steps
    assert not state.plays and not state.cheats and not state.pending and not state.cleared


def candidate_actions(s: GameState, legal: list[Action], rng: random.Random) -> list[Action]:
    """Many actions of every kind and seat, most of them illegal, all in the form
    the JSON notation can express (the contract of check()).  Accusations name
    cards on and off the table, the accuser's own cards on the table and cards
    already found fair; any seat may act out of turn."""
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
    played = [(p & 63, p >> 6 & 7) for p in s.plays]
    cleared = cards_of(s.cleared)

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
        elif kind in (SHOW, ACCUSE):
            out.append(Action(seat, kind, mask(rng.choice(pools), 1)))
        else:
            same_rank = rng.random() < 0.5
            pool = rng.choice(pools)
            if same_rank:
                r = CARD_RANK[rng.choice(pool)]
                pool = [c for c in pool if CARD_RANK[c] == r]
            out.append(Action(seat, kind, mask(pool, rng.choice([1, 1, 2, 3, 4]))))
    # Accusations (rule 13): table cards by anyone, one's own card, a fair card.
    for c in rng.sample(table, min(4, len(table))):
        out.append(Action(rng.choice(seats), ACCUSE, 1 << c))
    for c, who in rng.sample(played, min(2, len(played))):
        out.append(Action(who, ACCUSE, 1 << c))
        out.append(Action(who, ACCUSE, 1 << c, c))  # a target: never on an accusation
        out.append(Action(rng.choice(seats), ACCUSE, 1 << c | 1 << rng.choice(deck)))
    for c in cleared[:2]:
        out.append(Action(rng.choice(seats), ACCUSE, 1 << c))
    for _ in range(2):
        out.append(Action(rng.choice(seats), ACCUSE, 1 << rng.choice(others)))
    # Everything legal for one seat, tried by another seat and reshaped.
    everyone = [a for p in range(n) for a in s.legal_actions_for(p)] if s.rules.cheating else []
    for a in rng.sample(legal, min(6, len(legal))) + rng.sample(everyone, min(4, len(everyone))):
        out.append(a._replace(seat=rng.choice(seats)))
        if a.kind == DEFEND_K:
            out.append(a._replace(target=rng.choice(deck)))
        elif a.cards:
            out.append(a._replace(cards=a.cards | mask(rng.choice(pools), 1)))
            if a.kind in (ATTACK, TRANSFER, THROW_K):
                out.append(a._replace(kind=rng.choice([ATTACK, TRANSFER, THROW_K])))
            if a.kind == ACCUSE:
                out.append(a._replace(kind=rng.choice([PASS, THROW_K, SHOW])))
        else:
            out.append(a._replace(kind=TAKE if a.kind == PASS else PASS))
    return out


@given(rules_st(), seeds, seeds, styles)
@settings(max_examples=examples(30), deadline=None)
def test_check_accepts_exactly_the_legal_actions(
    rules: Rules, seed: int, pseed: int, style: str
) -> None:
    """check() accepts exactly what legal_actions_for(seat) lists, for every seat
    (at honest tables: the seat to move's legal_actions(), nothing for the
    others), and refuses everything else with a reason and no change."""
    rng = random.Random(pseed ^ 0x5EED)
    policy = Policy(pseed, style)
    state = GameState.from_seed(rules, seed)
    steps = 0
    while not state.game_over and steps < 600:
        legal = state.legal_actions()
        assert legal, "a player to move has no legal action"
        assert len(set(legal)) == len(legal), f"duplicates in {legal}"
        assert all(a.seat == state.to_move for a in legal)
        mover = state.to_move
        assert mover is not None
        legal_for = {p: state.legal_actions_for(p) for p in range(-1, rules.players + 1)}
        assert legal_for[mover] == legal
        before = full_snapshot(state)
        for p, acts in legal_for.items():
            assert len(set(acts)) == len(acts), f"duplicates in {acts}"
            if p != mover and not rules.cheating:
                assert acts == [], f"seat {p} may act out of turn at an honest table"
            for a in acts:
                assert a.seat == p
                assert state.check(a) is None, f"{a} is listed legal but check() says no"
                c = state.copy()
                c.apply(a)
                assert c.history_len == state.history_len + 1
        assert full_snapshot(state) == before, "playing on a copy changed the original"
        legal_sets = {p: set(acts) for p, acts in legal_for.items()}
        for i, a in enumerate(candidate_actions(state, legal, rng)):
            why = state.check(a)
            if a in legal_sets.get(a.seat, set()):
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
def test_sample_action_matches_legal_actions(
    rules: Rules, seed: int, pseed: int, us: list[float]
) -> None:
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
def test_random_playout_is_sample_action_with_the_same_rng(
    rules: Rules, seed: int, pseed: int
) -> None:
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
def test_engine_matches_the_reference_model(
    game: tuple[Rules, Deal], pseed: int, style: str
) -> None:
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
    model: list[Snap] | None = None,
) -> GameState:
    """Play ``deal`` with ``choose`` (at most ``limit`` actions), checking the legal
    moves and every transition against the reference model; the final state (and
    the model's final state appended to ``model``, if given).  At cheating tables
    every seat's legal actions (accusations and last-call passes out of turn) are
    compared too, and ``choose`` may play any of them."""
    state = GameState.new(rules, deal)
    expected = ref_initial(rules, deal)
    compare(rules, expected, snap(state), f"initial state of {deal}")
    steps = 0
    while not state.game_over and steps < limit:
        before: Snap = snap(state)
        before.history = expected.history  # the model's own memory of the game
        before.cheat_log = expected.cheat_log
        legal = state.legal_actions()
        expected_legal = ref_legal(rules, before)
        assert set(legal) == expected_legal, (
            f"{rules}\nengine only: {set(legal) - expected_legal}\n"
            f"rules only: {expected_legal - set(legal)}"
        )
        for seat in range(-1, rules.players + 1):
            got = state.legal_actions_for(seat)
            want = ref_legal_for(rules, before, seat)
            assert len(set(got)) == len(got), f"duplicates for seat {seat}: {got}"
            assert set(got) == want, (
                f"{rules} seat {seat}\nengine only: {set(got) - want}\n"
                f"rules only: {want - set(got)}"
            )
        action = choose(state, legal)
        expected = ref_step(rules, before, action)
        state.apply(action)
        compare(rules, expected, snap(state), f"{rules} step {steps} {action}")
        steps += 1
    if model is not None:
        model.append(expected)
    return state


GOLDEN = Path(__file__).parents[1] / "golden"


def cheating_golden_names() -> list[str]:
    out = []
    for path in sorted(GOLDEN.glob("*.expect.json")):
        name = path.name.removesuffix(".expect.json")
        record = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
        if record.get("rules", {}).get("cheating"):
            out.append(name)
    return out


@pytest.mark.parametrize("name", cheating_golden_names())
def test_cheating_golden_records_agree_with_the_model(name: str) -> None:
    """The hand-worked golden records of rule 13 (tests/golden/cheating_*,
    illegal_*) through the reference model, step by step: the model and the
    engine agree on every legal list (every seat's) and transition, and the
    model refuses the action a failing record stops at, as the engine does."""
    text = (GOLDEN / f"{name}.json").read_text(encoding="utf-8")
    expect = json.loads((GOLDEN / f"{name}.expect.json").read_text(encoding="utf-8"))
    record = GameRecord.loads(text)
    actions = [Action.from_json(a) for a in record.actions]
    stop = len(actions) if expect["ok"] else expect["index"]
    script = iter(actions[:stop])
    model: list[Snap] = []
    state = check_against_model(
        record.rules, record.deal, lambda s, legal: next(script), limit=stop, model=model
    )
    assert state.history_len == stop
    if not expect["ok"]:
        bad = actions[stop]
        before = snap(state)
        before.history, before.cheat_log = model[0].history, model[0].cheat_log
        assert bad not in ref_legal_for(record.rules, before, bad.seat)
        assert state.check(bad) is not None


# --------------------------------------------------------------------- records
@given(game_st(explicit=0.4), seeds, styles, st.booleans())
@settings(max_examples=examples(40), deadline=None)
def test_record_round_trip(
    game: tuple[Rules, Deal], pseed: int, style: str, explicit: bool
) -> None:
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
def test_record_replay_stops_at_the_first_illegal_action(
    rules: Rules, seed: int, pseed: int
) -> None:
    _, actions = play(rules, seed, Policy(pseed), max_actions=40)
    record = GameRecord(rules, Deal.from_seed(rules, seed))
    cut = random.Random(pseed).randrange(len(actions))
    for a in actions[:cut]:
        record.append(a)
    expected = GameState.from_seed(rules, seed)
    for a in actions[:cut]:
        expected.apply(a)
    bad = actions[cut]._replace(seat=(actions[cut].seat + 1) % rules.players)
    if expected.check(bad) is None:  # cheating tables: legal out of turn; accuse a hand card
        held = next(h for h in expected.hands if h)
        bad = Action(bad.seat, ACCUSE, held & -held)
    assert expected.check(bad) is not None
    record.append(bad)
    for a in actions[cut + 1 :]:
        record.append(a)
    replay = record.replay()
    assert not replay.ok and replay.error_index == cut and replay.error
    assert replay.state.to_json() == expected.to_json()


@given(rules_st(), seeds)
@settings(max_examples=examples(60), deadline=None)
def test_seeded_deals_are_deterministic(rules: Rules, seed: int) -> None:
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
    hands: list[list[str]] = s.to_json()["hands"]
    return hands[seat]


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
    out: list[GameState] = []
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
def test_check_judges_loosely_typed_actions(bad: str) -> None:
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
def test_a_transfer_cycle_is_a_draw_on_the_third_time(on: bool) -> None:
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
def test_random_play_can_end_by_repetition(variant: Variant, seed: int) -> None:
    """Three-player games of random play that come round to a position three times
    (found by search): the model agrees, and without the rule they go on."""
    results = []
    for on in (True, False):
        rules = Rules(players=3, deck=36, variant=variant, repetition_draw=on)
        rng = random.Random(seed)

        def sample(s: GameState, legal: list[Action], rng: random.Random = rng) -> Action:
            return s.sample_action(rng.random())

        state = check_against_model(rules, Deal.from_seed(rules, seed), sample)
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
) -> None:
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
            if off.phase == LAST_CALL:  # rule 13: the round ends after the last call
                assert rules.cheating and off.rounds == rounds and off.taking
            else:
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
