"""Perft: the number of legal action sequences of each length from a position.

Borrowed from chess engines: ``perft(s, 0) = 1`` and ``perft(s, d)`` is the sum
of ``perft(s after a, d - 1)`` over the legal actions ``a`` of the seat to move.
A finished game has no legal action, so lines that end the game before depth
``d`` add nothing.  The counts pin down move generation and every rule that
decides who moves next, which makes them a cheap cross-check for anyone porting
the engine.  ``scripts/make_perft.py`` writes the stored counts and
``tests/test_perft.py`` recomputes them; both use this module.
"""

from __future__ import annotations

from typing import Any

from .cards import cards_str, deck_mask, mask_of, parse_card
from .record import GameRecord
from .state import GameState


def perft(state: GameState, depth: int) -> int:
    """The number of legal action sequences of length ``depth`` (≥ 1) from ``state``."""
    actions = state.legal_actions()
    if depth == 1:
        return len(actions)
    total = 0
    for action in actions:
        child = state.copy()
        child.do(action)
        total += perft(child, depth - 1)
    return total


def position(record: dict[str, Any]) -> GameState:
    """The state a JSON game record leads to; ValueError if the record is illegal."""
    replay = GameRecord.from_json(record).replay()
    if not replay.ok:
        raise ValueError(
            f"position record is illegal at action {replay.error_index}: {replay.error}"
        )
    return replay.state


def empty_deck_record(rules: dict[str, Any], hands: list[list[str]], trump: str) -> dict[str, Any]:
    """A record of an empty-deck deal: every card not in a hand is discarded.

    ``hands`` lists each seat's cards (e.g. ``"9S"``); ``trump`` names the
    (already drawn) trump card, which only sets the trump suit.
    """
    held = mask_of(parse_card(c) for h in hands for c in h)
    rest = cards_str(deck_mask(rules.get("deck", 36)) & ~held)
    deal = {"hands": hands, "deck": [], "trump": trump, "discard": rest}
    return {"version": 1, "rules": rules, "deal": deal, "actions": []}
