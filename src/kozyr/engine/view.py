"""A seat's view: its own hand plus what has become public, and nothing else.

This is the observer of the OpenSpiel game/state/observer split.  Bots and
clients only ever receive a :class:`View`; it is built from the omniscient
state by copying public fields and the seat's own hand, so a card that was
never shown to the seat cannot be in it.  Public knowledge is: hand sizes, the
table, the deck count, the discards (every card seen going to the discard),
the face-up trump and who drew it, trumps shown for a transfer, and for each
player the cards known to be in their hand (cards they picked up, until they
play them), and the history: every action played so far.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .actions import Action
from .cards import CARD_RANK, RANK_MASK, card_str, cards_str, deck_mask
from .rules import Rules
from .state import (
    BEATERS,
    OVER,
    PHASE_NAMES,
    GameState,
    Position,
    Result,
    cheat_card_in,
    cheating_json,
)


@dataclass(frozen=True, slots=True)
class View:
    seat: int
    rules: Rules
    hand: int
    hand_counts: tuple[int, ...]
    #: Cards publicly known to be in each seat's hand (for ``seat`` itself: the
    #: cards of its own hand that the others know about).
    known: tuple[int, ...]
    table: tuple[tuple[int, int], ...]
    deck_count: int
    discard: int
    trump: int
    trump_holder: int | None
    phase: int
    attacker: int
    defender: int
    round_attacker: int
    to_move: int | None
    limit: int
    taking: bool
    passed: int
    shown: int
    out: tuple[int, ...]
    result: Result | None
    rounds: int
    bitos: int
    #: The cards of the last attack, throw or transfer (public; decides pogony).
    last_play: int
    legal: tuple[Action, ...]
    #: The repetition rule's memory (rule 9): the positions rounds began in since
    #: the last bito or draw from the stock — given only once the deck is empty
    #: and every hand is known or follows from the others, else ``()``.
    positions: tuple[Position, ...] = ()
    #: Every action played so far, in order: public, since every action is seen
    #: by everyone (``()`` when the state keeps no log, e.g. a bot's sampled deal).
    #: Not part of ``to_json()`` nor of the bots' decision seeds.
    history: tuple[Action, ...] = ()
    # Cheating tables (rule 13), all public; see GameState for their meaning.
    marked: int = 0
    cleared: int = 0
    pending: int = 0
    plays: tuple[int, ...] = ()
    cheats: tuple[tuple[Any, ...], ...] = ()

    @property
    def trump_suit(self) -> int:
        return self.trump // 13

    @property
    def my_turn(self) -> bool:
        return self.to_move == self.seat

    @property
    def table_cards(self) -> int:
        m = 0
        for a, d in self.table:
            m |= 1 << a
            if d >= 0:
                m |= 1 << d
        return m

    @property
    def table_ranks(self) -> int:
        """The ranks on the table, as a mask of every card of those ranks."""
        ranks = 0
        for a, d in self.table:
            ranks |= RANK_MASK[CARD_RANK[a]]
            if d >= 0:
                ranks |= RANK_MASK[CARD_RANK[d]]
        return ranks

    def cheat_card(self, action: Action) -> int:
        """The card that makes ``action`` a cheat here (rule 13), or -1."""
        return cheat_card_in(
            action.kind, action.cards, action.target, self.table_ranks, BEATERS[self.trump_suit]
        )

    def unseen(self) -> int:
        """Cards whose place this seat does not know: in other hands or in the deck
        (the face-up trump, still at the bottom of the deck, is seen)."""
        seen = self.hand | self.table_cards | self.discard | (1 << self.trump)
        for k in self.known:
            seen |= k
        return deck_mask(self.rules.deck) & ~seen

    def to_json(self) -> dict[str, Any]:
        return _json_of(
            self.seat,
            self.hand,
            self.hand_counts,
            self.known,
            self.deck_count,
            self.trump,
            self.trump_holder,
            self.table,
            self.discard,
            self.phase,
            self.attacker,
            self.defender,
            self.round_attacker,
            self.to_move,
            self.limit,
            self.taking,
            self.out,
            self.result,
            self.marked,
            self.cleared,
            self.pending,
            self.plays if self.rules.cheating else None,
        )


def view_json(state: GameState, seat: int) -> dict[str, Any]:
    """``view_of(state, seat).to_json()`` without building the :class:`View`.

    Why: a server sends this JSON after every move and needs nothing else of
    the view; the dataclass of 30 fields was most of the cost (docs/performance.md).
    Both go through :func:`_json_of`, so they cannot drift apart."""
    _check_seat(state, seat)
    return _json_of(
        seat,
        state.hands[seat],
        state.hand_counts(),
        state.known,
        len(state.stock),
        state.trump,
        state.trump_holder,
        zip(state.att, state.dfn, strict=True),
        state.discard,
        state.phase,
        state.attacker,
        state.defender,
        state.starter,
        state.to_move,
        state.limit,
        state.taking,
        state.out,
        state.result,
        state.marked,
        state.cleared,
        state.pending,
        state.plays if state.rules.cheating else None,
    )


def _json_of(
    seat: int,
    hand: int,
    hand_counts: Iterable[int],
    known: Iterable[int],
    deck_count: int,
    trump: int,
    trump_holder: int | None,
    table: Iterable[tuple[int, int]],
    discard: int,
    phase: int,
    attacker: int,
    defender: int,
    round_attacker: int,
    to_move: int | None,
    limit: int,
    taking: bool,
    out: Iterable[int],
    result: Result | None,
    marked: int,
    cleared: int,
    pending: int,
    plays: list[int] | tuple[int, ...] | None,
) -> dict[str, Any]:
    """A seat's view in the record's JSON notation (docs/records.md); ``plays``
    is None unless the table plays the cheating rules (rule 13)."""
    over = phase == OVER
    data = {
        "seat": seat,
        "hand": cards_str(hand),
        "hand_counts": list(hand_counts),
        "known": [cards_str(k) for k in known],
        "deck": deck_count,
        "trump": card_str(trump),
        "trump_holder": trump_holder,
        "table": [
            {"attack": card_str(a), "defense": card_str(d) if d >= 0 else None} for a, d in table
        ],
        "discard": discard.bit_count(),
        "discarded": cards_str(discard),
        "attacker": None if over else attacker,
        "defender": None if over else defender,
        "round_attacker": None if over else round_attacker,
        "to_move": to_move,
        "phase": PHASE_NAMES[phase],
        "limit": None if over else limit,
        "taking": taking,
        "out": list(out),
        "result": result.to_json() if result else None,
    }
    if plays is not None:
        data.update(cheating_json(marked, cleared, pending, plays))
    return data


def view_of(state: GameState, seat: int) -> View:
    """What ``seat`` may know about ``state``."""
    _check_seat(state, seat)
    log = state.log
    cheating = state.rules.cheating
    return View(
        seat=seat,
        rules=state.rules,
        hand=state.hands[seat],
        hand_counts=tuple(h.bit_count() for h in state.hands),
        known=tuple(state.known),
        table=tuple(zip(state.att, state.dfn, strict=True)),
        deck_count=len(state.stock),
        discard=state.discard,
        trump=state.trump,
        trump_holder=state.trump_holder,
        phase=state.phase,
        attacker=state.attacker,
        defender=state.defender,
        round_attacker=state.starter,
        to_move=state.to_move,
        limit=state.limit,
        taking=state.taking,
        passed=state.passed,
        shown=state.shown,
        out=tuple(state.out),
        result=state.result,
        rounds=state.rounds,
        bitos=state.bitos,
        last_play=state.last_play,
        legal=legal_of(state, seat),
        positions=state.seen if _every_hand_follows(state, seat) else (),
        history=() if log is None else tuple(log),
        marked=state.marked,
        cleared=state.cleared,
        pending=state.pending,
        plays=tuple(state.plays) if cheating else (),
        cheats=tuple(state.cheats) if cheating else (),
    )


def _check_seat(state: GameState, seat: int) -> None:
    if not 0 <= seat < state.n:
        raise ValueError(f"there is no seat {seat} at a {state.n}-player table")


def legal_of(state: GameState, seat: int) -> tuple[Action, ...]:
    """What ``seat`` may do now: nothing unless it is to move, except at a
    cheating table, where anyone may call out a cheat (rule 13)."""
    if state.rules.cheating:
        return tuple(state.legal_actions_for(seat))
    return tuple(state.legal_actions()) if state.to_move == seat else ()


def _every_hand_follows(state: GameState, seat: int) -> bool:
    """True when ``seat`` can tell where every card is: the deck is empty and at
    most one other hand holds cards that are not public.

    Then the positions of the repetition rule are public too: since the last
    bito or draw every card that moved did so face up, so each earlier position
    follows from today's hands and the moves everyone saw.
    """
    if state.stock:
        return False
    hidden = 0
    for other in range(state.n):
        if other != seat and state.hands[other] & ~state.known[other]:
            hidden += 1
    return hidden <= 1


def state_from_view(view: View, hands: list[int] | tuple[int, ...], deck: list[int]) -> GameState:
    """A full state that agrees with ``view``, given a guess of every hand and
    of the deck (top to bottom; the face-up trump last).  This is how a bot
    builds the sampled deals ("determinizations") it searches over; checking
    that the guess fits the view keeps a bug from handing a bot impossible deals.
    """
    n = view.rules.players
    if len(hands) != n:
        raise ValueError(f"{len(hands)} hands for {n} seats")
    if hands[view.seat] != view.hand:
        raise ValueError("the guess changes the viewer's own hand")
    for seat in range(n):
        if hands[seat].bit_count() != view.hand_counts[seat]:
            raise ValueError(f"seat {seat} must hold {view.hand_counts[seat]} cards")
        if view.known[seat] & ~hands[seat]:
            raise ValueError(f"seat {seat}'s publicly known cards are missing")
    if len(deck) != view.deck_count or (deck and deck[-1] != view.trump):
        raise ValueError("the deck guess does not fit the deck count and face-up trump")
    everything = view.table_cards | view.discard
    for h in hands:
        if everything & h:
            raise ValueError("a card is placed twice")
        everything |= h
    for c in deck:
        if everything >> c & 1:
            raise ValueError("a card is placed twice")
        everything |= 1 << c
    if everything != deck_mask(view.rules.deck):
        raise ValueError("the guess does not account for every card")
    s = GameState(view.rules)
    s.hands = list(hands)
    s.known = list(view.known)
    s.stock = list(reversed(deck))
    s.trump = view.trump
    s.trump_suit = view.trump // 13
    s.beaters = BEATERS[s.trump_suit]
    s.trump_holder = view.trump_holder
    s.discard = view.discard
    s.att = [a for a, _ in view.table]
    s.dfn = [d for _, d in view.table]
    s.uncovered = sum(1 for d in s.dfn if d < 0)
    ranks = 0
    for c in s.att + s.dfn:
        if c >= 0:
            ranks |= RANK_MASK[CARD_RANK[c]]
    s.table_ranks = ranks
    s.phase = view.phase
    s.to_move = view.to_move
    s.attacker = view.attacker
    s.defender = view.defender
    s.starter = view.round_attacker
    s.limit = view.limit
    s.taking = view.taking
    s.passed = view.passed
    s.shown = view.shown
    s.active = (1 << n) - 1
    for seat in view.out:
        s.active &= ~(1 << seat)
    s.out = list(view.out)
    s.result = view.result
    s.rounds = view.rounds
    s.bitos = view.bitos
    s.last_play = view.last_play
    s.seen = view.positions
    if view.rules.cheating:
        s.marked, s.cleared, s.pending = view.marked, view.cleared, view.pending
        s.plays = list(view.plays)
        s.cheats = list(view.cheats)
        for rec in s.cheats:
            s.cheat_cards |= 1 << rec[1]
    # s.log stays None: a sampled deal keeps no history (search pays nothing).
    if s.phase != OVER:
        s.order = s._throw_order()
    return s
