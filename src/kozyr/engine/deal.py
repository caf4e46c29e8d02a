"""Dealing: a portable seeded shuffle and explicit deals.

The shuffle is Fisher-Yates driven by SplitMix64, so any language can rebuild
a deal from its seed (docs/records.md gives the exact steps).  A seed always
means the same deal, on every platform and Python version.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from .cards import CARD_SUIT, card_str, cards_str, deck_cards, deck_mask
from .rules import HAND_SIZE, Rules

_MASK64: Final = (1 << 64) - 1


class DealError(ValueError):
    """An explicit deal that is not a deal of this deck for this table."""


class SplitMix64:
    """SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, well-distributed."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)


def shuffled_deck(size: int, seed: int) -> list[int]:
    """The deck in canonical order, Fisher-Yates shuffled.

    For i = n-1 down to 1, take the next 32-bit word w and swap positions i and
    ``(w * (i + 1)) >> 32``.  Words come from SplitMix64 outputs, high half first.
    """
    cards = deck_cards(size)
    rng = SplitMix64(seed)
    word = 0
    spare = False
    for i in range(len(cards) - 1, 0, -1):
        if spare:
            w = word & 0xFFFFFFFF
        else:
            word = rng.next()
            w = word >> 32
        spare = not spare
        j = (w * (i + 1)) >> 32
        cards[i], cards[j] = cards[j], cards[i]
    return cards


@dataclass(frozen=True)
class Deal:
    """Where every card starts.  ``deck`` is listed top to bottom; the last card is
    the face-up trump while the deck is not empty."""

    hands: tuple[int, ...]
    deck: tuple[int, ...]
    trump: int
    discard: int = 0
    first_attacker: int | None = None
    previous_durak: int | None = None
    seed: int | None = field(default=None, compare=False)

    @property
    def trump_suit(self) -> int:
        return CARD_SUIT[self.trump]

    @classmethod
    def from_seed(
        cls,
        rules: Rules,
        seed: int,
        first_attacker: int | None = None,
        previous_durak: int | None = None,
    ) -> Deal:
        """Deal 6 cards one at a time, seat 0 first; turn up the next card as trump
        and put it at the bottom.  If the deal takes the whole deck, the last dealt
        card is shown and is trump."""
        cards = shuffled_deck(rules.deck, seed)
        n = rules.players
        dealt = HAND_SIZE * n
        hands = [0] * n
        for k in range(dealt):
            hands[k % n] |= 1 << cards[k]
        rest = cards[dealt:]
        if rest:
            trump = rest[0]
            deck = (*rest[1:], rest[0])
        else:
            trump = cards[dealt - 1]
            deck = ()
        return cls(tuple(hands), deck, trump, 0, first_attacker, previous_durak, seed)

    def validate(self, rules: Rules) -> None:
        """Raise :class:`DealError` unless this is a complete deal for ``rules``."""
        n = rules.players
        if len(self.hands) != n:
            raise DealError(f"{len(self.hands)} hands dealt for {n} players")
        full = deck_mask(rules.deck)
        seen = 0
        where: list[tuple[str, int]] = [(f"hand {i}", h) for i, h in enumerate(self.hands)]
        deck_m = 0
        for c in self.deck:
            if deck_m >> c & 1:
                raise DealError(f"card {card_str(c)} is in the deck twice")
            deck_m |= 1 << c
        where += [("deck", deck_m), ("discard", self.discard)]
        for name, m in where:
            if m & ~full:
                bad = ", ".join(cards_str(m & ~full))
                raise DealError(f"{name} holds card(s) not in a {rules.deck}-card deck: {bad}")
            if m & seen:
                dup = ", ".join(cards_str(m & seen))
                raise DealError(f"card(s) dealt twice: {dup}")
            seen |= m
        if seen != full:
            missing = ", ".join(cards_str(full & ~seen))
            raise DealError(f"card(s) missing from the deal: {missing}")
        if self.deck and self.deck[-1] != self.trump:
            raise DealError(
                f"the face-up trump {card_str(self.trump)} must be the last card of the deck"
            )
        if self.deck and not all(self.hands):
            raise DealError("while the deck is not empty every player must hold cards")
        if not (full >> self.trump & 1):
            raise DealError(f"trump {card_str(self.trump)} is not in the deck")
        for name, value in (
            ("first_attacker", self.first_attacker),
            ("previous_durak", self.previous_durak),
        ):
            if value is not None and not 0 <= value < n:
                raise DealError(f"{name} must be a seat 0..{n - 1}, not {value}")
        if self.first_attacker is not None and not self.hands[self.first_attacker]:
            raise DealError(f"first_attacker {self.first_attacker} holds no cards")
