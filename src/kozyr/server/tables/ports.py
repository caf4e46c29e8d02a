"""The seams between the server's layers, as small interfaces.

Why this module: the layers stack ``connection`` < ``rooms`` < ``lobby`` (the
hub) < ``cluster`` < ``app``, and a lower layer must never import a higher one.
A room needs a few of the hub's services and a way to send to a player's
socket; a hub needs to ask "is this room elsewhere?" in cluster mode.  Those
needs are the protocols below, so each layer imports only this module
(and the layers under it), never the one above.

:class:`Coordinator` is also the single-process implementation: every room
is here, nothing is forwarded.  :mod:`kozyr.server.cluster` subclasses it.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any, Protocol

from .. import protocol as p

if TYPE_CHECKING:
    from ..config import ServerConfig
    from ..storage.store import Store
    from ..telemetry.metrics import Metrics
    from .bot_pool import BotPool
    from .timers import Tasks


class Peer(Protocol):
    """Where a player's frames go: a local socket (:class:`~.connection.Connection`)
    or, in cluster mode, a socket held by another process."""

    id: int
    address: str
    base_url: str
    #: The :class:`~.rooms.Player` on this socket after ``hello`` (typed loosely:
    #: this module sits below ``rooms``).
    player: Any
    closed: bool

    def send(self, message: p.ServerMessage) -> None: ...

    def send_raw(self, text: str) -> None: ...

    def close(self, code: int, reason: str) -> None: ...


class RoomHost(Protocol):
    """What a room uses of the hub that holds it."""

    config: ServerConfig
    store: Store
    pool: BotPool
    tasks: Tasks
    coord: Coordinator
    moves: int
    metrics: Metrics

    def close_room(self, room: Any, why: str) -> None: ...

    def forget(self, pl: Any) -> None: ...

    def emit(self, event: dict[str, Any]) -> None: ...


class Coordinator:
    """Where rooms live.  This base class is one process on its own: every room
    is local, so each hook does nothing (the server behaves as it always did)."""

    #: This process's id in a cluster (None: a process on its own).
    node: str | None = None
    #: One process on its own: room events wait here for their reader.
    _events: asyncio.Queue[dict[str, Any]] | None = None

    def __init__(self) -> None:
        self._seen: dict[str, float] = {}
        self._quick: dict[str, str] = {}

    async def claim(self, room: Any) -> None:
        """A room was just created here: become its owner before it is stored."""

    async def created(self, room: Any) -> None:
        """The new room is queued for storage (a cluster waits until it is stored,
        so any process can find it by its code or its players at once)."""

    async def flushed(self, room: Any) -> None:
        """Wait until the room's queued writes are stored (a cluster, so that
        other processes read them: after ``left``, the seat is free everywhere)."""

    def room_changed(self, room: Any) -> None:
        """The room's settings, seats or state changed (already queued for storage)."""

    def room_closed(self, room: Any) -> None:
        """The room closed for good."""

    def lost(self, room: Any) -> None:
        """A write of the room was refused: another process owns it now."""

    async def route(self, conn: Peer, msg: p.ClientMessage) -> bool:
        """Send ``msg`` to the room's owner if that is another process (True)."""
        return False

    async def room_elsewhere(self, key: str) -> str | None:
        """At ``hello``: the room (code) where player ``key`` has a seat, when no
        room of this process has them."""
        return None

    async def attach(self, conn: Peer, player: Any, code: str) -> None:
        """After ``welcome``: tell the owner of room ``code`` that ``player`` is
        on ``conn`` now."""

    async def join_elsewhere(self, conn: Peer, player: Any, msg: p.Join) -> bool:
        """``join`` of a room that is not here: forward it if it exists elsewhere."""
        return False

    def conn_closed(self, conn: Peer) -> None:
        """A local socket closed."""

    async def public_rooms(self, local: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The lobby list: ``local`` (this process's public rooms) on one process."""
        return local

    async def room_info(self, code: str) -> dict[str, Any] | None:
        """A room that is not here, by invite code (None: no such room)."""
        return None

    def attached_rooms(self) -> int:
        """Rooms owned by other processes that local sockets are in."""
        return 0

    def health(self, rooms: dict[str, Any]) -> dict[str, Any]:
        """Extra fields of ``/health``: which rooms this process owns."""
        return {"owned": sorted(rooms)}

    # -------------------------------------------- quick match (tables/quick.py)
    async def quick_find(self, kind: str) -> str | None:
        """The code of the quick-match room of ``kind`` waiting for people, if any."""
        return self._quick.get(kind)

    async def quick_offer(self, kind: str, code: str) -> str:
        """Make ``code`` the waiting room of ``kind`` unless one is already: the
        waiting room's code (``code`` if it won)."""
        return self._quick.setdefault(kind, code)

    def quick_done(self, kind: str, code: str) -> None:
        """``code`` no longer waits (it started or closed)."""
        if self._quick.get(kind) == code:
            del self._quick[kind]

    # -------------------------------------------- for programs built on the server
    # (kozyr.telegram's bot: one process of a cluster runs it, for every room)
    async def elect(self, role: str) -> bool:
        """Should this process run ``role`` now?  Asked again every few tenths
        of a second: a cluster elects one process per role and moves the role on
        when that process dies.  One process on its own always runs it."""
        return True

    async def act(self, code: str, key: str, name: str, action: str) -> str | None:
        """Do ``action`` for the person ``key`` in room ``code`` owned by another
        process (:mod:`.on_behalf`); its answer, or None: no such room."""
        return None

    def publish_event(self, event: dict[str, Any]) -> None:
        """A room event for whoever follows them (:meth:`read_events`): here, in
        this process's memory; a cluster puts it where every process reads."""
        if self._events is None:
            self._events = asyncio.Queue(maxsize=10_000)
        if not self._events.full():
            self._events.put_nowait(event)

    async def read_events(self, reader: str, timeout: float) -> list[dict[str, Any]]:
        """The room events since ``reader`` last read (waiting up to ``timeout``
        seconds for one).  A cluster keeps each reader's position, so the next
        process elected for the role goes on where the last one stopped."""
        if self._events is None:
            self._events = asyncio.Queue(maxsize=10_000)
        try:
            first = await asyncio.wait_for(self._events.get(), timeout)
        except TimeoutError:
            return []
        out = [first]
        while not self._events.empty():
            out.append(self._events.get_nowait())
        return out

    async def first_time(self, key: str, ttl: float) -> bool:
        """True the first time ``key`` is asked about within ``ttl`` seconds,
        across every process (e.g. a Telegram update: handled once)."""
        now = time.monotonic()
        seen = self._seen
        if len(seen) > 100_000:
            for k in [k for k, until in seen.items() if until < now]:
                del seen[k]
        if seen.get(key, 0.0) > now:
            return False
        seen[key] = now + ttl
        return True
