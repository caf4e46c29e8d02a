"""Cards as small integers and card sets as integer bit masks.

A card is ``suit * 13 + rank`` where rank 0 is the two and rank 12 the ace, so
every deck size (24, 36, 52) uses the same numbering and a set of cards is one
Python int with bit ``card`` set.  Bit masks make the hot paths of move
generation (``hand & beaters``) single integer operations, which is what lets
bots play out thousands of games per decision.

Notation (used in records, the protocol and logs): rank ``2``-``9 T J Q K A``
followed by suit ``S C D H``, e.g. ``TD``, ``6S``, ``AH``.  ``10D`` and lower
case are accepted as input; output is always canonical.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final

RANK_CHARS: Final = "23456789TJQKA"
SUIT_CHARS: Final = "SCDH"
SUIT_SYMBOLS: Final = "♠♣♦♥"
NUM_RANKS: Final = 13
NUM_SUITS: Final = 4
NUM_CARDS: Final = 52

SPADES: Final = 0
CLUBS: Final = 1
DIAMONDS: Final = 2
HEARTS: Final = 3
RANK_SIX: Final = 4  # index of the six in RANK_CHARS

#: Deck sizes and the lowest rank each one uses.
DECK_LOWEST_RANK: Final[dict[int, int]] = {24: RANK_CHARS.index("9"), 36: RANK_SIX, 52: 0}

SUIT_MASK: Final[tuple[int, ...]] = tuple(
    ((1 << NUM_RANKS) - 1) << (NUM_RANKS * s) for s in range(4)
)
RANK_MASK: Final[tuple[int, ...]] = tuple(
    sum(1 << (s * NUM_RANKS + r) for s in range(NUM_SUITS)) for r in range(NUM_RANKS)
)

#: CARD_RANK[c] / CARD_SUIT[c] avoid a divmod in hot loops.
CARD_RANK: Final[tuple[int, ...]] = tuple(c % NUM_RANKS for c in range(NUM_CARDS))
CARD_SUIT: Final[tuple[int, ...]] = tuple(c // NUM_RANKS for c in range(NUM_CARDS))
#: Cards of the same suit ranked strictly above ``c``.
HIGHER_IN_SUIT: Final[tuple[int, ...]] = tuple(
    SUIT_MASK[c // NUM_RANKS] & ~((1 << (c + 1)) - 1) for c in range(NUM_CARDS)
)
#: For each rank, the cards of that rank (same as RANK_MASK) indexed by card.
SAME_RANK: Final[tuple[int, ...]] = tuple(RANK_MASK[c % NUM_RANKS] for c in range(NUM_CARDS))


class CardError(ValueError):
    """A string that is not a card in Kozyr's notation."""


def card(rank: int, suit: int) -> int:
    """The card number of ``rank`` (0 = two .. 12 = ace) in ``suit``."""
    return suit * NUM_RANKS + rank


def parse_card(text: object) -> int:
    """Parse ``"TD"``, ``"10d"``, ``"6S"`` ... into a card number."""
    if not isinstance(text, str):
        raise CardError(f"a card must be a string like 'TD', not {text!r}")
    number = _CARD_NUMBERS.get(text)  # the canonical notation, as clients send it
    if number is not None:
        return number
    if not text.isascii():
        raise CardError(f"not a card: {text!r} (expected rank 2-9/T/J/Q/K/A and suit S/C/D/H)")
    s = text.strip().upper()
    if s.startswith("10"):
        s = "T" + s[2:]
    if len(s) != 2 or s[0] not in RANK_CHARS or s[1] not in SUIT_CHARS:
        raise CardError(f"not a card: {text!r} (expected rank 2-9/T/J/Q/K/A and suit S/C/D/H)")
    return card(RANK_CHARS.index(s[0]), SUIT_CHARS.index(s[1]))


#: Every card's notation, made once: a server writes dozens of cards into every
#: frame, and one shared string each costs no allocation (nor cache misses).
_CARD_NAMES: Final[tuple[str, ...]] = tuple(
    RANK_CHARS[c % NUM_RANKS] + SUIT_CHARS[c // NUM_RANKS] for c in range(NUM_CARDS)
)

#: The card number of each canonical notation (the usual input of parse_card).
_CARD_NUMBERS: Final[dict[str, int]] = {name: c for c, name in enumerate(_CARD_NAMES)}


def card_str(c: int) -> str:
    """Canonical notation of card number ``c``."""
    if not 0 <= c < NUM_CARDS:
        raise ValueError(f"there is no card number {c}")
    return _CARD_NAMES[c]


def card_pretty(c: int) -> str:
    """Card with a suit symbol, for people (``T♦``)."""
    return RANK_CHARS[c % NUM_RANKS] + SUIT_SYMBOLS[c // NUM_RANKS]


def bit(c: int) -> int:
    return 1 << c


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> list[int]:
    """The cards in ``mask``, lowest number first."""
    if mask < 0:
        raise ValueError(f"a card set is a non-negative bit mask, not {mask}")
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def iter_cards(mask: int) -> Iterator[int]:
    if mask < 0:
        raise ValueError(f"a card set is a non-negative bit mask, not {mask}")
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def count(mask: int) -> int:
    return mask.bit_count()


def lowest(mask: int) -> int:
    """The lowest-numbered card of a non-empty mask."""
    return (mask & -mask).bit_length() - 1


def parse_cards(texts: Iterable[str]) -> list[int]:
    return [parse_card(t) for t in texts]


def cards_str(mask: int) -> list[str]:
    return [card_str(c) for c in cards_of(mask)]


def deck_mask(size: int) -> int:
    """All cards of a 24-, 36- or 52-card deck."""
    low = DECK_LOWEST_RANK[size]
    return sum(RANK_MASK[r] for r in range(low, NUM_RANKS))


def deck_cards(size: int) -> list[int]:
    """The deck in canonical order: spades, clubs, diamonds, hearts; low to high."""
    return cards_of(deck_mask(size))


def rank_char(c: int) -> str:
    return RANK_CHARS[c % NUM_RANKS]
