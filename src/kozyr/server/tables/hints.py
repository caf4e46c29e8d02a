"""Hints at tables against the computer (issue 27, section 4).

``{"type": "hint"}`` asks for the best move of the asking seat, from its view
only (its hand and what is public: the same :func:`~kozyr.engine.view.view_of`
the bots play from), computed like the analysis does (level 10's search over
every legal action, the exact solver in endgames) in a bot worker process,
never on the event loop.

Where: only where the asker is the only person seated (every other seat a
bot; spectators may watch, they do not play), so a hint can never help
against another person.  Rated games are games between people (issue 26), so
they never qualify.  Elsewhere the answer is ``hint_unavailable``.  A person
gets a burst of ``hint_burst`` hints, then ``hints_per_minute``; more is
``rate_limited`` with ``retry_after``.  At a cheating table the hint is the
best honest move.  Each seat's hints are counted in ``game_over`` (``hints``)
and in the finished record's ``meta.hints``; a game with hints pays no candies
(docs/protocol.md, "Hints").
"""

from __future__ import annotations

import dataclasses

from kozyr.bots.cheating import honest
from kozyr.bots.ismcts import IsmctsConfig, budget
from kozyr.bots.levels import LEVELS
from kozyr.engine.view import View, view_of

from .. import protocol as p
from ..telemetry import log
from .limits import TokenBucket
from .rooms import Player, Room


def hint_budget(room: Room) -> int:
    """Iterations of one hint: the configured number, else level 10's at the table."""
    configured = room.hub.config.hint_budget
    if configured:
        return configured
    config = LEVELS[10].search
    assert isinstance(config, IsmctsConfig)
    return budget(config, room.rules.players)


def only_person(room: Room, player: Player) -> bool:
    """True when ``player`` is seated and every other seat is a bot's."""
    return room.seat_of(player) is not None and all(
        s.player is None or s.player is player for s in room.seats
    )


def _refuse(why: str) -> p.ProtocolError:
    return p.ProtocolError(p.Code.HINT_UNAVAILABLE, why, "hint")


def hint(room: Room, player: Player) -> None:
    """Check one ``hint`` request of ``player`` (refusals are raised) and
    start computing the answer."""
    seat = room.seat_of(player)
    if seat is None:
        raise _refuse("hints are for the player at the table, not for spectators")
    if not only_person(room, player):
        raise _refuse("hints are only given at a table where you are the only person")
    if room.rated:
        raise _refuse("no hints in rated games")
    g = room.game
    if g is None or room.state != "playing" or g.over:
        raise p.ProtocolError(p.Code.WRONG_STATE, "no game is being played", "hint")
    if g.to_move != seat:
        raise p.ProtocolError(p.Code.NOT_YOUR_TURN, "a hint is for your own turn", "hint")
    config = room.hub.config
    bucket = room.hint_buckets.get(player.key)
    if bucket is None:
        bucket = room.hint_buckets[player.key] = TokenBucket(
            config.hints_per_minute / 60, config.hint_burst
        )
    if not bucket.allow():
        raise p.ProtocolError(
            p.Code.RATE_LIMITED, "too many hints: wait a little", "hint", round(bucket.wait(), 2)
        )
    view = view_of(g.state, seat)
    if view.rules.cheating:
        view = dataclasses.replace(view, legal=honest(view))
    # The search takes a moment: the connection goes on meanwhile (a move may
    # come before the hint; the answer names the version it is for).
    room.hub.tasks.spawn(_answer(room, player, seat, view), f"hint-{room.code}")


async def _answer(room: Room, player: Player, seat: int, view: View) -> None:
    g = room.game
    assert g is not None
    version = g.version
    try:
        action, chance, exact = await room.hub.pool.hint(view, hint_budget(room))
    except Exception as exc:
        log.error("hint_failed", room=room.code, seat=seat, error=repr(exc))
        player.send(p.Error(code=p.Code.INTERNAL, message="the hint failed", ref="hint"))
        return
    if room.game is not g:
        return  # the game ended or another began meanwhile: the hint is moot
    used = g.count_hint(seat)
    if g.game_id is not None:  # kept with the game: a restart still knows (no candies)
        saved = room.hub.store.save_header(g.game_id, g.header())
        room.hub.tasks.spawn(saved, f"hints-{room.code}")
    player.send(
        p.HintAnswer(
            game=g.game_no,
            version=version,
            action=action.to_json(),
            chance=round(chance, 4),
            exact=exact,
            used=used,
        )
    )
