"""How cards look to a person: ``10♦`` on screen, ``10d`` as typed."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text

from kozyr.engine.cards import CARD_RANK, CARD_SUIT, RANK_CHARS, SUIT_CHARS, SUIT_SYMBOLS

SUIT_NAMES = ("spades", "clubs", "diamonds", "hearts")
#: Red suits get a colour; the symbol or letter always says the suit as well.
RED_SUITS = frozenset({2, 3})
#: Follows every card the player may play now (colour alone is never the signal).
PLAYABLE_MARK = "*"


def rank_name(c: int) -> str:
    r = CARD_RANK[c]
    return "10" if RANK_CHARS[r] == "T" else RANK_CHARS[r]


def suit_mark(suit: int, ascii: bool = False) -> str:
    return SUIT_CHARS[suit] if ascii else SUIT_SYMBOLS[suit]


def card_name(c: int, ascii: bool = False) -> str:
    """``10♦`` (or ``10D`` with ``ascii``)."""
    return rank_name(c) + suit_mark(CARD_SUIT[c], ascii)


def cards_name(cards: Iterable[int], ascii: bool = False) -> str:
    return " ".join(card_name(c, ascii) for c in cards)


def card_input(c: int) -> str:
    """The card as a person types it: ``10d``, ``jc``."""
    return rank_name(c).lower() + SUIT_CHARS[CARD_SUIT[c]].lower()


def hand_order(cards: Iterable[int], trump_suit: int) -> list[int]:
    """Cards grouped by suit (trumps last), low to high within a suit."""
    return sorted(cards, key=lambda c: (CARD_SUIT[c] == trump_suit, CARD_SUIT[c], CARD_RANK[c]))


def card_text(c: int, ascii: bool = False, *, trump_suit: int = -1, playable: bool = False) -> Text:
    """One card, coloured by suit; trumps bold; ``*`` after a playable card."""
    style = "red" if CARD_SUIT[c] in RED_SUITS else ""
    if CARD_SUIT[c] == trump_suit:
        style += " bold"
    text = Text(card_name(c, ascii), style=style.strip())
    if playable:
        text.stylize("reverse")
        text.append(PLAYABLE_MARK, style="bold")
    return text


def cards_text(cards: Iterable[int], ascii: bool = False, trump_suit: int = -1) -> Text:
    return Text(" ").join(card_text(c, ascii, trump_suit=trump_suit) for c in cards)
