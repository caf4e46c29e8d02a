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
from kozyr.engine.actions import Action
from kozyr.engine.deal import Deal
from kozyr.engine.record import GameRecord
from kozyr.engine.rules import Rules
from kozyr.engine.state import GameState, IllegalAction, Result
from kozyr.engine.view import view_of

from .spec import ArenaError

#: A game longer than this is a bug (a real game has a few hundred actions).
MAX_ACTIONS = 20_000


class BotError(ArenaError):
    """A bot failed: it raised, returned something that is not an action, or an
    illegal action."""


@dataclass
class Played:
    """A finished game: its final state and, when asked for, its record."""

    state: GameState
    result: Result
    record: GameRecord | None


def play_game(
    rules: Rules,
    deal: Deal,
    bots: Sequence[Bot],
    labels: Sequence[str] | None = None,
    record: bool = False,
    meta: dict[str, Any] | None = None,
) -> Played:
    """Play ``deal`` to the end with ``bots[seat]`` choosing for each seat.

    ``labels`` name the bots in error messages (default: each bot's ``name``).
    With ``record`` the game is also kept as a :class:`GameRecord` (with ``meta``).
    """
    if len(bots) != rules.players:
        raise ArenaError(f"{len(bots)} bots for a {rules.players}-player table")
    names = list(labels) if labels is not None else [str(getattr(b, "name", b)) for b in bots]
    state = GameState.new(rules, deal)
    rec = GameRecord(rules, deal, [], dict(meta or {})) if record else None
    steps = 0
    while not state.game_over:
        seat = state.to_move
        assert seat is not None
        who = f"bot {names[seat]!r} in seat {seat}"
        view = view_of(state, seat)
        try:
            action = bots[seat].choose(view)
        except Exception as exc:
            raise BotError(f"{who} failed: {type(exc).__name__}: {exc}") from exc
        if not isinstance(action, Action):
            raise BotError(f"{who} returned {action!r}, which is not an Action")
        try:
            state.apply(action)
        except IllegalAction as exc:
            raise BotError(
                f"{who} returned an illegal action ({action}) on deal seed {deal.seed}, "
                f"move {steps + 1}: {exc}"
            ) from None
        if rec is not None:
            rec.append(action)
        steps += 1
        if steps > MAX_ACTIONS:
            raise ArenaError(f"the game on deal seed {deal.seed} passed {MAX_ACTIONS} actions")
    assert state.result is not None
    return Played(state, state.result, rec)
