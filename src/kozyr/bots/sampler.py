"""Sampling deals of the unseen cards that agree with everything public.

A seat sees its own hand, the table, the discards, the face-up trump (at the
bottom of the deck, or in the hand of the player who drew it) and, for each
player, the cards publicly known to be in their hand (picked up, or shown for
a transfer).  Every other card — :meth:`View.unseen` — is in some opponent's
hand or in the deck.  A *deal* places them: each opponent gets their known
cards plus as many unseen cards as their hand count still needs, and the deck
gets the rest in some order above the face-up trump.

:func:`sample_deal` draws uniformly among all such placements (a shuffle of
the unseen cards cut into pieces of the right sizes).  It does no soft
inference from play (e.g. "they took, so they lack a trump"): every
consistent deal is equally likely.
"""

from __future__ import annotations

import random

from kozyr.engine.cards import cards_of
from kozyr.engine.state import GameState
from kozyr.engine.view import View, state_from_view


class Slots:
    """How many unseen cards each hand and the deck must receive in ``view``."""

    __slots__ = ("deck", "hands", "pool")

    def __init__(self, view: View) -> None:
        #: The unseen cards.
        self.pool: list[int] = cards_of(view.unseen())
        #: hands[seat]: unseen cards that seat holds (0 for the viewer).
        self.hands: list[int] = [0] * view.rules.players
        for seat in range(view.rules.players):
            if seat != view.seat:
                self.hands[seat] = view.hand_counts[seat] - view.known[seat].bit_count()
        #: Unseen cards in the deck (the face-up trump at its bottom is seen).
        self.deck: int = max(view.deck_count - 1, 0)
        if sum(self.hands) + self.deck != len(self.pool):
            raise ValueError(
                f"inconsistent view: {len(self.pool)} unseen cards for "
                f"{sum(self.hands) + self.deck} hidden places"
            )

    def determined(self) -> bool:
        """True when only one deal fits: all hidden places are in one hand, or
        the deck hides a single card (so its order cannot vary)."""
        places = sum(1 for k in self.hands if k > 0) + (1 if self.deck else 0)
        return places == 0 or (places == 1 and self.deck <= 1)


def shuffle(items: list[int], rng: random.Random) -> None:
    """Shuffle ``items`` in place exactly as ``rng.shuffle`` of CPython 3.11 does
    (same permutation for the same generator state), but in compiled code, and
    pinned so that a later Python cannot change the bots' sampled deals."""
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]


def sample_deal(
    view: View, rng: random.Random, slots: Slots | None = None
) -> tuple[list[int], list[int]]:
    """(every seat's hand, the deck top to bottom with the face-up trump last):
    one uniformly random deal consistent with ``view``."""
    if slots is None:
        slots = Slots(view)
    pool = slots.pool[:]
    shuffle(pool, rng)
    hands = [view.known[s] for s in range(view.rules.players)]
    hands[view.seat] = view.hand
    i = 0
    for seat, k in enumerate(slots.hands):
        m = hands[seat]
        for c in pool[i : i + k]:
            m |= 1 << c
        hands[seat] = m
        i += k
    deck = pool[i:]
    if view.deck_count:
        deck.append(view.trump)
    return hands, deck


def sample_state(view: View, rng: random.Random, slots: Slots | None = None) -> GameState:
    """A full game state for one sampled deal (a *determinization* of ``view``)."""
    hands, deck = sample_deal(view, rng, slots)
    return state_from_view(view, hands, deck)
