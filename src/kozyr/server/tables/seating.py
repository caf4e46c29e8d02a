"""Between games: sitting down, standing up, ready marks, and the host's kick.

Why apart from :mod:`.rooms`: these only move people between seats and the
spectators' bench while no game runs; the room's flow of a game does not
depend on them.  Every refusal is a :class:`~kozyr.server.protocol.ProtocolError`
with the room unchanged.
"""

from __future__ import annotations

import time

from .. import protocol as p
from ..telemetry import log
from .rooms import Player, Room, Seat

#: How long a kicked person cannot come back to the room (docs/protocol.md).
KICK_BAN = 600.0


def _between_games(room: Room, what: str) -> None:
    if room.state == "playing":
        raise p.ProtocolError(p.Code.WRONG_STATE, f"{what} between games, not during one")


def sittable(room: Room, seat: Seat) -> bool:
    """Nobody sits here (a bot that only filled the seat for the last game may),
    and it is not kept for a player who left during a game."""
    return (
        seat.player is None
        and seat.reserved is None
        and seat.challenged is None
        and (seat.bot is None or seat.auto)
    )


def sit(room: Room, player: Player, wish: int | None) -> None:
    """A spectator takes a seat: ``wish``, or the first free one."""
    _between_games(room, "sit down")
    if room.seat_of(player) is not None:
        raise p.ProtocolError(p.Code.BAD_SEAT, "you are seated already")
    if wish is not None:
        if not 0 <= wish < len(room.seats):
            raise p.ProtocolError(p.Code.BAD_SEAT, f"there is no seat {wish}")
        seat: Seat | None = room.seats[wish]
        if seat is not None and not sittable(room, seat):
            raise p.ProtocolError(p.Code.BAD_SEAT, f"seat {wish} is taken")
    else:
        seat = next((s for s in room.seats if sittable(room, s)), None)
        if seat is None:
            raise p.ProtocolError(p.Code.BAD_SEAT, "no seat is free")
    assert seat is not None
    if player in room.spectators:
        room.spectators.remove(player)
    seat.player = player
    seat.bot, seat.auto, seat.away, seat.ready = None, False, False, False
    log.event("sat_down", room=room.code, player=player.name, seat=seat.index)
    room.changed()
    room.broadcast_room()


def stand(room: Room, player: Player) -> None:
    """A seated player stands up and watches (the seat is free)."""
    _between_games(room, "stand up")
    idx = room.seat_of(player)
    if idx is None:
        raise p.ProtocolError(p.Code.NOT_SEATED, "you are not seated")
    seat = room.seats[idx]
    seat.player = None
    seat.bot, seat.auto, seat.ready = None, False, False
    room.spectators.append(player)
    log.event("stood_up", room=room.code, player=player.name, seat=idx)
    room.changed()
    room.broadcast_room()


def set_ready(room: Room, player: Player, ready: bool) -> None:
    _between_games(room, "ready marks are set")
    idx = room.seat_of(player)
    if idx is None:
        raise p.ProtocolError(p.Code.NOT_SEATED, "only a seated player can be ready")
    room.seats[idx].ready = ready
    room.broadcast_room()


def kick(room: Room, host: Player, seat: int | None, spectator: int | None) -> Player:
    """The host sends a player or a spectator out of the room; they may not
    come back for :data:`KICK_BAN` seconds.  Returns who was sent out."""
    room.require_host(host)
    _between_games(room, "players are sent out")
    if (seat is None) == (spectator is None):
        raise p.ProtocolError(p.Code.BAD_SEAT, "name one seat or one spectator")
    if seat is not None:
        if not 0 <= seat < len(room.seats) or room.seats[seat].player is None:
            raise p.ProtocolError(p.Code.BAD_SEAT, f"nobody sits in seat {seat}")
        target = room.seats[seat].player
        assert target is not None
    else:
        assert spectator is not None
        if spectator >= len(room.spectators):
            raise p.ProtocolError(p.Code.BAD_SEAT, f"there is no spectator {spectator}")
        target = room.spectators[spectator]
    if target is host:
        raise p.ProtocolError(p.Code.BAD_SEAT, "the host cannot send themselves out")
    room.kicked[target.key] = time.monotonic() + KICK_BAN
    log.event("kicked", room=room.code, player=target.name, by=host.name)
    target.send(p.Left(room=room.code, reason="kicked"))
    room.remove_player(target)
    return target
