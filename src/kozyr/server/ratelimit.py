"""Flood control per connection and back-off for wrong passphrases.

Why both: a token bucket keeps one noisy socket from eating the event loop
that every other table shares, and the passphrase back-off makes guessing a
private room's passphrase slow per address and room (doubling waits) while
leaving honest typos nearly free (the first retry waits one second).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field


class TokenBucket:
    """``rate`` messages per second on average, bursts of up to ``burst``."""

    __slots__ = ("burst", "clock", "last", "rate", "tokens", "violations")

    def __init__(
        self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.clock = clock
        self.last = clock()
        #: Messages refused so far; the connection is closed past a threshold.
        self.violations = 0

    def allow(self) -> bool:
        """Take one token if there is one; count a violation otherwise."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        self.violations += 1
        return False


@dataclass
class _Failures:
    count: int = 0
    until: float = 0.0


@dataclass
class PassphraseThrottle:
    """Per (client address, room) exponential back-off after wrong passphrases.

    After the n-th consecutive failure further attempts are refused for
    ``base * 2**(n-1)`` seconds (at most ``cap``); a right passphrase clears the
    count.  Refused attempts are not checked at all, so they cannot be used to
    guess faster.
    """

    base: float = 1.0
    cap: float = 60.0
    clock: Callable[[], float] = time.monotonic
    _seen: dict[tuple[str, str], _Failures] = field(default_factory=dict)

    def wait(self, address: str, room: str) -> float:
        """Seconds this address must still wait before trying this room (0: go)."""
        f = self._seen.get((address, room))
        if f is None:
            return 0.0
        return max(0.0, f.until - self.clock())

    def failed(self, address: str, room: str) -> float:
        """Record a wrong passphrase; return the wait now imposed."""
        f = self._seen.setdefault((address, room), _Failures())
        f.count += 1
        delay = min(self.cap, self.base * 2.0 ** (f.count - 1))
        f.until = self.clock() + delay
        if len(self._seen) > 50_000:
            self.prune()
        return delay

    def succeeded(self, address: str, room: str) -> None:
        self._seen.pop((address, room), None)

    def prune(self) -> None:
        """Forget entries whose wait ran out long ago (bounded memory)."""
        now = self.clock()
        stale = [k for k, f in self._seen.items() if f.until + self.cap < now]
        for k in stale:
            del self._seen[k]
