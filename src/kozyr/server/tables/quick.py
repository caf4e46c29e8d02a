"""Quick match: one tap seats you with strangers.

A quick-match room is an ordinary public room (30 s move clock, the computer at
level 3 in the seats nobody takes) of one *kind*: a variant and a table size
(``podkidnoy:2``).  At most one room of each kind waits for people at a time;
the coordinator knows it (this process's memory, or Redis in a cluster, so two
people on different processes meet).  A quick match joins the waiting room of
its kind, or makes one and waits there: the game starts as soon as every seat
has a person, or ``--quick-wait`` seconds (20) after the room opened, with bots
in the empty seats.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from .. import protocol as p
from ..telemetry import log

if TYPE_CHECKING:
    from .ports import Coordinator, Peer
    from .rooms import Player, Room


class Hub(Protocol):
    """What a quick match needs of :class:`~.lobby.Hub` (which imports this
    module, so it is named by shape, not imported)."""

    coord: Coordinator
    rooms: dict[str, Room]

    async def create_room(
        self,
        pl: Player,
        msg: p.CreateRoom,
        base_url: str,
        rename: str | None = None,
        quick: str | None = None,
    ) -> Room: ...


async def quick_match(hub: Hub, pl: Player, conn: Peer, msg: p.QuickMatch) -> None:
    if pl.room is not None:
        raise p.ProtocolError(
            p.Code.ALREADY_IN_ROOM, "leave your room before a quick match", "quick_match"
        )
    kind = f"{msg.variant}:{msg.seats}"
    coord = hub.coord
    for _attempt in range(3):
        code = await coord.quick_find(kind)
        if code is None:
            break
        if await _join_waiting(hub, pl, conn, kind, code):
            return
    create = p.CreateRoom(
        seats=msg.seats,
        rules={"variant": msg.variant},
        move_time=30,
        visibility="public",
        bot_level=3,
    )
    room = await hub.create_room(pl, create, conn.base_url, quick=kind)
    winner = await coord.quick_offer(kind, room.code)
    if winner != room.code:
        # Someone else's room became the waiting one meanwhile: go there instead.
        room.end_quick()
        room.remove_player(pl)
        await hub.coord.flushed(room)
        if await _join_waiting(hub, pl, conn, kind, winner):
            return
        raise p.ProtocolError(
            p.Code.UNAVAILABLE, "the quick match moved; try again", "quick_match", 1.0
        )
    log.event("quick_room", room=room.code, kind=kind)


async def _join_waiting(hub: Hub, pl: Player, conn: Peer, kind: str, code: str) -> bool:
    """Take a seat in the waiting room ``code`` (here or elsewhere); False if it
    no longer waits (it is forgotten then)."""
    room = hub.rooms.get(code)
    if room is not None:
        waiting = (
            not room.closed
            and room.quick == kind
            and room.state == "lobby"
            and any(room.free(s) for s in room.seats)
        )
        if waiting:
            room.add_player(pl, None)
            return True
        hub.coord.quick_done(kind, code)
        return False
    if await hub.coord.join_elsewhere(conn, pl, p.Join(room=code)):
        return True
    hub.coord.quick_done(kind, code)
    return False
