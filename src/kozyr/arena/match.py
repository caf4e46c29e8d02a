"""Playing one game between bots, refereed by the engine.

Each decision goes to the bot of the seat to move, which sees only that seat's
view; its answer is checked by :meth:`GameState.apply`, so a bot that returns
an illegal action stops the run with an error that names it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kozyr.bots.base import Bot
from kozyr.bots.match import BotFailure, GameTooLong, RefereeError
from kozyr.bots.match import play_game as referee
from kozyr.engine.deal import Deal
from kozyr.engine.record import GameRecord
from kozyr.engine.rules import Rules
from kozyr.engine.state import GameState, Result

from .spec import ArenaError


class BotError(ArenaError):
    """A bot failed: it raised, returned something that is not an action, or an
    illegal action."""


@dataclass
class Played:
    """A game: its final state and, when asked for, its record.  ``result`` is
    None for a game abandoned after :data:`kozyr.bots.match.GAME_CAP` actions
    (possible only with ``repetition_draw`` off); the arena counts it as a draw."""

    state: GameState
    result: Result | None
    record: GameRecord | None


def play_game(
    rules: Rules,
    deal: Deal,
    bots: Sequence[Bot],
    labels: Sequence[str] | None = None,
    record: bool = False,
    meta: dict[str, Any] | None = None,
) -> Played:
    """Play ``deal`` to the end with ``bots[seat]`` choosing for each seat
    (refereed by :func:`kozyr.bots.match.play_game`).

    ``labels`` name the bots in error messages (default: each bot's ``name``).
    With ``record`` the game is also kept as a :class:`GameRecord` (with ``meta``).
    """
    rec = GameRecord(rules, deal, [], dict(meta or {})) if record else None
    try:
        state = referee(rules, deal, bots, labels, rec.append if rec is not None else None)
    except GameTooLong as exc:
        return Played(exc.state, None, rec)
    except BotFailure as exc:
        raise BotError(str(exc)) from exc.__cause__
    except RefereeError as exc:
        raise ArenaError(str(exc)) from None
    assert state.result is not None
    return Played(state, state.result, rec)
