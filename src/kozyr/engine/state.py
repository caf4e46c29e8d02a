"""The omniscient game state: legal moves, validated moves, round bookkeeping.

Only the referee (the server, ``kozyr replay``, tests and a bot's own sampled
deals) ever holds a :class:`GameState`.  Players and bots see a
:class:`~kozyr.engine.view.View`.  docs/rules.md describes every rule this
module implements; the comments here name the rule numbers used there.

The state is built for search: card sets are int bit masks, the table is two
short lists, :meth:`GameState.copy` copies a handful of lists, and move
generation makes no objects beyond the actions it returns.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from math import comb
from typing import Any, Final

from .actions import Action, Kind, fast_action
from .cards import (
    CARD_RANK,
    CARD_SUIT,
    HIGHER_IN_SUIT,
    NUM_CARDS,
    RANK_MASK,
    RANK_SIX,
    SUIT_MASK,
    card_str,
    cards_of,
    cards_str,
)
from .deal import Deal
from .rules import ATTACK_CAP, FIRST_ROUND_CAP, HAND_SIZE, Rules

# Phases: who is to move is a function of the phase.
LEAD: Final = 0
DEFEND: Final = 1
THROW: Final = 2
OVER: Final = 3
#: Cheating tables only (rule 13): the round is over, the cards are still on the
#: table, and every seat that could call one out says so or declines first.
LAST_CALL: Final = 4
PHASE_NAMES: Final = ("lead", "defend", "throw", "over", "last_call")

#: A round-start position for the repetition rule: hands, attacker, attack cap.
Position = tuple[tuple[int, ...], int, int]

#: BEATERS[trump_suit][card]: every card that may cover ``card``.
BEATERS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(HIGHER_IN_SUIT[c] | (SUIT_MASK[t] if CARD_SUIT[c] != t else 0) for c in range(NUM_CARDS))
    for t in range(4)
)

_ATTACK: Final = Kind.ATTACK
_DEFEND: Final = Kind.DEFEND
_THROW: Final = Kind.THROW
_TAKE: Final = Kind.TAKE
_PASS: Final = Kind.PASS
_TRANSFER: Final = Kind.TRANSFER
_SHOW: Final = Kind.SHOW_TRUMP
_ACCUSE: Final = Kind.ACCUSE

#: A play on the table, in ``GameState.plays``: card | seat << 6 | PLAY_COVER for a covering card.
PLAY_SEAT_SHIFT: Final = 6
PLAY_COVER: Final = 1 << 9


def _nth_card(mask: int, i: int) -> int:
    """The bit of the i-th lowest card in ``mask``."""
    for _ in range(i):
        mask &= mask - 1
    return mask & -mask


#: SUBSET_COUNT[k][room]: non-empty subsets of a k-card set with at most ``room`` cards.
SUBSET_COUNT: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(sum(comb(k, j) for j in range(1, min(k, room) + 1)) for room in range(7))
    for k in range(5)
)


_KINDS: Final[tuple[Kind, ...]] = tuple(Kind)


def _well_formed(action: object) -> tuple[int, Kind, int, int] | str:
    """The action's fields with their proper types, or why it is malformed.

    Actions built from JSON are always well formed; this guards the referee
    against hand-built tuples (a bot's or a test's) with wrong field types.
    """
    if not isinstance(action, tuple) or len(action) != 4:
        return "an action is (seat, kind, cards, target)"
    seat, kind, cards, target = action
    for name, value in (("seat", seat), ("kind", kind), ("cards", cards), ("target", target)):
        if not isinstance(value, int) or isinstance(value, bool):
            return f"the action's {name} must be an integer, not {value!r}"
    if not 0 <= kind <= 7:
        return f"unknown action kind {kind}"
    if cards < 0 or cards >> NUM_CARDS:
        return "the cards of an action must be a set of real cards"
    if not -1 <= target < NUM_CARDS:
        return "the target of an action must be a card"
    return seat, _KINDS[kind], cards, target


class IllegalAction(ValueError):
    """A move the rules do not allow here; the state is left unchanged."""


@dataclass(frozen=True, slots=True)
class Result:
    """How a game ended: a durak (with their team, if teams) or a draw."""

    durak: int | None
    team: tuple[int, ...] = ()
    pogony: bool = False
    #: A draw because a position came round a third time (rule 9).
    repetition: bool = False

    @property
    def draw(self) -> bool:
        return self.durak is None

    def to_json(self) -> dict[str, Any]:
        if self.durak is None:
            return {"draw": True, "repetition": True} if self.repetition else {"draw": True}
        out: dict[str, Any] = {"durak": self.durak}
        if self.team:
            out["team"] = list(self.team)
        if self.pogony:
            out["pogony"] = True
        return out


def lead_cheat(cards: int) -> int:
    """The cheat card of a lead (rule 13), -1 for a fair lead or a lead that is
    no cheating lead either.  A cheating lead has two ranks, one of them with a
    single card: that card is the cheat; of two single cards, the higher rank."""
    ranks: dict[int, list[int]] = {}
    for c in cards_of(cards):
        ranks.setdefault(CARD_RANK[c], []).append(c)
    if len(ranks) != 2:
        return -1
    (_, c1), (_, c2) = sorted(ranks.items())
    if len(c2) == 1:
        return c2[0]
    if len(c1) == 1:
        return c1[0]
    return -1


def cheat_card_in(
    kind: int, cards: int, target: int, table_ranks: int, beaters: tuple[int, ...]
) -> int:
    """The card that makes a legal play a cheat (rule 13), or -1: a throw-in of
    a rank not on the table (``table_ranks``, a rank mask), a cover that does not
    beat its target, the odd card of a lead.  Judged from face-up cards only, so
    a view can judge it too (``View.cheat_card``)."""
    if kind == _DEFEND:
        return cards.bit_length() - 1 if not cards & beaters[target] else -1
    if kind == _THROW:
        return cards.bit_length() - 1 if not cards & table_ranks else -1
    if kind == _ATTACK:
        return lead_cheat(cards)
    return -1


def _subsets(mask: int, limit: int) -> list[int]:
    """Non-empty subsets of ``mask`` with at most ``limit`` cards (mask has <= 4 cards)."""
    out = []
    sub = mask
    while sub:
        if sub.bit_count() <= limit:
            out.append(sub)
        sub = (sub - 1) & mask
    out.reverse()
    return out


class GameState:
    """One game of Durak in progress, seen by the referee."""

    __slots__ = (
        "active",
        "att",
        "attacker",
        "beaters",
        "bitos",
        "cheat_cards",
        "cheats",
        "cleared",
        "defender",
        "dfn",
        "discard",
        "hands",
        "history_len",
        "known",
        "last_play",
        "limit",
        "log",
        "marked",
        "n",
        "order",
        "out",
        "passed",
        "pending",
        "phase",
        "plays",
        "result",
        "rounds",
        "rules",
        "seen",
        "shown",
        "starter",
        "stock",
        "table_ranks",
        "taking",
        "team",
        "to_move",
        "trump",
        "trump_holder",
        "trump_suit",
        "uncovered",
    )

    rules: Rules
    n: int
    team: tuple[int, ...]
    hands: list[int]
    known: list[int]
    stock: list[int]
    trump: int
    trump_suit: int
    beaters: tuple[int, ...]
    trump_holder: int | None
    discard: int
    att: list[int]
    dfn: list[int]
    uncovered: int
    table_ranks: int
    phase: int
    to_move: int | None
    attacker: int
    defender: int
    starter: int
    limit: int
    taking: bool
    passed: int
    shown: int
    order: list[int]
    active: int
    out: list[int]
    result: Result | None
    rounds: int
    bitos: int
    last_play: int
    history_len: int
    #: Every action played so far, in order (all of them are public), or None
    #: when not kept: states built by ``state_from_view`` for a search.
    log: list[Action] | None
    #: Round-start positions since the last irreversible round (rule 9).
    seen: tuple[Position, ...]
    # Cheating tables (rule 13); all of it is public.  Elsewhere these stay empty.
    #: Seats caught cheating or that accused a fair card: they play honestly now.
    marked: int
    #: Every card on the table in the order played: card | seat << 6 | PLAY_COVER.
    plays: list[int]
    #: One record per cheat card on the table, oldest first (see ``_snapshot``).
    cheats: list[tuple[Any, ...]]
    #: The cheat cards on the table, and the cards called out and found fair.
    cheat_cards: int
    cleared: int
    #: In the last call: the seats still to decline or accuse.
    pending: int

    # ------------------------------------------------------------------ set-up
    def __init__(self, rules: Rules) -> None:
        """An empty table; use :meth:`new` or :meth:`from_seed` to deal a game."""
        n = self.n = rules.players
        self.rules = rules
        tc = rules.team_count
        self.team = tuple(seat % tc for seat in range(n)) if tc else tuple(range(n))
        self.hands = [0] * n
        self.known = [0] * n
        self.stock = []
        self.trump = self.trump_suit = 0
        self.beaters = BEATERS[0]
        self.trump_holder = None
        self.discard = 0
        self.att, self.dfn = [], []
        self.uncovered = self.table_ranks = 0
        self.passed = self.shown = 0
        self.taking = False
        self.active = (1 << n) - 1
        self.out = []
        self.result = None
        self.rounds = self.bitos = 0
        self.last_play = 0
        self.history_len = 0
        self.log = None
        self.seen = ()
        self.marked = self.cheat_cards = self.cleared = self.pending = 0
        self.plays = []
        self.cheats = []
        self.order = []
        self.phase = OVER
        self.to_move = None
        self.limit = 0
        self.attacker = self.defender = self.starter = 0

    @classmethod
    def new(cls, rules: Rules, deal: Deal) -> GameState:
        """The state right after ``deal``; the first round has begun."""
        deal.validate(rules)
        s = cls(rules)
        s.log = []
        s.hands = list(deal.hands)
        # stock[-1] is the top of the deck, stock[0] the face-up trump.
        s.stock = list(reversed(deal.deck))
        s.trump = deal.trump
        s.trump_suit = CARD_SUIT[deal.trump]
        s.beaters = BEATERS[s.trump_suit]
        if not deal.deck:
            for seat, hand in enumerate(s.hands):
                if hand >> deal.trump & 1:
                    s.trump_holder = seat
                    s.known[seat] |= 1 << deal.trump
        s.discard = deal.discard
        if not s.stock:
            for seat in range(s.n):
                if not s.hands[seat]:
                    s.active &= ~(1 << seat)
                    s.out.append(seat)
            if s._game_over_check(None):
                return s
        s._start_round(s._first_attacker(deal))
        if rules.repetition_draw:
            s.seen = (s._position(),)
        return s

    @classmethod
    def from_seed(cls, rules: Rules, seed: int) -> GameState:
        return cls.new(rules, Deal.from_seed(rules, seed))

    def _first_attacker(self, deal: Deal) -> int:
        """Rule 2 and the series option: who leads the first round."""
        n = self.n
        if deal.first_attacker is not None:
            return deal.first_attacker
        durak = deal.previous_durak
        if durak is not None and self.rules.first_attacker != "lowest_trump":
            # "after_durak": the first opponent clockwise after the durak attacks;
            # "durak_attacked": the nearest opponent on the durak's right attacks.
            step = 1 if self.rules.first_attacker == "after_durak" else -1
            seat = durak
            for _ in range(n):
                seat = (seat + step) % n
                if self.team[seat] != self.team[durak] and self.hands[seat]:
                    return seat
        trumps = SUIT_MASK[self.trump_suit]
        best: tuple[int, int, int] | None = None
        for seat in range(n):
            hand = self.hands[seat] & trumps
            if hand:
                low = (hand & -hand).bit_length() - 1
                if best is None or low < best[0]:
                    best = (low, 0, seat)
        if best is not None:
            return best[2]
        # Fallback: nobody holds a trump.  The lowest card by rank leads; equal
        # ranks are ordered by suit S < C < D < H.
        for seat in range(n):
            for c in cards_of(self.hands[seat]):
                key = (CARD_RANK[c], CARD_SUIT[c], seat)
                if best is None or key < best:
                    best = key
        assert best is not None
        return best[2]

    def copy(self) -> GameState:
        """A cheap independent copy (rules and lookup tables are shared)."""
        s = GameState(self.rules)
        s.hands = self.hands[:]
        s.known = self.known[:]
        s.stock = self.stock[:]
        s.trump, s.trump_suit, s.beaters = self.trump, self.trump_suit, self.beaters
        s.trump_holder, s.discard = self.trump_holder, self.discard
        s.att = self.att[:]
        s.dfn = self.dfn[:]
        s.uncovered, s.table_ranks, s.phase = self.uncovered, self.table_ranks, self.phase
        s.to_move, s.attacker, s.defender = self.to_move, self.attacker, self.defender
        s.starter, s.limit, s.taking = self.starter, self.limit, self.taking
        s.passed, s.shown, s.order = self.passed, self.shown, self.order
        s.active, s.out, s.result = self.active, self.out[:], self.result
        s.rounds, s.bitos, s.last_play = self.rounds, self.bitos, self.last_play
        s.history_len = self.history_len
        log = self.log
        s.log = None if log is None else log[:]
        s.seen = self.seen  # an immutable tuple: safe to share
        if self.rules.cheating:
            s.marked, s.cheat_cards = self.marked, self.cheat_cards
            s.cleared, s.pending = self.cleared, self.pending
            s.plays = self.plays[:]
            s.cheats = self.cheats[:]  # records are tuples: safe to share
        return s

    # ------------------------------------------------------------- seat order
    def _next_active(self, seat: int) -> int:
        """The next seat clockwise after ``seat`` that is still in the game."""
        n, active = self.n, self.active
        s = seat
        for _ in range(n):
            s = s + 1 if s + 1 < n else 0
            if active >> s & 1:
                return s
        return seat

    def _next_opponent(self, seat: int) -> int:
        """The next seat after ``seat`` still in the game and not ``seat``'s teammate."""
        n, active, team = self.n, self.active, self.team
        mine = team[seat]
        s = seat
        for _ in range(n):
            s = s + 1 if s + 1 < n else 0
            if active >> s & 1 and team[s] != mine:
                return s
        return seat

    def _throw_order(self) -> list[int]:
        """Rule 6: main attacker first, then clockwise from the defender's left,
        skipping the defender, its teammates and players who are out."""
        d, n, active, team = self.defender, self.n, self.active, self.team
        dteam = team[d]
        order = [self.attacker]
        s = d
        for _ in range(n - 1):
            s = s + 1 if s + 1 < n else 0
            if s != self.attacker and active >> s & 1 and team[s] != dteam:
                order.append(s)
        if self.rules.throw_in == "neighbours":
            left = self._next_active(d)
            right = d
            for _ in range(n):
                right = right - 1 if right else n - 1
                if active >> right & 1:
                    break
            order = [s for s in order if s in (self.attacker, left, right)]
        return order

    def _cap(self) -> int:
        frc = self.rules.first_round_cap
        if (frc == "first_round" and self.rounds == 0) or (
            frc == "until_first_bito" and self.bitos == 0
        ):
            return FIRST_ROUND_CAP
        return ATTACK_CAP

    # ------------------------------------------------------------ the round
    def _start_round(self, attacker: int) -> None:
        self.attacker = self.starter = attacker
        d = self.defender = self._next_opponent(attacker)
        self.limit = min(self._cap(), self.hands[d].bit_count())  # rule 4: frozen now
        self.taking = False
        self.passed = self.shown = 0
        self.last_play = 0
        self.order = self._throw_order()
        self.phase = LEAD
        self.to_move = attacker

    def _after_cover_or_pass(self) -> None:
        """Rules 6-7: ask the next attacker in priority who can throw, or end the round."""
        if len(self.att) < self.limit:
            rank_cards = self.table_ranks
            passed = self.passed
            hands = self.hands
            # Rule 13: an unmarked player at a cheating table can throw any card.
            free = ~self.marked if self.rules.cheating else 0
            for s in self.order:
                if not passed >> s & 1 and (hands[s] & rank_cards or (free >> s & 1 and hands[s])):
                    self.phase = THROW
                    self.to_move = s
                    return
        self._close_round()

    def _close_round(self) -> None:
        """The round is over: at a cheating table the last call comes first (rule 13)."""
        if self.rules.cheating:
            self.pending = self._may_accuse()
            if self.pending:
                self.phase = LAST_CALL
                self._next_in_last_call()
                return
        self._end_round()

    def _may_accuse(self) -> int:
        """The seats still in the game that may call out some card on the table:
        one that somebody else played and that was not found fair already."""
        may = 0
        cleared = self.cleared
        for p in self.plays:
            if not cleared >> (p & 63) & 1:
                may |= ~(1 << (p >> PLAY_SEAT_SHIFT & 7))
        return may & self.active

    def _next_in_last_call(self) -> None:
        """``to_move`` in the last call: the first pending seat clockwise from the defender."""
        n, pending = self.n, self.pending
        s = self.defender
        for _ in range(n):
            if pending >> s & 1:
                self.to_move = s
                return
            s = s + 1 if s + 1 < n else 0

    def _end_round(self) -> None:
        """Bito or pick-up, refill (rule 8), players out (rule 9), next round."""
        table = 0
        for c in self.att:
            table |= 1 << c
        for c in self.dfn:
            if c >= 0:
                table |= 1 << c
        d = self.defender
        took = self.taking
        if took:
            self.hands[d] |= table
            self.known[d] |= table
        else:
            self.discard |= table
            self.bitos += 1
        self.att = []
        self.dfn = []
        self.uncovered = 0
        self.table_ranks = 0
        if self.rules.cheating:
            self.plays = []
            self.cheats = []
            self.cheat_cards = self.cleared = self.pending = 0
        self.rounds += 1
        # Refill: the original attacker first, then clockwise, the final defender last.
        n, active, hands, stock = self.n, self.active, self.hands, self.stock
        order = []
        s = self.starter
        for _ in range(n):
            if s != d and active >> s & 1:
                order.append(s)
            s = s + 1 if s + 1 < n else 0
        order.append(d)
        left = len(stock)
        if stock:
            for s in order:
                need = HAND_SIZE - hands[s].bit_count()
                while need > 0 and stock:
                    c = stock.pop()
                    hands[s] |= 1 << c
                    need -= 1
                    if not stock:  # the face-up trump, drawn last
                        self.trump_holder = s
                        self.known[s] |= 1 << c
        if not stock:
            for s in order:
                if not hands[s]:
                    self.active &= ~(1 << s)
                    self.out.append(s)
        if self._game_over_check(d):
            return
        # Rule 6: after bito the defender attacks; rule 7: after a pick-up, the next player.
        nxt = d if not took and self.active >> d & 1 else self._next_active(d)
        self._start_round(nxt)
        if self.rules.repetition_draw:
            self._count_position(took and len(stock) == left)

    def _position(self) -> Position:
        """What makes a round start the same as an earlier one when nothing left
        the game in between: every hand, the attacker and the attack cap."""
        return (tuple(self.hands), self.attacker, self._cap())

    def _count_position(self, reversible: bool) -> None:
        """Rule 9: a draw when this round starts as two earlier ones did.

        Only a pick-up without drawing can bring a position back (a bito fills
        the discard and a draw empties the stock for good), so the history
        restarts after any other round.
        """
        pos = self._position()
        if not reversible:
            self.seen = (pos,)
        elif self.seen.count(pos) >= 2:
            self.phase = OVER
            self.to_move = None
            self.result = Result(None, repetition=True)
        else:
            self.seen = (*self.seen, pos)

    def _game_over_check(self, last_defender: int | None) -> bool:
        active = self.active
        if not self.rules.team_count and active & (active - 1):
            return False  # two or more players still hold cards
        teams = {self.team[s] for s in range(self.n) if active >> s & 1}
        if len(teams) > 1:
            return False
        self.phase = OVER
        self.to_move = None
        if not teams:
            self.result = Result(None)
            return True
        holders = [s for s in range(self.n) if active >> s & 1]
        durak = max(holders, key=lambda s: (self.hands[s].bit_count(), -s))
        pogony = (
            self.rules.pogony
            and durak == last_defender
            and self.last_play != 0
            and self.last_play & ~RANK_MASK[RANK_SIX] == 0
        )
        team: tuple[int, ...] = ()
        if self.rules.team_count:
            team = tuple(s for s in range(self.n) if self.team[s] == self.team[durak])
        self.result = Result(durak, team, pogony)
        return True

    # -------------------------------------------------------- move generation
    def _transfer_target(self) -> tuple[int, int]:
        """(next defender, room left on the table after a transfer to them)."""
        nd = self._next_opponent(self.defender)
        room = min(self._cap(), self.hands[nd].bit_count()) - len(self.att)
        return nd, room

    def _can_transfer(self) -> bool:
        return (
            self.rules.variant == "perevodnoy"
            and not self.taking
            and self.uncovered == len(self.att)
        )

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to move (empty when the game is over).

        The order is fixed (and mirrored by :meth:`sample_action`): pass/take
        first, then throws or covers by card, then transfers, then show-trump.
        """
        phase = self.phase
        seat = self.to_move
        if phase == THROW:
            assert seat is not None
            acts = [fast_action(seat, _PASS)]
            cards = self.hands[seat] & self.table_ranks
            while cards:
                low = cards & -cards
                acts.append(fast_action(seat, _THROW, low))
                cards ^= low
            if self.rules.cheating:
                if not self.marked >> seat & 1:  # rule 13: a rank not on the table
                    cards = self.hands[seat] & ~self.table_ranks
                    while cards:
                        low = cards & -cards
                        acts.append(fast_action(seat, _THROW, low))
                        cards ^= low
                self._add_accusations(seat, acts)
            return acts
        if phase == DEFEND:
            assert seat is not None
            hand = self.hands[seat]
            acts = [fast_action(seat, _TAKE)]
            beaters = self.beaters
            dfn = self.dfn
            for i, a in enumerate(self.att):
                if dfn[i] < 0:
                    cover = hand & beaters[a]
                    while cover:
                        low = cover & -cover
                        acts.append(fast_action(seat, _DEFEND, low, a))
                        cover ^= low
            cheating = self.rules.cheating
            if cheating and not self.marked >> seat & 1:  # rule 13: covers that do not beat
                for i, a in enumerate(self.att):
                    if dfn[i] < 0:
                        cover = hand & ~beaters[a]
                        while cover:
                            low = cover & -cover
                            acts.append(fast_action(seat, _DEFEND, low, a))
                            cover ^= low
            if self._can_transfer():
                same, room, show = self._transfer_options(seat)
                for sub in _subsets(same, room):
                    acts.append(fast_action(seat, _TRANSFER, sub))
                if show:
                    acts.append(fast_action(seat, _SHOW, show))
            if cheating:
                self._add_accusations(seat, acts)
            return acts
        if phase == LEAD:
            seat = self.attacker
            hand = self.hands[seat]
            acts = []
            if self.rules.lead_multiple:
                limit = self.limit
                for r in range(13):
                    same = hand & RANK_MASK[r]
                    if same:
                        for sub in _subsets(same, limit):
                            acts.append(fast_action(seat, _ATTACK, sub))
                if self.rules.cheating and limit > 1 and not self.marked >> seat & 1:
                    self._add_cheating_leads(seat, hand, limit, acts)
            else:
                for r in range(13):
                    same = hand & RANK_MASK[r]
                    while same:
                        low = same & -same
                        acts.append(fast_action(seat, _ATTACK, low))
                        same ^= low
            return acts
        if phase == LAST_CALL:
            assert seat is not None
            acts = [fast_action(seat, _PASS)]
            self._add_accusations(seat, acts)
            return acts
        return []

    def _add_cheating_leads(self, seat: int, hand: int, limit: int, acts: list[Action]) -> None:
        """Rule 13: a lead of one rank with one card of another rank alongside.
        Each set once: two single cards are listed under the lower rank."""
        for r in range(13):
            same = hand & RANK_MASK[r]
            if not same:
                continue
            others = hand & ~RANK_MASK[r]
            for sub in _subsets(same, limit - 1):
                single = sub.bit_count() == 1
                rest = others
                while rest:
                    low = rest & -rest
                    rest ^= low
                    if single and CARD_RANK[low.bit_length() - 1] < r:
                        continue
                    acts.append(fast_action(seat, _ATTACK, sub | low))

    def _add_accusations(self, seat: int, acts: list[Action]) -> None:
        """Rule 13: ``seat`` may call out any card on the table (in play order)
        that someone else played and that was not found fair already."""
        if not self.active >> seat & 1:
            return
        cleared = self.cleared
        for p in self.plays:
            c = p & 63
            if p >> PLAY_SEAT_SHIFT & 7 != seat and not cleared >> c & 1:
                acts.append(fast_action(seat, _ACCUSE, 1 << c))

    def legal_actions_for(self, seat: int) -> list[Action]:
        """Every legal action of ``seat``: its turn's actions, or at a cheating
        table the accusations (and in the last call, declining) it may make out
        of turn."""
        if seat == self.to_move:
            return self.legal_actions()
        acts: list[Action] = []
        if self.rules.cheating and self.phase != OVER and 0 <= seat < self.n:
            if self.phase == LAST_CALL and self.pending >> seat & 1:
                acts.append(fast_action(seat, _PASS))
            self._add_accusations(seat, acts)
        return acts

    def _attack_rank(self) -> int:
        """The rank a transfer must match: the lead's, leaving out a cheat led alongside."""
        cheat = self.cheat_cards
        for a in self.att:
            if not cheat >> a & 1:
                return CARD_RANK[a]
        return CARD_RANK[self.att[0]]

    def _transfer_options(self, seat: int) -> tuple[int, int, int]:
        """(cards of the attack rank in hand, room for transferred cards, the
        trump that may be shown or 0) for a defender who may still transfer."""
        hand = self.hands[seat]
        rank = self._attack_rank()
        _, room = self._transfer_target()
        show = 0
        if self.rules.transfer_show_trump and room >= 0 and not self.shown >> seat & 1:
            show = hand & (1 << (self.trump_suit * 13 + rank))
        return hand & RANK_MASK[rank], room, show

    def sample_action(self, u: float) -> Action:
        """``legal_actions()[int(u * len(legal_actions()))]`` without building the list.

        With ``u`` uniform in [0, 1) this is a uniformly random legal action; it
        is what random playouts use.
        """
        phase = self.phase
        seat = self.to_move
        assert seat is not None, "the game is over"
        if self.rules.cheating:  # rare in search: take the plain road
            acts = self.legal_actions()
            return acts[int(u * len(acts))]
        if phase == THROW:
            cards = self.hands[seat] & self.table_ranks
            i = int(u * (cards.bit_count() + 1))
            if i == 0:
                return fast_action(seat, _PASS)
            return fast_action(seat, _THROW, _nth_card(cards, i - 1))
        hand = self.hands[seat]
        if phase == DEFEND:
            beaters = self.beaters
            dfn = self.dfn
            covers = []
            total = 1
            for i, a in enumerate(self.att):
                if dfn[i] < 0:
                    m = hand & beaters[a]
                    if m:
                        covers.append((a, m))
                        total += m.bit_count()
            same = room = show = 0
            if self._can_transfer():
                same, room, show = self._transfer_options(seat)
                n_sub = SUBSET_COUNT[same.bit_count()][max(room, 0)]
                total += n_sub + (1 if show else 0)
            i = int(u * total)
            if i == 0:
                return fast_action(seat, _TAKE)
            i -= 1
            for a, m in covers:
                k = m.bit_count()
                if i < k:
                    return fast_action(seat, _DEFEND, _nth_card(m, i), a)
                i -= k
            subs = _subsets(same, room)
            if i < len(subs):
                return fast_action(seat, _TRANSFER, subs[i])
            return fast_action(seat, _SHOW, show)
        # LEAD
        limit = self.limit if self.rules.lead_multiple else 1
        counts = []
        total = 0
        for r in range(13):
            same = hand & RANK_MASK[r]
            if same:
                k = SUBSET_COUNT[same.bit_count()][limit]
                counts.append((same, k))
                total += k
        i = int(u * total)
        for same, k in counts:
            if i < k:
                if limit == 1:
                    return fast_action(seat, _ATTACK, _nth_card(same, i))
                return fast_action(seat, _ATTACK, _subsets(same, limit)[i])
            i -= k
        raise AssertionError("unreachable: the attacker holds no card")

    # ------------------------------------------------------------- validation
    def check(self, action: object) -> str | None:
        """Why ``action`` is illegal here, or None if it is legal.

        Typed ``object`` on purpose: the referee judges whatever it is given
        (a malformed tuple gets a message, never a crash)."""
        shape = _well_formed(action)
        if isinstance(shape, str):
            return shape
        if self.phase == OVER:
            return "the game is over"
        seat, kind, cards, target = shape
        if not 0 <= seat < self.n:
            return f"there is no seat {seat} at a {self.n}-player table"
        if not self.active >> seat & 1:
            return f"seat {seat} is out of the game"
        if kind == _ACCUSE:
            return self._check_accusation(seat, cards, target)
        if self.phase == LAST_CALL:
            if kind != _PASS or cards or target != -1:
                return "the round is over: call out a card on the table or pass"
            if not self.pending >> seat & 1:
                return f"seat {seat} has no card to call out or has passed already"
            return None
        if seat != self.to_move:
            return f"it is seat {self.to_move}'s turn to {self._expected()}, not seat {seat}'s"
        if kind in (_TAKE, _PASS) and cards:
            return f"'{kind.label}' plays no cards"
        if kind != _DEFEND and target != -1:
            return f"only 'defend' names a target, not '{kind.label}'"
        hand = self.hands[seat]
        if cards & ~hand:
            missing = " ".join(cards_str(cards & ~hand))
            return f"seat {seat} does not hold {missing}"
        phase = self.phase
        if phase == LEAD:
            if kind != _ATTACK:
                return f"seat {seat} must lead an attack now"
            ranks = {CARD_RANK[c] for c in cards_of(cards)}
            if not cards:
                return "an attack needs at least one card"
            k = cards.bit_count()
            if k > 1 and not self.rules.lead_multiple:
                return "leading several cards at once is off at this table"
            if len(ranks) > 1:
                if not self._may_cheat(seat):
                    return "cards led together must all have the same rank"
                if lead_cheat(cards) < 0:
                    return "a cheating lead is cards of one rank and one card of another rank"
            if k > self.limit:
                return f"at most {self.limit} attack card(s) this round"
            return None
        if phase == THROW:
            if kind == _PASS:
                return None
            if kind != _THROW:
                return f"seat {seat} may throw in or pass now"
            if cards.bit_count() != 1:
                return "throw in exactly one card at a time"
            if not cards & self.table_ranks and not self._may_cheat(seat):
                return f"{card_str(cards_of(cards)[0])}: its rank is not on the table"
            return None
        # DEFEND
        if kind == _TAKE:
            return None
        if kind == _DEFEND:
            if cards.bit_count() != 1:
                return "cover with exactly one card"
            if not 0 <= target < NUM_CARDS or target not in self.att:
                what = card_str(target) if 0 <= target < NUM_CARDS else "the target"
                return f"{what} is not an attack card on the table"
            if self.dfn[self.att.index(target)] >= 0:
                return f"{card_str(target)} is already covered"
            if not cards & self.beaters[target] and not self._may_cheat(seat):
                return f"{card_str(cards_of(cards)[0])} does not beat {card_str(target)}"
            return None
        if kind in (_TRANSFER, _SHOW):
            if self.rules.variant != "perevodnoy":
                return "transfers are only allowed in perevodnoy"
            if kind == _SHOW and not self.rules.transfer_show_trump:
                return "transfer by showing a trump is off at this table"
            if self.uncovered != len(self.att):
                return "no transfer once a card has been covered this round"
            rank = self._attack_rank()
            if not cards or cards & ~RANK_MASK[rank]:
                return f"a transfer needs cards of the attack rank ({'23456789TJQKA'[rank]})"
            nd, room = self._transfer_target()
            if kind == _SHOW:
                if cards.bit_count() != 1 or not cards & SUIT_MASK[self.trump_suit]:
                    return "show exactly one trump of the attack rank"
                if self.shown >> seat & 1:
                    return f"seat {seat} has already shown a trump this round"
                if room < 0:
                    return f"seat {nd} holds too few cards to take over this attack"
                return None
            if cards.bit_count() > room:
                return (
                    f"seat {nd} holds too few cards: the table may hold at most "
                    f"{len(self.att) + max(room, 0)} attack card(s) after a transfer"
                )
            return None
        return f"seat {seat} must defend, take{self._transfer_hint()} now"

    def _may_cheat(self, seat: int) -> bool:
        return self.rules.cheating and not self.marked >> seat & 1

    def _check_accusation(self, seat: int, cards: int, target: int) -> str | None:
        if not self.rules.cheating:
            return "accusations exist only at cheating tables"
        if target != -1:
            return "only 'defend' names a target, not 'accuse'"
        if cards.bit_count() != 1:
            return "call out exactly one card"
        c = cards.bit_length() - 1
        for p in self.plays:
            if p & 63 == c:
                if p >> PLAY_SEAT_SHIFT & 7 == seat:
                    return f"seat {seat} played {card_str(c)} itself"
                if self.cleared >> c & 1:
                    return f"{card_str(c)} was called out already and found fair"
                return None
        return f"{card_str(c)} is not on the table"

    def _expected(self) -> str:
        return ("lead an attack", "defend", "throw in or pass", "", "call out a card or pass")[
            self.phase
        ]

    def _transfer_hint(self) -> str:
        return " or transfer" if self.rules.variant == "perevodnoy" else ""

    # -------------------------------------------------------------- applying
    def apply(self, action: object) -> None:
        """Play ``action`` or raise :class:`IllegalAction` leaving the state unchanged."""
        why = self.check(action)
        if why is not None:
            raise IllegalAction(why)
        shape = _well_formed(action)
        assert not isinstance(shape, str)
        seat, kind, cards, target = shape
        self.do(Action(seat, kind, cards, target))

    def do(self, action: Action) -> None:
        """Play a known-legal action (no validation: for search); it goes on
        ``log`` when the state keeps one."""
        seat, kind, cards, target = action
        self.history_len += 1
        log = self.log
        if log is not None:
            log.append(action)
        if kind == _PASS:
            if self.phase == LAST_CALL:
                self._decline(seat)
                return
            self.passed |= 1 << seat
            self._after_cover_or_pass()
            return
        if kind == _TAKE:
            self.taking = True
            if self.rules.throw_in_after_take:
                self._after_cover_or_pass()  # rule 7: throw-ins first, then the pick-up
            else:
                self._close_round()  # no throw-ins after a take: pick up at once
            return
        if kind == _SHOW:
            self.known[seat] |= cards
            self.shown |= 1 << seat
            self._transfer(seat)
            return
        if kind == _ACCUSE:
            self._accuse(seat, cards.bit_length() - 1)
            return
        if self.rules.cheating:
            self._note_play(seat, kind, cards, target)
        self.hands[seat] &= ~cards
        self.known[seat] &= ~cards
        self.passed = 0
        if kind == _DEFEND:
            i = self.att.index(target)
            c = cards.bit_length() - 1
            self.dfn[i] = c
            self.table_ranks |= RANK_MASK[CARD_RANK[c]]
            self.uncovered -= 1
            if not self.uncovered:
                self._after_cover_or_pass()
            return
        self.last_play = cards
        while cards:
            low = cards & -cards
            c = low.bit_length() - 1
            self.att.append(c)
            self.dfn.append(-1)
            self.table_ranks |= RANK_MASK[CARD_RANK[c]]
            cards ^= low
            self.uncovered += 1
        if kind == _THROW and self.taking:  # only with throw_in_after_take (rule 7)
            self._after_cover_or_pass()
            return
        if kind == _TRANSFER:
            self._transfer(seat)
            return
        self.phase = DEFEND
        self.to_move = self.defender

    # ------------------------------------------------------- cheating (rule 13)
    def _note_play(self, seat: int, kind: Kind, cards: int, target: int) -> None:
        """Before a play at a cheating table: remember the round as it stands
        when the play is a cheat, and who put each card on the table."""
        cheat = self._cheat_in(kind, cards, target)
        if cheat >= 0:
            self.cheats.append(
                (len(self.plays), cheat, seat, self.phase, self.to_move, self.attacker,
                 self.defender, self.limit, self.taking, self.passed, self.shown,
                 self.last_play, self.order)
            )  # fmt: skip
            self.cheat_cards |= 1 << cheat
        tag = seat << PLAY_SEAT_SHIFT
        if kind == _DEFEND:
            self.plays.append(cards.bit_length() - 1 | tag | PLAY_COVER)
            return
        while cards:
            low = cards & -cards
            self.plays.append(low.bit_length() - 1 | tag)
            cards ^= low

    def _cheat_in(self, kind: int, cards: int, target: int) -> int:
        return cheat_card_in(kind, cards, target, self.table_ranks, self.beaters)

    def cheat_event(self, action: Action) -> tuple[str, int, int, int] | None:
        """What a legal ``action`` means for rule 13, judged before it is played:
        ``("cheat", seat, card, seat)`` for a cheat, ``("caught", accuser, card,
        cheater)`` for an accusation of a cheat, ``("fair", accuser, card,
        player)`` for an accusation of a fair card; None otherwise.  For
        announcements and the arena's counts."""
        if not self.rules.cheating:
            return None
        seat, kind, cards, target = action
        if kind == _ACCUSE:
            card = cards.bit_length() - 1
            for p in self.plays:
                if p & 63 == card:
                    owner = p >> PLAY_SEAT_SHIFT & 7
                    verdict = "caught" if self.cheat_cards >> card & 1 else "fair"
                    return verdict, seat, card, owner
            return None
        cheat = self._cheat_in(kind, cards, target)
        return ("cheat", seat, cheat, seat) if cheat >= 0 else None

    def _accuse(self, seat: int, card: int) -> None:
        """Rule 13: a cheat caught goes back with everything played after it and
        the cheater is marked; a fair card called out marks the accuser."""
        if self.cheat_cards >> card & 1:
            k = next(i for i, rec in enumerate(self.cheats) if rec[1] == card)
            self._take_back(self.cheats[k])
            del self.cheats[k:]
            cheat_cards = 0
            for rec in self.cheats:
                cheat_cards |= 1 << rec[1]
            self.cheat_cards = cheat_cards
            return
        self.marked |= 1 << seat
        self.cleared |= 1 << card
        if self.phase == THROW:  # the accuser may have lost its only throw-ins
            self._after_cover_or_pass()
        elif self.phase == LAST_CALL:
            self.pending &= self._may_accuse()
            self._decline(-1)

    def _decline(self, seat: int) -> None:
        """``seat`` passes in the last call (-1: nobody); the round ends when nobody is left."""
        if seat >= 0:
            self.pending &= ~(1 << seat)
        if self.pending:
            self._next_in_last_call()
        else:
            self._end_round()

    def _take_back(self, rec: tuple[Any, ...]) -> None:
        """Play resumes from the position just before the cheat ``rec``: the cards
        played since go back to the hands they came from (seen by all, so known)."""
        index, cheater = rec[0], rec[2]
        (self.phase, self.to_move, self.attacker, self.defender, self.limit, self.taking,
         self.passed, self.shown, self.last_play, self.order) = rec[3:]  # fmt: skip
        plays = self.plays
        hands, known, att, dfn = self.hands, self.known, self.att, self.dfn
        for p in plays[index:]:
            c = p & 63
            owner = p >> PLAY_SEAT_SHIFT & 7
            hands[owner] |= 1 << c
            known[owner] |= 1 << c
            if p & PLAY_COVER:
                dfn[dfn.index(c)] = -1
        del plays[index:]
        keep = sum(1 for p in plays if not p & PLAY_COVER)
        del att[keep:]
        del dfn[keep:]
        table = ranks = 0
        for p in plays:
            table |= 1 << (p & 63)
            ranks |= RANK_MASK[CARD_RANK[p & 63]]
        self.table_ranks = ranks
        self.uncovered = dfn.count(-1)
        self.cleared &= table
        self.pending = 0
        self.marked |= 1 << cheater
        if self.phase == THROW:  # the cheater may have no honest throw-in
            self._after_cover_or_pass()

    def _transfer(self, seat: int) -> None:
        """Rule 10: the attack passes on; the transferring player leads throw-ins."""
        nd = self._next_opponent(seat)
        self.attacker = seat
        self.defender = nd
        self.limit = min(self._cap(), self.hands[nd].bit_count())
        self.order = self._throw_order()
        self.phase = DEFEND
        self.to_move = nd

    # ------------------------------------------------------------ conveniences
    @property
    def game_over(self) -> bool:
        return self.phase == OVER

    @property
    def deck_count(self) -> int:
        return len(self.stock)

    def hand_counts(self) -> list[int]:
        return [h.bit_count() for h in self.hands]

    def table_pairs(self) -> list[tuple[int, int]]:
        """(attack card, covering card or -1) in the order they were played."""
        return list(zip(self.att, self.dfn, strict=True))

    def random_playout(self, rng: random.Random) -> Result:
        """Play uniformly random legal actions to the end (benchmarks, tests)."""
        rand = rng.random
        while self.phase != OVER:
            self.do(self.sample_action(rand()))
        assert self.result is not None
        return self.result

    def to_json(self) -> dict[str, Any]:
        """The omniscient state, as ``kozyr replay`` prints it."""
        out = self._plain_json()
        if self.rules.cheating:
            out.update(cheating_json(self.marked, self.cleared, self.pending, self.plays))
            out["cheats"] = cards_str(self.cheat_cards)
        return out

    def _plain_json(self) -> dict[str, Any]:
        return {
            "hands": [cards_str(h) for h in self.hands],
            "deck": len(self.stock),
            "deck_cards": [card_str(c) for c in reversed(self.stock)],
            "trump": card_str(self.trump),
            "trump_holder": self.trump_holder,
            "table": [
                {"attack": card_str(a), "defense": card_str(d) if d >= 0 else None}
                for a, d in zip(self.att, self.dfn, strict=True)
            ],
            "discard": self.discard.bit_count(),
            "discarded": cards_str(self.discard),
            "attacker": self.attacker if self.phase != OVER else None,
            "defender": self.defender if self.phase != OVER else None,
            "round_attacker": self.starter if self.phase != OVER else None,
            "to_move": self.to_move,
            "phase": PHASE_NAMES[self.phase],
            "limit": self.limit if self.phase != OVER else None,
            "taking": self.taking,
            "known": [cards_str(k) for k in self.known],
            "out": list(self.out),
            "result": self.result.to_json() if self.result else None,
        }


def cheating_json(
    marked: int, cleared: int, pending: int, plays: list[int] | tuple[int, ...]
) -> dict[str, Any]:
    """The public fields of a cheating table (rule 13) in a state's or view's JSON:
    marked seats, cards found fair, seats still to answer the last call, and who
    played each card on the table (in play order)."""
    return {
        "marked": [s for s in range(8) if marked >> s & 1],
        "cleared": cards_str(cleared),
        "pending": [s for s in range(8) if pending >> s & 1],
        "plays": [
            {
                "card": card_str(p & 63),
                "seat": p >> PLAY_SEAT_SHIFT & 7,
                "cover": bool(p & PLAY_COVER),
            }
            for p in plays
        ],
    }
