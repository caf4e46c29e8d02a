"""A socket held by another process, as the owner of a room sees it.

The owner's rooms send to players through :class:`~kozyr.server.tables.ports.Peer`;
for a player whose socket lives on another process that peer is a
:class:`RemoteConn`.  What it sends is queued in the :class:`Outbox` and
published, a batch per event-loop turn, on that one process's channel
(``kz:node:<id>``): a seat's private frame goes only to the process holding
that seat's socket, which hands it to that socket and no other.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec

from .. import protocol as p
from ..telemetry import log

#: Ids of remote peers are negative, so they never collide with local sockets' ids.
_ids = itertools.count(-1, -1)

#: One item on a process channel: ("f", conn, text, room, token) a frame for local socket
#: ``conn`` from ``room``'s owner holding fencing token ``token`` (room and token None for a
#: reply outside a room); ("x", conn, code, reason) close it; ("w", conn, room) the player on
#: it is now in ``room`` (None: in no room of another process); ("m", room, id, number,
#: entry) a copy of an entry just appended to ``room``'s inbox (published by the sender's
#: script, node.py ``_SEND``, to the room's owner).
Item = list[Any]


def node_channel(node: str) -> str:
    return f"kz:node:{node}"


class Outbox:
    """Frames and controls for other processes, published in batches.

    Why batches: one move at a four-seat table makes several frames; sending
    each as its own Redis command would cost a round trip apiece.  Items queue
    per destination and one task publishes everything queued so far in one
    pipeline, in order (a single flusher keeps the order of frames)."""

    def __init__(self, publish: Callable[[dict[str, list[Item]]], Awaitable[None]]) -> None:
        self._publish = publish
        self._items: dict[str, list[Item]] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="cluster-outbox")

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    def poke(self) -> None:
        """Flush soon even if nothing is queued (the publisher has other work)."""
        self._wake.set()

    def put(self, node: str, item: Item) -> None:
        self._items.setdefault(node, []).append(item)
        self._wake.set()

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._items = self._items, {}
            try:
                await self._publish(batch)
            except Exception as exc:  # Redis away: the frames are lost; clients resync
                log.warning("cluster_publish_failed", error=repr(exc), nodes=len(batch))


class InboxSender:
    """Inbox entries of this process's sockets (and room events), appended in batches.

    Why: each entry is one script call (number it, append it, copy it to the
    owner).  Sent one by one, a burst — a thousand people joining at once —
    needs as many Redis connections at the same moment, and the pool's waits
    ran into its timeout under load: those messages were answered
    ``unavailable``.  Queued, and sent in one pipeline per event-loop turn by a
    single task, a burst costs one connection and one round trip per batch,
    and entries keep the order they were sent in.  Each sender awaits its own
    entry's result (its stream id), or the error that refused it."""

    def __init__(self, call: Callable[[list[tuple[list[str], list[Any]]]], Awaitable[list[Any]]]):
        self._call = call
        self._queue: list[tuple[list[str], list[Any], asyncio.Future[Any]]] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="cluster-inbox-out")

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
        for _keys, _args, fut in self._queue:
            if not fut.done():
                fut.cancel()
        self._queue = []

    async def send(self, keys: list[str], args: list[Any]) -> Any:
        """Append one entry; its stream id (raises what refused it)."""
        return await self._queued(keys, args)

    def post(self, keys: list[str], args: list[Any]) -> None:
        """Append one entry without waiting for it (a failure is logged)."""
        self._queued(keys, args).add_done_callback(_log_failure)

    def _queued(self, keys: list[str], args: list[Any]) -> asyncio.Future[Any]:
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.append((keys, args, fut))
        self._wake.set()
        return fut

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._queue = self._queue, []
            if not batch:
                continue
            try:
                results = await self._call([(keys, args) for keys, args, _ in batch])
            except Exception as exc:  # Redis away: every sender hears it
                results = [exc] * len(batch)
            for (_keys, _args, fut), result in zip(batch, results, strict=True):
                if fut.done():
                    continue
                if isinstance(result, BaseException):
                    fut.set_exception(result)
                else:
                    fut.set_result(result)


def _log_failure(fut: asyncio.Future[Any]) -> None:
    if not fut.cancelled() and fut.exception() is not None:
        log.warning("cluster_post_failed", error=repr(fut.exception()))


class RemoteConn:
    """A socket on process ``node`` (its local id there is ``cid``)."""

    def __init__(
        self, outbox: Outbox, node: str, cid: int, address: str, base_url: str, player: Any
    ) -> None:
        self.id = next(_ids)
        self.node = node
        self.cid = cid
        self.address = address
        self.base_url = base_url
        self.player = player
        self.closed = False
        self._outbox = outbox

    def send(self, message: p.ServerMessage) -> None:
        self.send_raw(p.encode(message).decode())

    def send_raw(self, text: str) -> None:
        if not self.closed:
            room = getattr(self.player, "room", None)
            fence = None if room is None else room.fence
            if fence is None:
                self._outbox.put(self.node, ["f", self.cid, text, None, None])
            else:
                self._outbox.put(self.node, ["f", self.cid, text, fence.code, fence.token])

    def close(self, code: int, reason: str) -> None:
        if not self.closed:
            self.closed = True
            self._outbox.put(self.node, ["x", self.cid, code, reason])

    def where(self, room: str | None) -> None:
        """Tell the socket's process which room the player is in now."""
        self._outbox.put(self.node, ["w", self.cid, room])


def encode_batch(items: list[Item]) -> bytes:
    return msgspec.json.encode(items)


def decode_batch(data: bytes | str) -> list[Item]:
    items = msgspec.json.decode(data)
    if not isinstance(items, list):
        raise ValueError("a batch is a list")
    return items
