"""Back-off for wrong passphrases of private rooms.

Why: it makes guessing a private room's passphrase slow per room and per
address (doubling waits, one attempt checked at a time) while leaving honest
typos nearly free (the first retry waits one second).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol


@dataclass
class _Failures:
    count: int = 0
    until: float = 0.0
    #: An attempt is being checked until then (a deadline, not a flag, so that
    #: a reservation whose end never came cannot lock the room for good).
    busy_until: float = 0.0


class PassphraseThrottle(Protocol):
    """Back-off for wrong passphrases, shared by every connection (and, in a
    cluster, every process): the interface the hub uses.

    An attempt is *reserved* with :meth:`begin` before the passphrase is
    checked and *ended* with :meth:`end`; while it is reserved, other attempts
    on the same room or from the same address are refused.  That reservation is
    what makes ten sockets guessing at once count as ten guesses in a row, not
    as ten first guesses.  :class:`MemoryPassphraseThrottle` keeps the counts in
    this process; a cluster swaps in
    :class:`~kozyr.server.cluster.throttle.RedisPassphraseThrottle` (counters
    with an expiry in Redis, updated atomically by Lua scripts), so that the
    limits hold across processes.  :meth:`begin` may raise a
    :class:`~kozyr.server.protocol.ProtocolError` instead (e.g. ``unavailable``:
    the counts cannot be reached), which refuses the join unchecked.
    """

    async def begin(self, room: str, address: str) -> float:
        """0.0: the attempt is reserved and must be ended with :meth:`end`.
        Otherwise the seconds to wait; nothing was reserved (do not check)."""
        ...

    async def end(self, room: str, address: str, ok: bool) -> float:
        """End a reserved attempt: ``ok`` if the passphrase was right.  Returns
        the wait now imposed on the next attempt (0.0 when ``ok``)."""
        ...


@dataclass
class MemoryPassphraseThrottle:
    """:class:`PassphraseThrottle` in this process's memory (one server process).

    Two counters of wrong passphrases in a row, each with its own exponential
    back-off: one per room (every address together: many addresses cannot
    guess faster than one) and one per client address (one address cannot
    guess faster by spreading over many rooms).  After the n-th failure a
    counter refuses attempts for ``base * 2**(n-1)`` seconds (at most
    ``cap``); an attempt must pass both.  A right passphrase clears the room's
    counter; an address's counter is forgotten ``cap`` seconds after its wait
    ran out (so a known passphrase elsewhere cannot reset it).  Refused
    attempts are not checked at all, so they cannot be used to guess faster.
    """

    base: float = 1.0
    cap: float = 60.0
    clock: Callable[[], float] = time.monotonic
    _seen: dict[str, _Failures] = field(default_factory=dict)

    @staticmethod
    def _keys(room: str, address: str) -> tuple[str, str]:
        return f"room:{room}", f"address:{address}"

    #: Longest a reserved attempt may take to be checked.
    HOLD = 10.0

    def _stale(self, f: _Failures, now: float) -> bool:
        """Its wait ran out ``cap`` seconds ago and no attempt is being checked."""
        return max(f.until + self.cap, f.busy_until) < now

    def _get(self, key: str) -> _Failures | None:
        f = self._seen.get(key)
        if f is not None and self._stale(f, self.clock()):
            del self._seen[key]  # its wait ran out long ago: a fresh start
            return None
        return f

    def wait(self, room: str, address: str) -> float:
        """Seconds before the next attempt may be checked (0: go ahead)."""
        now = self.clock()
        wait = 0.0
        for key in self._keys(room, address):
            f = self._get(key)
            if f is not None:
                # Another attempt is being checked: come back after the first back-off.
                wait = max(wait, f.until - now, self.base if f.busy_until > now else 0.0)
        return wait

    async def begin(self, room: str, address: str) -> float:
        wait = self.wait(room, address)
        if wait > 0:
            return wait
        for key in self._keys(room, address):
            self._seen.setdefault(key, _Failures()).busy_until = self.clock() + self.HOLD
        return 0.0

    async def end(self, room: str, address: str, ok: bool) -> float:
        room_key, address_key = self._keys(room, address)
        if ok:
            self._seen.pop(room_key, None)
            f = self._seen.get(address_key)
            if f is not None:
                f.busy_until = 0.0
                if f.count == 0:
                    del self._seen[address_key]
            return 0.0
        delay = 0.0
        for key in (room_key, address_key):
            f = self._seen.setdefault(key, _Failures())
            f.busy_until = 0.0
            f.count += 1
            wait = min(self.cap, self.base * 2.0 ** (f.count - 1))
            f.until = self.clock() + wait
            delay = max(delay, wait)
        if len(self._seen) > 50_000:
            self.prune()
        return delay

    def prune(self) -> None:
        """Forget entries whose wait ran out long ago (bounded memory)."""
        now = self.clock()
        stale = [k for k, f in self._seen.items() if self._stale(f, now)]
        for k in stale:
            del self._seen[k]
