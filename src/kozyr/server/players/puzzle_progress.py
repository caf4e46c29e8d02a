"""A player's puzzle progress, kept with the profile (docs/puzzles.md).

Why on the server: the token is the identity, so the solved count and the
streak follow the player to another device (a transfer code) and into the
Telegram Mini App, and a cleared browser loses nothing.  The rules:

* a wrong move sets the streak to 0 and marks the puzzle as failed;
* solving a puzzle for the first time counts it as solved, and adds one to
  the streak if no wrong move was ever made on it;
* solving a puzzle already solved changes nothing (a streak is not farmed on
  one easy puzzle).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from sqlalchemy import Connection, insert, select, update

from ..storage.schema import puzzle_streaks, puzzle_tries
from .profiles import key_exists

Outcome = Literal["wrong", "solved"]


def progress(conn: Connection, key: str) -> dict[str, Any] | None:
    """``{"solved", "streak", "best_streak", "ids"}``; None if there is no such player."""
    return _progress(conn, key) if key_exists(conn, key) else None


def _progress(conn: Connection, key: str) -> dict[str, Any]:
    pt = puzzle_tries.c
    ids = [
        row[0]
        for row in conn.execute(
            select(pt.puzzle)
            .where(pt.player == key, pt.solved_at.is_not(None))
            .order_by(pt.solved_at, pt.puzzle)
        )
    ]
    row = conn.execute(
        select(puzzle_streaks.c.streak, puzzle_streaks.c.best).where(puzzle_streaks.c.player == key)
    ).first()
    streak, best = (row[0], row[1]) if row is not None else (0, 0)
    return {"solved": len(ids), "streak": streak, "best_streak": best, "ids": ids}


def record(
    conn: Connection, key: str, puzzle: str, outcome: Outcome, now: float
) -> dict[str, Any] | None:
    """Count a wrong move or a solve of ``puzzle``; the progress after it (None:
    no such player, nothing written)."""
    if not key_exists(conn, key):
        return None
    pt = puzzle_tries.c
    row = conn.execute(
        select(pt.failed, pt.solved_at).where(pt.player == key, pt.puzzle == puzzle)
    ).first()
    if row is None:
        conn.execute(
            insert(puzzle_tries).values(
                player=key,
                puzzle=puzzle,
                failed=outcome == "wrong",
                solved_at=now if outcome == "solved" else None,
                first_at=now,
            )
        )
    mine = (pt.player == key) & (pt.puzzle == puzzle)
    if outcome == "wrong":
        if row is not None and not row[0]:
            conn.execute(update(puzzle_tries).where(mine).values(failed=True))
        _set_streak(conn, key, lambda _: 0, now)
    elif row is None:
        _set_streak(conn, key, lambda s: s + 1, now)
    elif row[1] is None:  # tried before and failed: solved now, the streak stays
        conn.execute(update(puzzle_tries).where(mine).values(solved_at=now))
    return _progress(conn, key)


def _set_streak(conn: Connection, key: str, change: Callable[[int], int], now: float) -> None:
    ps = puzzle_streaks.c
    row = conn.execute(select(ps.streak, ps.best).where(ps.player == key)).first()
    if row is None:
        streak = change(0)
        conn.execute(
            insert(puzzle_streaks).values(player=key, streak=streak, best=streak, updated_at=now)
        )
        return
    streak = change(row[0])
    conn.execute(
        update(puzzle_streaks)
        .where(ps.player == key)
        .values(streak=streak, best=max(row[1], streak), updated_at=now)
    )
