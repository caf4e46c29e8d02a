"""The rule-of-thumb player shared by levels 1–4 and by every search rollout.

The same three functions decide for a bot looking at a :class:`View` (levels
1–4, see :mod:`kozyr.bots.heuristic_bot`) and for the simulated players of a
rollout looking at a sampled :class:`GameState` (:mod:`kozyr.bots.rollout`).
They take plain ints and int bit masks — the seat's own hand, the table and
public facts — so they are fast enough to be called thousands of times per
decision and cannot peek at anything they are not handed.

What a solid player (level 4) does, and what the knobs of :class:`Style` take
away for the weaker levels:

* **lead** the cheapest non-trump card, with its pair when the rank is low or
  the deck is gone; in the endgame (empty deck) lead what the defender cannot
  beat, counting every card that may still be in their hand;
* **defend** with the cheapest cover (same suit first, trumps last), but take
  early — while the deck is big — when covering would burn a high trump or
  several trumps on a small, cheap pick-up; transfer with a cheap card or by
  showing a trump (perevodnoy);
* **throw in** cheap non-trumps; pile everything useful onto a taker and press
  hard once the deck is empty.

Card *cost* orders the cards by how much the seat wants to keep them: the rank
counted from the deck's lowest rank, plus :data:`TRUMP_BONUS` for trumps (a
trump-blind style leaves the bonus out and so happily spends trumps).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from kozyr.engine.actions import Action, Kind, fast_action
from kozyr.engine.cards import CARD_RANK, DECK_LOWEST_RANK, NUM_RANKS, RANK_MASK, SUIT_MASK

_TAKE: Final = Kind.TAKE
_DEFEND: Final = Kind.DEFEND
_SHOW: Final = Kind.SHOW_TRUMP

#: Added to a trump's cost: every trump is worth more than every plain card.
TRUMP_BONUS: Final = 16


@dataclass(frozen=True)
class Style:
    """How well a heuristic player plays (see :mod:`kozyr.bots.levels`)."""

    #: Values trumps above plain cards (level 1 does not and wastes them).
    trump_aware: bool = True
    #: Takes a cheap pick-up rather than burn high trumps while the deck is big.
    take_early: bool = True
    #: Counts cards in the endgame: leads and throws what the defender cannot beat.
    counting: bool = True
    #: Leads and throws in pairs of low ranks.
    pairs: bool = True
    #: Chance of taking although a cover exists (a beginner's panic).
    random_take: float = 0.0
    #: Cheating tables (rule 13): in the last call, the chance of calling out a
    #: cheat on the table (the simulated players of a search's rollouts).
    attention: float = 0.6


SOLID: Final = Style()


@dataclass(frozen=True)
class Tables:
    """Per-game lookup tables for the heuristics (built once per game and style)."""

    #: cost[c] for every card number (0..51).
    cost: tuple[int, ...]
    #: All cards of the trump suit.
    trumps: int
    #: Deck size (24/36/52) and its number of ranks (6/9/13).
    deck: int
    ranks: int
    #: A trump of at least this relative rank is "high" (J and up in 36 cards).
    high_trump: int
    #: Plain cards at most this relative rank are cheap to lead or throw (≤ 9 in 36).
    cheap: int
    #: Plain cards at most this relative rank may be dumped on a taker (≤ T in 36).
    dump: int
    #: The deck counts as "big" while it holds more than this many cards.
    big_deck: int
    #: The deck's lowest rank (0 = two).
    low: int
    #: Costs include the trump bonus (see :class:`Style`).
    aware: bool


@lru_cache(maxsize=64)
def tables(trump_suit: int, deck: int, trump_aware: bool = True) -> Tables:
    """The lookup tables for one trump suit and deck size."""
    low = DECK_LOWEST_RANK[deck]
    ranks = NUM_RANKS - low
    bonus = TRUMP_BONUS if trump_aware else 0
    cost = tuple(
        CARD_RANK[c] - low + (bonus if c // NUM_RANKS == trump_suit else 0) for c in range(52)
    )
    return Tables(
        cost=cost,
        trumps=SUIT_MASK[trump_suit],
        deck=deck,
        ranks=ranks,
        high_trump=(ranks * 5) // 9,
        cheap=(ranks * 3) // 9,
        dump=(ranks * 4) // 9,
        big_deck=deck // 4,
        low=low,
        aware=trump_aware,
    )


def cheapest(mask: int, cost: tuple[int, ...]) -> int:
    """The card of a non-empty ``mask`` with the lowest cost (lowest number on ties)."""
    best = -1
    best_cost = 1 << 30
    while mask:
        low = mask & -mask
        c = low.bit_length() - 1
        k = cost[c]
        if k < best_cost:
            best, best_cost = c, k
        mask ^= low
    return best


def cheapest_cover(options: int, t: Tables) -> int:
    """The cheapest card of ``options``, a non-empty set of cards beating one
    attack card.  Its plain cards are all of the attack card's suit, so with
    trump-aware costs the lowest plain bit, else the lowest trump, is cheapest."""
    if t.aware:
        plain = options & ~t.trumps
        low = plain & -plain if plain else options & -options
        return low.bit_length() - 1
    return cheapest(options, t.cost)


def unbeatable(cards: int, threat: int, beaters: tuple[int, ...]) -> int:
    """The cards of ``cards`` that no card of ``threat`` can cover."""
    out = 0
    m = cards
    while m:
        low = m & -m
        if not threat & beaters[low.bit_length() - 1]:
            out |= low
        m ^= low
    return out


def _take_cheapest(group: int, room: int, cost: tuple[int, ...]) -> int:
    """At most ``room`` (>= 1) cards of ``group``, the cheapest ones."""
    if group.bit_count() <= room:
        return group
    out = 0
    for _ in range(room):
        c = cheapest(group, cost)
        out |= 1 << c
        group &= ~(1 << c)
    return out


# --------------------------------------------------------------------- lead
def choose_lead(
    hand: int,
    t: Tables,
    deck_count: int,
    limit: int,
    multiple: bool,
    threat: int,
    beaters: tuple[int, ...],
    style: Style,
) -> int:
    """The cards to lead an attack with (a non-empty subset of one rank of ``hand``).

    ``threat`` holds every card the defender may have (used only with
    ``style.counting`` once the deck is empty; pass -1 when unknown).
    """
    cost = t.cost
    plain = hand & ~t.trumps if style.trump_aware else hand
    pool = plain if plain else hand
    room = limit if multiple else 1
    if deck_count == 0 and style.counting and threat >= 0:
        # Endgame: lead what the defender cannot beat; they must take it.
        sure = unbeatable(pool, threat, beaters)
        if sure:
            c = cheapest(sure, cost)
            group = sure & RANK_MASK[CARD_RANK[c]]
            return _take_cheapest(group, room, cost)
    c = cheapest(pool, cost)
    if room > 1 and style.pairs:
        group = pool & RANK_MASK[CARD_RANK[c]]
        if group & (group - 1) and (deck_count == 0 or cost[c] <= t.cheap):
            return _take_cheapest(group, room, cost)
    return 1 << c


# ------------------------------------------------------------------- defend
def cover_plan(
    hand: int, att: Sequence[int], dfn: Sequence[int], beaters: tuple[int, ...], t: Tables
) -> list[tuple[int, int]] | None:
    """(cover card, attack card) pairs covering every open attack card, or None
    if they cannot all be covered.

    The hardest attack card (highest cost) is covered first, each with the
    cheapest card that beats it; only if that greedy choice leaves some card
    uncoverable are the dearer covers tried (a short backtracking search over
    at most six cards), so a cover is found whenever one exists.
    """
    cost = t.cost
    open_cards = [a for a, d in zip(att, dfn, strict=True) if d < 0]
    if len(open_cards) == 1:  # the common case, kept fast for rollouts
        options = hand & beaters[open_cards[0]]
        return [(cheapest_cover(options, t), open_cards[0])] if options else None
    for a in open_cards:
        if not hand & beaters[a]:
            return None  # the usual reason there is no cover: no need to search
    open_cards.sort(key=lambda a: -cost[a])
    return _assign(open_cards, 0, hand, beaters, cost)


def _assign(
    targets: list[int], i: int, left: int, beaters: tuple[int, ...], cost: tuple[int, ...]
) -> list[tuple[int, int]] | None:
    """Covers for ``targets[i:]`` from ``left``, cheapest first, or None."""
    if i == len(targets):
        return []
    a = targets[i]
    options = left & beaters[a]
    while options:
        c = cheapest(options, cost)
        rest = _assign(targets, i + 1, left & ~(1 << c), beaters, cost)
        if rest is not None:
            return [(c, a), *rest]
        options &= ~(1 << c)
    return None


def choose_defense(
    seat: int,
    hand: int,
    att: Sequence[int],
    dfn: Sequence[int],
    beaters: tuple[int, ...],
    t: Tables,
    deck_count: int,
    transfers: Sequence[Action],
    style: Style,
    u: float,
) -> Action:
    """Cover, transfer or take.  ``transfers`` are the legal transfer and
    show-trump actions (empty in podkidnoy or once a card is covered); ``u`` is
    a uniform random number in [0, 1) for the beginner's random takes."""
    cost = t.cost
    plan = cover_plan(hand, att, dfn, beaters, t)
    if transfers:
        best: Action | None = None
        best_cost = 1 << 30
        for act in transfers:
            if act.kind == _SHOW:
                return act  # free: no card leaves the hand
            if act.cards & (act.cards - 1):
                continue  # transferring several cards piles more on the table: skip
            k = cost[act.cards.bit_length() - 1]
            if k < best_cost:
                best, best_cost = act, k
        if best is not None and (plan is None or best_cost < TRUMP_BONUS or not style.trump_aware):
            return best
    if plan is None or u < style.random_take:
        return fast_action(seat, _TAKE)
    if style.take_early and deck_count > t.big_deck:
        trumps_used = 0
        high = False
        for c, _ in plan:
            if (1 << c) & t.trumps:
                trumps_used += 1
                if cost[c] - TRUMP_BONUS >= t.high_trump:
                    high = True
        if high or trumps_used >= 2:
            # Only the attack cards are a real pick-up (the covers were ours);
            # a trump among them is welcome.
            worst = 0
            for a in att:
                if not (1 << a) & t.trumps:
                    worst = max(worst, cost[a])
            if len(att) <= 2 and worst <= t.dump:
                return fast_action(seat, _TAKE)
    c, a = plan[0]
    return fast_action(seat, _DEFEND, 1 << c, a)


# -------------------------------------------------------------------- throw
def choose_throw(
    hand: int,
    table_ranks: int,
    taking: bool,
    t: Tables,
    deck_count: int,
    threat: int,
    beaters: tuple[int, ...],
    style: Style,
) -> int:
    """The card (as a one-bit mask) to throw in, or 0 to pass."""
    cands = hand & table_ranks
    if not cands:
        return 0
    cost = t.cost
    if not style.trump_aware:
        return 1 << cheapest(cands, cost)  # a beginner throws whatever fits
    plain = cands & ~t.trumps
    if deck_count == 0:
        if taking:
            return 1 << cheapest(cands, cost)  # endgame: every card given away counts
        if plain:
            return 1 << cheapest(plain, cost)
        if style.counting and threat >= 0:
            sure = unbeatable(cands, threat, beaters)
            if sure:
                return 1 << cheapest(sure, cost)
        return 0
    if not plain:
        return 0
    c = cheapest(plain, cost)
    if cost[c] <= (t.dump if taking else t.cheap):
        return 1 << c
    return 0
