"""One server process in a cluster: owns some rooms, holds some sockets.

docs/architecture.md ("The cluster") explains the design; in short:

* **Ownership.** A room lives in the memory of one process, its owner, which
  holds the lease ``kz:lease:<room>`` (value ``<node>:<token>``, renewed every
  quarter of the lease).  The fencing token comes from the database
  (:meth:`Store.claim_room` raises it by one per takeover) and every write of
  the room checks it in the same transaction, so a stalled former owner can
  never write once another has taken over; it drops the room when a write is
  refused or when it sees somebody else's lease.
* **Inbox.** Whatever a client on any process asks of a room is appended to
  the room's stream ``kz:in:<room>``; the owner reads the streams of its rooms
  in order, and stores how far it got (``rooms.inbox_pos``) with the room's
  writes, so a new owner goes on from there: nothing is lost, and a message
  handled twice is refused the second time (a move by its version).
* **Frames.** The owner sends each frame to the process holding that socket
  only, on that process's channel ``kz:node:<node>`` (see :mod:`.remote`).
* **Takeover.** Every process scans the open rooms (database) for a missing
  lease; one missing for a little while is taken (``SET NX``), loaded from the
  database, its timers and bots resumed.  Processes holding sockets of the
  room notice the new owner and attach their sockets to it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import secrets
import socket
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec
from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from .. import protocol as p
from ..storage.store import Fence, Fenced
from ..tables.lobby import listed
from ..tables.ports import Coordinator, Peer
from ..telemetry import log
from .remote import (
    InboxSender,
    Item,
    Outbox,
    RemoteConn,
    decode_batch,
    encode_batch,
    node_channel,
)
from .throttle import RedisPassphraseThrottle

if TYPE_CHECKING:
    from ..tables.lobby import Hub
    from ..tables.rooms import Room

#: For every lease in KEYS (our value for KEYS[i] is ARGV[i + 1], the lease's
#: length ARGV[1]): renew it (1), take it again if Redis lost it (2), or report
#: that somebody else holds it (0).  One call renews all of a process's rooms.
_RENEW = """
local out = {}
for i, key in ipairs(KEYS) do
  local v = redis.call('GET', key)
  local mine = ARGV[i + 1]
  if v == mine then redis.call('PEXPIRE', key, ARGV[1]) out[i] = 1
  elseif not v then redis.call('SET', key, mine, 'PX', ARGV[1]) out[i] = 2
  else out[i] = 0 end
end
return out
"""
#: Append entry ARGV[1] to room ARGV[3]'s inbox (KEYS[1]), numbered by the
#: room's counter (KEYS[3]), and hand a copy to the room's owner, named by the
#: lease (KEYS[2], ``<node>:<token>``), on its channel: an owner that has
#: handled the entry numbered one less takes it from there without reading the
#: stream; otherwise (a gap, or it has just become the owner) the copy makes it
#: read the stream.  The entry is appended whoever owns the room: a copy lost
#: (no owner just now, or an owner changing) costs only time, since an owner
#: reads every inbox of its rooms when it takes one over and once a second.
_SEND = """
local seq = redis.call('INCR', KEYS[3])
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 's', seq, 'd', ARGV[1])
local v = redis.call('GET', KEYS[2])
if v then
  local node = string.match(v, '^(.*):[^:]*$')
  if node then
    redis.call('PUBLISH', 'kz:node:' .. node, cjson.encode({{'m', ARGV[3], id, seq, ARGV[1]}}))
  end
end
return id
"""
#: Replace our value by another (or delete it, when ARGV[2] is empty).
_SWAP = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) return 1 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
"""

#: Hold role KEYS[1] for node ARGV[1] for ARGV[2] ms: renew it if it is ours,
#: take it if nobody holds it; 1 if ours now, 0 if another process holds it.
_ELECT = """
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if not v then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0
"""

INFO_KEY = "kz:info"
#: Room events of every process, for the program that follows them (one stream).
EVENTS_KEY = "kz:events"
#: How long a process waits for the owner's answer to an action for a person.
ACT_TIMEOUT = 5.0


def lease_key(code: str) -> str:
    return f"kz:lease:{code}"


def _text(value: bytes | str) -> str:
    """A Redis reply as text (the client answers bytes)."""
    return value.decode() if isinstance(value, bytes) else value


def quick_key(kind: str) -> str:
    """The code of the quick-match room of ``kind`` waiting for people."""
    return f"kz:quick:{kind}"


def role_key(role: str) -> str:
    return f"kz:role:{role}"


def inbox_key(code: str) -> str:
    return f"kz:in:{code}"


def _stream_id(eid: str) -> tuple[int, int]:
    """A stream entry id (``<ms>-<n>``) as numbers, to compare two."""
    ms, _, n = eid.partition("-")
    return int(ms), int(n or 0)


def seq_key(code: str) -> str:
    """The number of the last entry appended to the room's inbox."""
    return f"kz:seq:{code}"


@dataclass
class Owned:
    """A room this process owns."""

    fence: Fence
    #: The lease's value: ``<node>:<token>``.
    value: str
    #: The last stream id read (handed to the worker, maybe not handled yet).
    read_id: str
    #: The number of that entry (None: not known yet, the stream tells).
    seq: int | None = None
    queue: asyncio.Queue[tuple[str, bytes | str]] = field(default_factory=asyncio.Queue)
    worker: asyncio.Task[None] | None = None


class ClusterNode(Coordinator):
    """The :class:`~kozyr.server.tables.ports.Coordinator` of a process in a cluster."""

    def __init__(self, hub: Hub, url: str, lease: float = 2.0) -> None:
        super().__init__()
        self.hub = hub
        self.node: str = f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(2)}"
        self.lease = lease
        self.lease_ms = int(lease * 1000)
        # A blocking pool: a burst of requests (a thousand players joining at
        # once) waits for one of its connections instead of failing with
        # MaxConnectionsError, which left rooms without a lease.
        self.redis: Redis = Redis.from_pool(
            BlockingConnectionPool.from_url(
                url,
                max_connections=64,
                timeout=5,
                retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), 3),
                retry_on_error=[RedisConnectionError, RedisTimeoutError],
                socket_connect_timeout=2,
                socket_timeout=5,
                health_check_interval=2,
            )
        )
        self._renew = self.redis.register_script(_RENEW)
        self._swap = self.redis.register_script(_SWAP)
        self._send = self.redis.register_script(_SEND)
        self._elect = self.redis.register_script(_ELECT)
        #: Roles this process holds (``elect``), released when it stops.
        self.roles: set[str] = set()
        #: Each event reader's position in the stream (also kept in Redis).
        self._event_pos: dict[str, str] = {}
        self._replies = itertools.count(1)
        self.owned: dict[str, Owned] = {}
        #: Sockets of other processes, by (node, their id).
        self.remotes: dict[tuple[str, int], RemoteConn] = {}
        #: Local sockets whose player is in a room owned elsewhere: room code.
        self.attached: dict[Peer, str] = {}
        #: Local sockets by id (frames from other processes name them by id).
        self.local: dict[int, Peer] = {}
        self.owners_seen: dict[str, str] = {}
        #: Per room, the highest fencing token of a frame delivered to a local
        #: socket: frames with a lower one come from a former owner.
        self.epochs: dict[str, int] = {}
        self.missing_since: dict[str, float] = {}
        self.broken: set[str] = set()
        self.outbox = Outbox(self._publish)
        self.inbox_out = InboxSender(self._append_entries)
        self.events_out = InboxSender(self._add_events)
        self._dirty: set[str] = set()
        self._tasks: list[asyncio.Task[None]] = []
        self._warned: dict[str, float] = {}
        #: Owned rooms whose inbox has new entries (poked by their senders).
        self._poked: set[str] = set()
        self._inbox_ready = asyncio.Event()

    # ------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        deadline = time.monotonic() + 30
        while True:
            try:
                await self.redis.ping()
                break
            except RedisError as exc:
                if time.monotonic() > deadline:
                    raise
                self._warn("cluster_redis_unreachable", error=repr(exc))
                await asyncio.sleep(0.5)
        self.outbox.start()
        self.inbox_out.start()
        self.events_out.start()
        self._install_throttle()
        loop = asyncio.get_running_loop()
        for coro, name in (
            (self._inbox_loop(), "inbox"),
            (self._edge_loop(), "edge"),
            (self._renew_loop(), "renew"),
            (self._scan_loop(), "scan"),
            (self._watch_loop(), "watch"),
        ):
            self._tasks.append(loop.create_task(coro, name=f"cluster-{name}"))
        log.event("cluster_joined", node=self.node, lease=self.lease)

    async def stop(self) -> None:
        """Stop the loops and give up every lease (others take the rooms over at once)."""
        for task in self._tasks:
            task.cancel()
        self.outbox.stop()
        self.inbox_out.stop()
        self.events_out.stop()
        for o in self.owned.values():
            if o.worker is not None:
                o.worker.cancel()
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                for code, o in self.owned.items():
                    await self._swap(keys=[lease_key(code)], args=[o.value, "", 0], client=pipe)
                for role in self.roles:
                    await self._swap(keys=[role_key(role)], args=[self.node, "", 0], client=pipe)
                await pipe.execute()
        except RedisError as exc:
            log.warning("cluster_release_failed", error=repr(exc))
        await self.redis.aclose()

    def _install_throttle(self) -> None:
        """Wrong-passphrase counts in Redis: per address across every process."""
        config = self.hub.config
        self.hub.throttle = RedisPassphraseThrottle(
            self.redis, config.passphrase_backoff, config.passphrase_backoff_cap, warn=self._warn
        )

    def _warn(self, event: str, **fields: Any) -> None:
        """A warning at most once a second per kind (Redis down would flood the log)."""
        now = time.monotonic()
        if now - self._warned.get(event, 0.0) >= 1.0:
            self._warned[event] = now
            log.warning(event, **fields)

    # ------------------------------------------------------------ Coordinator hooks
    async def claim(self, room: Room) -> None:
        fence = Fence(room.code, 1, None, lambda: self._lost_code(room.code))
        room.fence = fence
        value = f"{self.node}:1"
        fence.valid_until = 0.0  # silent until the lease is surely ours
        sent = time.monotonic()
        try:
            if await self.redis.set(lease_key(room.code), value, px=self.lease_ms, nx=True):
                fence.valid_until = sent + self.lease
        except RedisError as exc:  # the renew loop takes the lease when Redis is back
            self._warn("cluster_lease_failed", error=repr(exc))
        self._own(room.code, fence, value, "0-0")

    async def created(self, room: Room) -> None:
        await self.flushed(room)

    async def flushed(self, room: Room) -> None:
        # The store's queue is first in, first out: once this no-op is done,
        # the room's saves queued so far are committed.
        await self.hub.store.call(lambda _conn: None)

    def room_changed(self, room: Room) -> None:
        self._dirty.add(room.code)
        self.outbox.poke()

    def room_closed(self, room: Room) -> None:
        o = self._disown(room.code)
        self._dirty.discard(room.code)
        self.hub.tasks.spawn(self._forget_room(room.code, o), f"forget-{room.code}")

    async def _forget_room(self, code: str, o: Owned | None) -> None:
        try:
            await self.redis.hdel(INFO_KEY, code)
            await self.redis.delete(inbox_key(code), seq_key(code))
            if o is not None:
                await self._swap(keys=[lease_key(code)], args=[o.value, "", 0])
        except RedisError as exc:
            self._warn("cluster_forget_failed", error=repr(exc))

    def lost(self, room: Room) -> None:
        """Another process owns the room now: drop it without writing anything;
        local sockets of its players attach to the new owner."""
        code = room.code
        if self.hub.rooms.get(code) is not room:
            return
        self._disown(code)
        room.shutdown()
        self.hub.rooms.pop(code, None)
        log.warning("room_lost", room=code, node=self.node)
        for pl in room.humans():
            pl.room = None
            conn = pl.conn
            if isinstance(conn, RemoteConn):  # its process attaches it to the new owner
                self.remotes.pop((conn.node, conn.cid), None)
                pl.conn = None
                self.hub.forget(pl)
            elif conn is not None:
                self.attached[conn] = code
                self.local[conn.id] = conn
                self.hub.tasks.spawn(self._reattach(code, conn), "reattach")

    def _lost_code(self, code: str) -> None:
        room = self.hub.rooms.get(code)
        if room is not None:
            self.lost(room)

    async def route(self, conn: Peer, msg: p.ClientMessage) -> bool:
        code = self.attached.get(conn)
        if code is None:
            return False
        data = msgspec.json.encode(msg).decode()
        try:
            await self._entry_out(code, "msg", conn, m=data)
        except RedisError as exc:
            self.hub.metrics.unavailable += 1
            self._warn("cluster_route_failed", room=code, error=repr(exc))
            raise p.ProtocolError(
                p.Code.UNAVAILABLE,
                "the room's server cannot be reached just now; send it again shortly",
                p.type_of(msg),
                1.0,
            ) from None
        return True

    async def room_elsewhere(self, key: str) -> str | None:
        code = await self.hub.store.room_of_player(key)
        return None if code is None or code in self.hub.rooms else code

    async def attach(self, conn: Peer, player: Any, code: str) -> None:
        self.local[conn.id] = conn
        self.attached[conn] = code
        try:
            await self._entry_out(code, "attach", conn)
        except RedisError as exc:  # the client's next message attaches it
            self._warn("cluster_attach_failed", error=repr(exc))

    async def join_elsewhere(self, conn: Peer, player: Any, msg: p.Join) -> bool:
        # The lease first: it exists from the moment the room is made, while
        # the room's row may still be queued for the database.
        try:
            leased = bool(await self.redis.exists(lease_key(msg.room)))
        except RedisError:
            leased = False
        if not leased and not await self.hub.store.room_is_open(msg.room):
            return False
        self.local[conn.id] = conn
        self.attached[conn] = msg.room
        await self.route(conn, msg)
        return True

    def conn_closed(self, conn: Peer) -> None:
        self.local.pop(conn.id, None)
        code = self.attached.pop(conn, None)
        if code is not None and conn.player is not None:
            self.hub.tasks.spawn(self._send_close(code, conn), "send-close")

    async def _send_close(self, code: str, conn: Peer) -> None:
        try:
            await self._entry_out(code, "close", conn)
        except RedisError as exc:  # the owner's grace timer never starts: the seat waits
            self._warn("cluster_close_failed", error=repr(exc))

    def attached_rooms(self) -> int:
        return len(set(self.attached.values()))

    def health(self, rooms: dict[str, Any]) -> dict[str, Any]:
        return {"node": self.node, "owned": sorted(self.owned), "attached": len(self.attached)}

    async def public_rooms(self, local: list[dict[str, Any]]) -> list[dict[str, Any]]:
        try:
            every = await self.redis.hgetall(INFO_KEY)
        except RedisError:
            return local
        out = []
        now = time.time()
        for raw in every.values():
            info = json.loads(raw)
            waiting = info.get("visibility") == "public" and info.get("state") == "lobby"
            if waiting and listed(info, now):
                out.append(info)
        return out

    async def room_info(self, code: str) -> dict[str, Any] | None:
        try:
            raw = await self.redis.hget(INFO_KEY, code)
        except RedisError:
            return None
        return None if raw is None else dict(json.loads(raw))

    # ------------------------------------------------------------ quick match
    async def quick_find(self, kind: str) -> str | None:
        value = await self.redis.get(quick_key(kind))
        return None if value is None else _text(value)

    async def quick_offer(self, kind: str, code: str) -> str:
        # The waiting room of a kind is whoever set it first; a crashed owner's
        # entry expires (a waiting room lasts --quick-wait seconds anyway).
        ttl = int(max(60.0, self.hub.config.quick_wait * 3) * 1000)
        if await self.redis.set(quick_key(kind), code, nx=True, px=ttl):
            return code
        return await self.quick_find(kind) or code

    def quick_done(self, kind: str, code: str) -> None:
        async def drop() -> None:
            try:
                await self._swap(keys=[quick_key(kind)], args=[code, "", 0])
            except RedisError as exc:
                self._warn("cluster_quick_failed", error=repr(exc))

        self.hub.tasks.spawn(drop(), "quick-done")

    # ------------------------------------------------------------ for programs
    async def elect(self, role: str) -> bool:
        try:
            mine = bool(await self._elect(keys=[role_key(role)], args=[self.node, self.lease_ms]))
        except RedisError as exc:
            self._warn("cluster_elect_failed", role=role, error=repr(exc))
            mine = False  # unsure: better nobody runs it for a moment than two
        if mine and role not in self.roles:
            log.event("role_taken", role=role, node=self.node)
        elif not mine and role in self.roles:
            log.warning("role_lost", role=role, node=self.node)
        (self.roles.add if mine else self.roles.discard)(role)
        return mine

    async def act(self, code: str, key: str, name: str, action: str) -> str | None:
        """Through the room's inbox, answered on a list the owner pushes to."""
        try:
            leased = bool(await self.redis.exists(lease_key(code)))
        except RedisError:
            leased = False
        if not leased and not await self.hub.store.room_is_open(code):
            return None
        reply = f"kz:reply:{self.node}:{next(self._replies)}"
        data = {"k": "act", "p": key, "nm": name, "act": action, "reply": reply, "r": code}
        try:
            await self.inbox_out.send(
                [inbox_key(code), lease_key(code), seq_key(code)],
                [msgspec.json.encode(data), 10_000, code],
            )
            got = await self.redis.blpop([reply], timeout=ACT_TIMEOUT)
        except RedisError as exc:
            self._warn("cluster_act_failed", room=code, error=repr(exc))
            got = None
        if got is None:
            raise p.ProtocolError(
                p.Code.UNAVAILABLE, "the room's server did not answer; try again", None, 1.0
            )
        return _text(got[1])

    async def _act_in(self, code: str, d: dict[str, Any]) -> None:
        """An action for a person, asked by another process: do it, answer it."""
        room = self.hub.rooms.get(code)
        answer: str | None = None
        if room is not None and not room.closed:
            try:
                answer = await self.hub.act_here(room, d["p"], d["nm"], d["act"])
            except ValueError as exc:  # an action this version does not know
                answer = f"refused:{exc}"
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.rpush(d["reply"], answer if answer is not None else "no_room")
                pipe.expire(d["reply"], int(ACT_TIMEOUT * 6))
                await pipe.execute()
        except RedisError as exc:
            self._warn("cluster_reply_failed", room=code, error=repr(exc))

    def publish_event(self, event: dict[str, Any]) -> None:
        self.events_out.post([EVENTS_KEY], [msgspec.json.encode(event)])

    async def _add_events(self, entries: list[tuple[list[str], list[Any]]]) -> list[Any]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for keys, (data,) in entries:
                pipe.xadd(keys[0], {"e": data}, maxlen=10_000, approximate=True)
            return list(await pipe.execute(raise_on_error=False))

    async def read_events(self, reader: str, timeout: float) -> list[dict[str, Any]]:
        pos_key = f"kz:events:pos:{reader}"
        pos = self._event_pos.get(reader)
        if pos is None:  # a new reader goes on where the last one stopped ...
            stored = await self.redis.get(pos_key)
            if stored is not None:
                pos = _text(stored)
            elif await self.redis.exists(EVENTS_KEY):  # ... or, the first, from now on
                info: Any = await self.redis.xinfo_stream(EVENTS_KEY)
                pos = _text(info["last-generated-id"])
            else:
                pos = "0-0"
        got: Any = await self.redis.xread({EVENTS_KEY: pos}, count=500, block=int(timeout * 1000))
        events: list[dict[str, Any]] = []
        for _key, entries in got or []:
            for eid, fields in entries:
                pos = _text(eid)
                events.append(msgspec.json.decode(fields[b"e"]))
        if self._event_pos.get(reader) != pos:
            self._event_pos[reader] = pos
            await self.redis.set(pos_key, pos)
        return events

    async def first_time(self, key: str, ttl: float) -> bool:
        return bool(await self.redis.set(f"kz:once:{key}", 1, nx=True, px=int(ttl * 1000)))

    # ------------------------------------------------------------ sending
    async def _entry_out(self, code: str, kind: str, conn: Peer, **extra: Any) -> None:
        """Append a message of local socket ``conn`` to room ``code``'s inbox."""
        pl = conn.player
        data = {
            "k": kind,
            "n": self.node,
            "c": conn.id,
            "p": pl.key,
            "nm": pl.name,
            # A bot account's key (docs/bot-api.md): the owner tags its seat.
            "ac": pl.account,
            "a": conn.address,
            "b": conn.base_url,
            "r": code,
            **extra,
        }
        await self.inbox_out.send(
            [inbox_key(code), lease_key(code), seq_key(code)],
            [msgspec.json.encode(data), 10_000, code],
        )

    async def _append_entries(self, entries: list[tuple[list[str], list[Any]]]) -> list[Any]:
        """Append a batch of inbox entries in one pipeline (:class:`InboxSender`);
        each entry's result, or the error that refused it."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for keys, args in entries:
                await self._send(keys=keys, args=args, client=pipe)
            return list(await pipe.execute(raise_on_error=False))

    def _current(self, items: list[Item]) -> list[Item]:
        """``items`` without the frames of rooms this process no longer owns
        under the token they were made with, or cannot be sure it still owns:
        a stalled owner's queued frames never leave it after its lease ran out
        (the room resyncs everyone if the lease turns out to be still ours)."""
        kept = []
        for item in items:
            if item[0] == "f" and item[3] is not None:
                o = self.owned.get(item[3])
                if o is None or o.fence.token != item[4] or o.fence.silent():
                    self.hub.metrics.frames_stale += 1
                    continue
            kept.append(item)
        return kept

    async def _publish(self, batch: dict[str, list[Item]]) -> None:
        dirty, self._dirty = self._dirty, set()
        async with self.redis.pipeline(transaction=False) as pipe:
            for node, queued in batch.items():
                items = self._current(queued)
                if not items:
                    continue
                pipe.publish(node_channel(node), encode_batch(items))
                self.hub.metrics.frames_published += sum(1 for item in items if item[0] == "f")
            for code in dirty:
                room = self.hub.rooms.get(code)
                if room is not None and not room.closed:
                    pipe.hset(INFO_KEY, code, msgspec.json.encode(room.info()))
            await pipe.execute()

    # ------------------------------------------------------------ owning
    def _own(self, code: str, fence: Fence, value: str, read_id: str) -> None:
        o = Owned(fence, value, read_id)
        self.owned[code] = o
        o.worker = asyncio.get_running_loop().create_task(self._work(code, o), name=f"room-{code}")
        self._poke(code)  # what was sent to the room before it was ours

    def _disown(self, code: str) -> Owned | None:
        o = self.owned.pop(code, None)
        if o is not None and o.worker is not None and o.worker is not asyncio.current_task():
            o.worker.cancel()
        return o

    def _poke(self, code: str) -> None:
        """Have the inbox loop read room ``code``'s inbox."""
        self._poked.add(code)
        self._inbox_ready.set()

    async def _take(self, code: str) -> None:
        """Take over a room whose owner is gone."""
        key, pending = lease_key(code), f"{self.node}:0"
        if not await self.redis.set(key, pending, px=self.lease_ms, nx=True):
            return
        claimed = await self.hub.store.claim_room(code)
        if claimed is None:
            await self._swap(keys=[key], args=[pending, "", 0])
            return
        token, pos, data = claimed
        value = f"{self.node}:{token}"
        sent = time.monotonic()
        if not await self._swap(keys=[key], args=[pending, value, self.lease_ms]):
            return  # our lease ran out while claiming: somebody else goes on
        fence = Fence(code, token, pos, lambda: self._lost_code(code))
        fence.valid_until = sent + self.lease
        room = await self.hub.load_room(code, data, fence)
        if room is None:
            self.broken.add(code)
            await self._swap(keys=[key], args=[value, "", 0])
            return
        self._own(code, fence, value, pos or "0-0")
        self.hub.metrics.takeovers += 1
        log.event("room_adopted", room=code, node=self.node, token=token, pos=pos)
        self._relink(code)

    def _relink(self, code: str) -> None:
        """Local sockets that were attached to the room's old owner are ours now."""
        room = self.hub.rooms.get(code)
        if room is None:
            return
        for conn, c in list(self.attached.items()):
            if c != code:
                continue
            del self.attached[conn]
            pl = conn.player
            if pl is not None and (pl.room is room or pl.room is None):
                pl.conn = conn
                room.rejoin(pl)

    async def _work(self, code: str, o: Owned) -> None:
        """Handle the room's inbox in order (one worker per room)."""
        while self.owned.get(code) is o:
            eid, raw = await o.queue.get()
            try:
                await self._entry_in(code, raw)
            except Fenced:
                self._lost_code(code)
                return
            except Exception as exc:
                log.error("cluster_entry_failed", room=code, error=repr(exc))
            o.fence.pos = eid

    async def _entry_in(self, code: str, raw: bytes | str) -> None:
        d = msgspec.json.decode(raw)
        if d["k"] == "act":
            await self._act_in(code, d)
            return
        peer = self._peer(d)
        if peer is None:
            return
        kind = d["k"]
        if kind == "close":
            self._peer_closed(peer)
            return
        if not isinstance(peer, RemoteConn):
            self.attached.pop(peer, None)  # a local socket: its room is here now
        pl = peer.player
        if kind == "attach":
            self._attach(peer, code, bool(d.get("j")))
        elif kind == "msg":
            if pl.conn is None:
                # The socket's first word here (a takeover happened before it
                # attached again, or a newcomer's ``join``): it becomes the
                # player's socket, and a seated player is back.  Nobody joins
                # the room this way: a ``join`` goes through its checks
                # (passphrase, seat) like any other.
                self._attach(peer, code, False)
            elif pl.conn is not peer:
                return  # a socket replaced by a newer one of the same player
            await self.hub.handle_text(peer, d["m"])
        now = pl.room.code if pl.room is not None else None
        if isinstance(peer, RemoteConn):
            if now != d.get("r"):
                peer.where(now)
        elif now is not None and now not in self.hub.rooms:
            self.attached[peer] = now

    def _peer(self, d: dict[str, Any]) -> Peer | None:
        node, cid = d["n"], int(d["c"])
        if node == self.node:
            conn = self.local.get(cid)
            return conn if conn is not None and conn.player is not None else None
        rc = self.remotes.get((node, cid))
        if rc is None:
            if d["k"] == "close":
                return None
            pl = self.hub._player(d["p"], d["nm"])
            if d.get("ac"):
                pl.account = d["ac"]
            rc = RemoteConn(self.outbox, node, cid, d["a"], d["b"], pl)
            self.remotes[(node, cid)] = rc
        return rc

    def _attach(self, peer: Peer, code: str, rejoin: bool) -> None:
        """``peer`` is the player's socket now (the second half of ``hello``)."""
        pl = peer.player
        old = pl.conn
        if old is not None and old is not peer:
            old.send(p.Error(code=p.Code.REPLACED, message="you connected from somewhere else"))
            old.player = None
            old.close(1000, "replaced by a newer connection")
            if isinstance(old, RemoteConn):
                self.remotes.pop((old.node, old.cid), None)
        pl.conn = peer
        room = self.hub.rooms.get(code)
        if pl.room is not None:
            pl.room.reconnected(pl)
        elif room is not None and rejoin:
            room.rejoin(pl)

    def _peer_closed(self, peer: Peer) -> None:
        if isinstance(peer, RemoteConn):
            self.remotes.pop((peer.node, peer.cid), None)
            peer.closed = True
        pl = peer.player
        if pl is None or pl.conn is not peer:
            return
        pl.conn = None
        if pl.room is not None:
            pl.room.disconnected(pl)
        if pl.room is None:
            self.hub.forget(pl)

    # ------------------------------------------------------------ loops
    async def _inbox_loop(self) -> None:
        """Read the inboxes of owned rooms that were poked (every owned room's
        once a second, in case a poke was lost); each room's worker handles its own.

        Why pokes rather than one blocking XREAD of every owned inbox: that read
        names all of them each time it returns, so its cost grew with the rooms
        owned times the moves made (a fifth of a busy process's CPU with 250
        rooms); a poke names the one room that has something new."""
        swept = time.monotonic()
        while True:
            if not self._poked:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(max(0.0, swept + 1.0 - time.monotonic())):
                        await self._inbox_ready.wait()
            self._inbox_ready.clear()
            codes, self._poked = self._poked, set()
            if time.monotonic() - swept >= 1.0:
                swept = time.monotonic()
                codes.update(self.owned)
            streams: dict[Any, Any] = {}
            for code in codes:
                o = self.owned.get(code)
                if o is not None:
                    streams[inbox_key(code)] = o.read_id
            if not streams:
                continue
            try:
                got: Any = await self.redis.xread(streams, count=500)
            except RedisError as exc:
                self._warn("cluster_inbox_failed", error=repr(exc))
                self._poked.update(codes)
                await asyncio.sleep(0.3)
                continue
            for key, entries in got or []:
                code = key.decode()[6:]
                owned = self.owned.get(code)
                if owned is None:
                    continue
                for eid, fields in entries:
                    seq = fields.get(b"s")
                    self._take_entry(
                        owned, eid.decode(), None if seq is None else int(seq), fields[b"d"]
                    )
                if len(entries) == 500:  # more to come
                    self._poked.add(code)

    @staticmethod
    def _take_entry(o: Owned, eid: str, seq: int | None, data: bytes | str) -> None:
        """Hand an inbox entry to the room's worker, unless it was handed already
        (an entry may come both as a copy on the channel and from the stream;
        stream ids only grow, while the numbers start again if Redis restarts)."""
        if _stream_id(eid) <= _stream_id(o.read_id):
            return
        o.seq, o.read_id = seq, eid
        o.queue.put_nowait((eid, data))

    async def _edge_loop(self) -> None:
        """Receive frames and controls for this process's sockets."""
        channel = node_channel(self.node)
        first = True
        while True:
            pubsub = self.redis.pubsub()
            try:
                await pubsub.subscribe(channel)
                while True:
                    msg = await pubsub.get_message(timeout=1.0)
                    if msg is None:
                        continue
                    if msg["type"] == "subscribe":
                        if not first:  # frames and pokes may have been lost meanwhile
                            self._reattach_all()
                            for code in self.owned:
                                self._poke(code)
                        first = False
                    elif msg["type"] == "message":
                        for item in decode_batch(msg["data"]):
                            self._deliver(item)
            except (RedisError, OSError) as exc:
                self._warn("cluster_channel_failed", error=repr(exc))
                await asyncio.sleep(0.3)
            finally:
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]

    def _deliver(self, item: Item) -> None:
        kind = item[0]
        if kind == "m":  # a copy of an inbox entry of a room (node.py ``_SEND``)
            code, eid, seq, data = item[1], item[2], int(item[3]), item[4]
            o = self.owned.get(code)
            if o is None:
                return
            if o.seq is not None and seq == o.seq + 1:
                self._take_entry(o, eid, seq, data)
            elif _stream_id(eid) > _stream_id(o.read_id):  # a gap, or we are not sure
                self._poke(code)
            return
        conn = self.local.get(int(item[1]))
        if conn is None:
            return
        if kind == "f":
            code, token = item[3], item[4]
            if code is not None:
                # A lower fencing token than one already delivered: a former
                # owner's frame, come late (it stalled); never shown.
                if token < self.epochs.get(code, 0):
                    self.hub.metrics.frames_stale += 1
                    return
                self.epochs[code] = token
            self.hub.metrics.frames_received += 1
            conn.send_raw(item[2])
        elif kind == "x":
            pl = conn.player
            self.attached.pop(conn, None)
            if pl is not None and pl.conn is conn:
                pl.conn = None
                self.hub.forget(pl)
            conn.player = None
            conn.close(int(item[2]), str(item[3]))
        elif kind == "w":
            room = item[2]
            if room is None or room in self.hub.rooms:
                self.attached.pop(conn, None)
            else:
                self.attached[conn] = room

    def _reattach_all(self) -> None:
        for conn, code in list(self.attached.items()):
            self.hub.tasks.spawn(self._reattach(code, conn), "reattach")

    async def _reattach(self, code: str, conn: Peer) -> None:
        if conn.player is None:
            return
        try:
            await self._entry_out(code, "attach", conn, j=1)
        except RedisError as exc:
            self._warn("cluster_attach_failed", error=repr(exc))

    async def _renew_loop(self) -> None:
        while True:
            await asyncio.sleep(self.lease / 4)
            items = list(self.owned.items())
            if not items:
                continue
            sent = time.monotonic()
            try:
                results = await self._renew(
                    keys=[lease_key(code) for code, _ in items],
                    args=[self.lease_ms, *(o.value for _, o in items)],
                )
            except RedisError as exc:
                self._warn("cluster_renew_failed", error=repr(exc))
                continue
            for (code, o), res in zip(items, results, strict=True):
                if self.owned.get(code) is not o:
                    continue
                if res == 0:
                    self._lost_code(code)
                    continue
                quiet = o.fence.stale(sent) or o.fence.muted
                o.fence.valid_until = sent + self.lease
                if quiet:  # it went quiet while unsure of its lease: catch up
                    o.fence.muted = False
                    self._resync(code)
                if res == 2:  # Redis restarted empty: the lobby list lost the room too
                    log.event("lease_retaken", room=code, node=self.node)
                    self._dirty.add(code)
                    self.outbox.poke()

    def _resync(self, code: str) -> None:
        """Send everyone in the room the whole table again (frames were held
        back while this process could not be sure it still owned the room)."""
        room = self.hub.rooms.get(code)
        if room is None or room.closed:
            return
        log.event("room_resync", room=code, node=self.node)
        for pl in room.watchers():
            room.resync(pl)

    async def _scan_loop(self) -> None:
        """Adopt rooms that nobody owns (their owner died, or shut down)."""
        while True:
            await asyncio.sleep(min(0.5, self.lease / 4))
            try:
                await self._scan()
            except (RedisError, OSError) as exc:
                self._warn("cluster_scan_failed", error=repr(exc))
            except Exception as exc:
                log.error("cluster_scan_error", error=repr(exc))

    async def _scan(self) -> None:
        codes = [
            c
            for c in await self.hub.store.open_room_codes()
            if c not in self.owned and c not in self.broken
        ]
        if not codes:
            return
        values = await self.redis.mget([lease_key(c) for c in codes])
        now = time.monotonic()
        seen = set()
        for code, value in zip(codes, values, strict=True):
            seen.add(code)
            if value is not None:
                self.missing_since.pop(code, None)
                continue
            # Missing for a while, not just between a restarted Redis and the
            # owner's next renewal: take it.
            first = self.missing_since.setdefault(code, now)
            if now - first >= min(0.5, self.lease / 4):
                self.missing_since.pop(code, None)
                await self._take(code)
        for code in list(self.missing_since):
            if code not in seen:
                del self.missing_since[code]

    async def _watch_loop(self) -> None:
        """Notice a new owner of a room our sockets are attached to, and attach
        them to it (which resyncs the clients)."""
        while True:
            await asyncio.sleep(0.3)
            codes = sorted(set(self.attached.values()))
            for code in [c for c in self.epochs if c not in self.attached.values()]:
                del self.epochs[code]  # no socket here is in that room any more
            if not codes:
                continue
            try:
                values: list[Any] = await self.redis.mget([lease_key(c) for c in codes])
            except RedisError as exc:
                self._warn("cluster_watch_failed", error=repr(exc))
                continue
            for code, value in zip(codes, values, strict=True):
                if value is None:
                    continue
                owner = value.decode().rsplit(":", 1)[0]
                before = self.owners_seen.get(code)
                self.owners_seen[code] = owner
                if before is None or before == owner:
                    continue
                if owner == self.node:
                    self._relink(code)
                else:
                    for conn, c in list(self.attached.items()):
                        if c == code:
                            self.hub.tasks.spawn(self._reattach(code, conn), "reattach")
