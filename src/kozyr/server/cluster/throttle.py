"""Wrong-passphrase back-off shared by every process of a cluster (in Redis).

The same rules as :class:`~kozyr.server.tables.passphrase.MemoryPassphraseThrottle`
(read its docstring first), with the two counters of an attempt — its room's
and its client address's — kept in Redis hashes instead of one process's
memory, so that a guesser spreading over rooms owned by different processes
meets one count per address, not one per process.

* Each counter is a hash ``kz:pp:room:<code>`` / ``kz:pp:addr:<address>`` with
  ``c`` (wrong passphrases in a row), ``u`` (no attempt until then) and ``b``
  (an attempt is being checked until then), times in milliseconds of the
  Redis server's clock (``TIME``): one clock for every process, whatever
  their own clocks say.
* ``begin`` and ``end`` are each one Lua script, so the check and the update
  of both counters happen at once for the whole cluster: two processes cannot
  both reserve the same room or address.
* Every write sets ``PEXPIRE`` to when the counter goes stale (``cap`` after
  its wait ran out, or when its reservation runs out): Redis forgets it by
  itself, and the scripts also treat a stale counter as absent, like the
  memory one does, whatever the expiry's timing.

If Redis cannot be reached, the throttle fails closed: ``begin`` refuses the
join with the retryable ``unavailable`` error (docs/architecture.md, "The
cluster", says why), and an ``end`` that cannot be recorded reports the
reservation's ``HOLD`` as the wait (the reservation stands in Redis until then).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

from .. import protocol as p
from ..tables.passphrase import MemoryPassphraseThrottle
from ..telemetry import log

#: Shared by the scripts: the time (the caller's test clock, or Redis's own),
#: and reading / writing one counter.
_COMMON = """
local function clock(given)
  if given ~= '' then return tonumber(given) end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function load(key, now, cap)
  local v = redis.call('HMGET', key, 'c', 'u', 'b')
  local c, u, b = tonumber(v[1]) or 0, tonumber(v[2]) or 0, tonumber(v[3]) or 0
  if math.max(u + cap, b) < now then
    -- Its wait ran out `cap` ago and nothing is being checked: a fresh start.
    if v[1] or v[2] or v[3] then redis.call('DEL', key) end
    return 0, 0, 0
  end
  return c, u, b
end
local function save(key, c, u, b, now, cap)
  redis.call('HSET', key, 'c', c, 'u', u, 'b', b)
  redis.call('PEXPIRE', key, math.max(1, math.max(u + cap, b) - now))
end
"""

#: KEYS: room, address.  ARGV: base, cap, hold (ms), now ('' for Redis TIME).
#: Returns 0 (reserved) or the milliseconds to wait (nothing reserved).
_BEGIN = (
    _COMMON
    + """
local base, cap, hold = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local now = clock(ARGV[4])
local wait, seen = 0, {}
for i, key in ipairs(KEYS) do
  local c, u, b = load(key, now, cap)
  seen[i] = {c, u}
  wait = math.max(wait, u - now)
  -- Another attempt is being checked: come back after the first back-off.
  if b > now then wait = math.max(wait, base) end
end
if wait > 0 then return wait end
for i, key in ipairs(KEYS) do
  save(key, seen[i][1], seen[i][2], now + hold, now, cap)
end
return 0
"""
)

#: KEYS: room, address.  ARGV: base, cap (ms), ok ('1' or '0'), now.
#: Returns the milliseconds the next attempt must wait (0 when ok).
_END = (
    _COMMON
    + """
local base, cap = tonumber(ARGV[1]), tonumber(ARGV[2])
local now = clock(ARGV[4])
if ARGV[3] == '1' then
  redis.call('DEL', KEYS[1])  -- the right passphrase clears the room's count
  local c, u = load(KEYS[2], now, cap)
  if c == 0 then redis.call('DEL', KEYS[2]) else save(KEYS[2], c, u, 0, now, cap) end
  return 0
end
local delay = 0
for _, key in ipairs(KEYS) do
  local c = load(key, now, cap) + 1
  local wait = math.min(cap, base * 2 ^ (c - 1))
  save(key, c, now + wait, 0, now, cap)
  delay = math.max(delay, wait)
end
return delay
"""
)


class RedisPassphraseThrottle:
    """:class:`~kozyr.server.tables.passphrase.PassphraseThrottle` in Redis (a cluster).

    ``clock`` (seconds) replaces Redis's ``TIME`` — for tests only, which step
    time by hand; ``warn`` logs a failure to reach Redis (the cluster passes
    its once-a-second warning)."""

    #: Longest a reserved attempt may take to be checked (as in memory).
    HOLD = MemoryPassphraseThrottle.HOLD

    def __init__(
        self,
        redis: Redis,
        base: float = 1.0,
        cap: float = 60.0,
        *,
        clock: Callable[[], float] | None = None,
        prefix: str = "kz:pp",
        warn: Callable[..., None] = log.warning,
    ) -> None:
        self.base_ms = round(base * 1000)
        self.cap_ms = round(cap * 1000)
        self.clock = clock
        self.prefix = prefix
        self.warn = warn
        self._begin = redis.register_script(_BEGIN)
        self._end = redis.register_script(_END)

    def _keys(self, room: str, address: str) -> list[str]:
        return [f"{self.prefix}:room:{room}", f"{self.prefix}:addr:{address}"]

    def _now(self) -> str:
        return "" if self.clock is None else str(round(self.clock() * 1000))

    async def begin(self, room: str, address: str) -> float:
        args: list[Any] = [self.base_ms, self.cap_ms, round(self.HOLD * 1000), self._now()]
        try:
            wait = await self._begin(keys=self._keys(room, address), args=args)
        except RedisError as exc:
            # Fail closed: no passphrase is checked without its count.
            self.warn("cluster_throttle_failed", error=repr(exc))
            raise p.ProtocolError(
                p.Code.UNAVAILABLE,
                "passphrases cannot be checked just now; send it again shortly",
                "join",
                1.0,
            ) from None
        return int(wait) / 1000

    async def end(self, room: str, address: str, ok: bool) -> float:
        args: list[Any] = [self.base_ms, self.cap_ms, "1" if ok else "0", self._now()]
        try:
            delay = await self._end(keys=self._keys(room, address), args=args)
        except RedisError as exc:
            # The reservation stays in Redis until it runs out: the wait there is.
            self.warn("cluster_throttle_failed", error=repr(exc))
            return 0.0 if ok else self.HOLD
        return int(delay) / 1000
