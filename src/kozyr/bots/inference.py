"""What the opponents' play says about their hands: weights for the deals.

Every action is public, so a view's ``history`` tells how each opponent
played.  A player who took rather than cover a low card probably had no cheap
cover; one who passed during throw-ins probably lacks the table's ranks; one
who covered with a dear card probably had no cheaper one; one who led a high
card probably had no lower plain card.  :func:`card_weights` turns such events
into a weight per seat and card (1: no evidence, below 1: less likely),
which the search's deal sampler multiplies into its odds.

The model is the level-4 player's habits (:mod:`kozyr.bots.heuristics`): it
leads and throws its cheapest plain cards and covers with the cheapest card.
Evidence fades as the player draws new cards (a card drawn later was not in
the hand when the player chose).  Only public facts are used: the history,
the rules and the face-up trump.

To know who drew what and when, the history is replayed on hand *counts*
(a public tracker of the rounds); if the replay does not end at the view's
hand counts and deck size (an unusual deal, e.g. a test's explicit position)
no weights are given and deals stay uniform.
"""

from __future__ import annotations

from dataclasses import dataclass

from kozyr.engine.actions import Kind
from kozyr.engine.cards import CARD_RANK, HIGHER_IN_SUIT, RANK_MASK, SUIT_MASK
from kozyr.engine.rules import HAND_SIZE
from kozyr.engine.state import BEATERS
from kozyr.engine.view import View

from .heuristics import tables

#: Multipliers for a card after one piece of evidence against it.
TOOK_INSTEAD_OF_COVER = 0.4
COVERED_DEARER = 0.45
PASSED_ON_RANK = 0.55
LED_DEARER = 0.6
NO_TRANSFER = 0.5
#: Below this a weight is not lowered further (evidence is soft).
FLOOR = 0.05


@dataclass(frozen=True)
class Evidence:
    """How much one piece of each kind of evidence lowers a card (1.0: the kind
    is ignored).  The defaults model the level-4 player; a search may read a
    stronger player's play with factors measured on that player's games
    (``scripts/inference_calibration.py --by-kind``)."""

    took_instead_of_cover: float = TOOK_INSTEAD_OF_COVER
    covered_dearer: float = COVERED_DEARER  # the cheaper plain covers
    covered_dearer_trump: float = COVERED_DEARER  # the cheaper trumps that cover
    passed_on_rank: float = PASSED_ON_RANK
    led_dearer: float = LED_DEARER
    led_trump: float = LED_DEARER * LED_DEARER
    no_transfer: float = NO_TRANSFER


#: The level-4 player's habits, the factors every level has used.
LEVEL4_EVIDENCE = Evidence()


class _Tracker:
    """Hand counts, the deck and the round, replayed from public actions."""

    def __init__(self, view: View) -> None:
        rules = view.rules
        self.n = rules.players
        tc = rules.team_count
        self.team = [s % tc for s in range(self.n)] if tc else list(range(self.n))
        self.counts = [HAND_SIZE] * self.n
        self.deck = rules.deck - HAND_SIZE * self.n
        self.active = [True] * self.n
        self.table: list[int] = []  # attack cards, in order
        self.covered: set[int] = set()
        self.ranks = 0  # ranks on the table (attack and cover cards)
        self.starter = -1
        self.defender = -1
        self.took = False

    def next_opponent(self, seat: int) -> int:
        s = seat
        for _ in range(self.n):
            s = (s + 1) % self.n
            if self.active[s] and self.team[s] != self.team[seat]:
                return s
        return seat

    def end_round(self) -> list[tuple[int, int, int]]:
        """Close the round; (seat, hand before, hand after) for each draw."""
        d = self.defender
        table_cards = len(self.table) + len(self.covered)
        if self.took:
            self.counts[d] += table_cards
        order = []
        s = self.starter
        for _ in range(self.n):
            if s != d and self.active[s]:
                order.append(s)
            s = (s + 1) % self.n
        order.append(d)
        draws = []
        for s in order:
            need = min(max(HAND_SIZE - self.counts[s], 0), self.deck)
            if need:
                draws.append((s, self.counts[s], self.counts[s] + need))
                self.counts[s] += need
                self.deck -= need
        if not self.deck:
            for s in order:
                if not self.counts[s]:
                    self.active[s] = False
        self.table, self.covered, self.took, self.ranks = [], set(), False, 0
        return draws


def _cheaper(cost: tuple[int, ...], c: int) -> int:
    """The cards that cost less than ``c``."""
    return sum(1 << x for x in range(52) if cost[x] < cost[c])


def card_weights(view: View, evidence: Evidence = LEVEL4_EVIDENCE) -> list[list[float]] | None:
    """Per seat and card, how much likelier the card is in that hand than a
    uniform deal says (1.0: no evidence).  None without usable history."""
    history = view.history
    if not history:
        return None
    rules = view.rules
    n = rules.players
    t = tables(view.trump_suit, rules.deck)
    trumps = SUIT_MASK[view.trump_suit]
    cost = t.cost
    w = [[1.0] * 52 for _ in range(n)]
    tr = _Tracker(view)
    round_open = False

    def lower(seat: int, cards: int, factor: float) -> None:
        if seat == view.seat or factor == 1.0:
            return
        row = w[seat]
        while cards:
            low = cards & -cards
            c = low.bit_length() - 1
            row[c] = max(row[c] * factor, FLOOR)
            cards ^= low

    def fade(draws: list[tuple[int, int, int]]) -> None:
        """New cards dilute the evidence about the old hand."""
        for s, before, after in draws:
            keep = before / after
            row = w[s]
            for c in range(52):
                row[c] = 1.0 - (1.0 - row[c]) * keep

    for a in history:
        seat, kind, cards, target = a
        if kind == Kind.ATTACK:
            if round_open:
                fade(tr.end_round())
            round_open = True
            tr.starter = seat
            tr.defender = tr.next_opponent(seat)
            first = cards & -cards
            c = first.bit_length() - 1
            if not first & trumps:
                # The cheapest plain card is led: plain cards cheaper than c are unlikely.
                lower(seat, _cheaper(cost, c) & ~trumps, evidence.led_dearer)
            else:
                lower(seat, ~trumps & ((1 << 52) - 1), evidence.led_trump)
        elif kind == Kind.DEFEND:
            c = cards.bit_length() - 1
            first_answer = not tr.covered
            if first_answer and rules.variant == "perevodnoy":
                lower(seat, RANK_MASK[CARD_RANK[tr.table[0]]] & ~cards, evidence.no_transfer)
            beaters = BEATERS[view.trump_suit][target]
            cheaper_beaters = beaters & _cheaper(cost, c)
            lower(seat, cheaper_beaters & ~trumps, evidence.covered_dearer)
            lower(seat, cheaper_beaters & trumps, evidence.covered_dearer_trump)
            tr.covered.add(target)
            tr.ranks |= RANK_MASK[CARD_RANK[c]]
        elif kind == Kind.TAKE:
            tr.took = True
            if rules.variant == "perevodnoy" and not tr.covered and tr.table:
                lower(seat, RANK_MASK[CARD_RANK[tr.table[0]]], evidence.no_transfer)
            for att in tr.table:
                if att not in tr.covered:
                    lower(seat, HIGHER_IN_SUIT[att] & ~trumps, evidence.took_instead_of_cover)
        elif kind == Kind.PASS:
            lower(seat, tr.ranks & ~trumps, evidence.passed_on_rank)
        elif kind in (Kind.TRANSFER, Kind.SHOW_TRUMP):
            tr.defender = tr.next_opponent(seat)
        if kind in (Kind.ATTACK, Kind.THROW, Kind.TRANSFER):
            tr.counts[seat] -= cards.bit_count()
            c = cards
            while c:
                low = c & -c
                tr.table.append(low.bit_length() - 1)
                tr.ranks |= RANK_MASK[CARD_RANK[low.bit_length() - 1]]
                c ^= low
        elif kind == Kind.DEFEND:
            tr.counts[seat] -= 1
    if round_open and view.phase == 0 and not view.table:
        fade(tr.end_round())  # the round that ended before this lead
    if tr.counts != list(view.hand_counts) or tr.deck != view.deck_count:
        return None
    return w
