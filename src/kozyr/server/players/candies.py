"""Candies: what a finished game pays (the product we follow, exactly), as a rule.

Pure: :func:`grant_for` decides one seat's grant from the facts of the game; the
ledger that keeps it (one row per player and game) is written by :mod:`.settle`
in the transaction that finishes the game.  docs/players.md states every number.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

#: A game pays only if it lasted this many moves (a move: one action in the record).
MIN_MOVES = 16
#: With friends (at least two people at the table): win, draw, loss.
FRIENDS = {"win": 15, "draw": 8, "loss": 5}
#: Against the computer (the only person at the table): win 6 as the product
#: pays; a draw and a loss in the same proportion as with friends.
COMPUTER = {"win": 6, "draw": 3, "loss": 2}
#: Candies a player may earn per day (UTC), unless ``kozyr serve --candy-cap``.
DEFAULT_CAP = 300
#: A person earns for a seat only if they made at least this share of its
#: actions themselves (the rest made by the bot after a timeout or while away).
OWN_SHARE = 0.25

#: Reasons a grant pays nothing.
TOO_SHORT, CAP_REACHED, BOT_PLAYED, LEFT, OFF = (
    "too_short", "cap_reached", "bot_played", "left", "off",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Grant:
    """One seat's candies for one game: ``amount`` and why (``friends_win``,
    ``computer_loss``... or why nothing: ``too_short``, ``cap_reached``,
    ``bot_played``, ``left``, ``off``); ``capped``: cut down by the daily cap."""

    amount: int
    reason: str
    capped: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"amount": self.amount, "reason": self.reason, "capped": self.capped}


def candy_day(at: float | None = None) -> str:
    """The day a grant counts against: the UTC date (``2026-12-01``)."""
    return time.strftime("%Y-%m-%d", time.gmtime(time.time() if at is None else at))


def bot_played(own: int, actions: int) -> bool:
    """The seat was (nearly) played by the bot: the person made fewer than a
    quarter of its actions themselves."""
    return actions > 0 and own < OWN_SHARE * actions


def grant_for(
    *,
    people: int,
    outcome: str,
    moves: int,
    own: int,
    actions: int,
    left: bool,
    today: int,
    cap: int,
) -> Grant:
    """What one person earns: ``people`` at the table (2+ is "with friends"),
    their ``outcome`` (win, draw, loss), the game's ``moves``, the ``own`` of
    their seat's ``actions`` they made, whether they ``left``, and what they
    already earned ``today`` under the daily ``cap`` (0: candies are off)."""
    if cap <= 0:
        return Grant(0, OFF)
    if left:
        return Grant(0, LEFT)
    if moves < MIN_MOVES:
        return Grant(0, TOO_SHORT)
    if bot_played(own, actions):
        return Grant(0, BOT_PLAYED)
    mode, table = ("friends", FRIENDS) if people >= 2 else ("computer", COMPUTER)
    base = table[outcome]
    room = cap - today
    if room <= 0:
        return Grant(0, CAP_REACHED)
    amount = min(base, room)
    return Grant(amount, f"{mode}_{outcome}", capped=amount < base)
