"""Flood control: a token bucket per connection, and per client address for HTTP.

Why: one noisy socket (or one address creating rooms in a loop) must not eat
the event loop that every other table shares.  The back-off for wrong
passphrases is room logic and lives with the rooms
(:mod:`kozyr.server.tables.passphrase`).
"""

from __future__ import annotations

import time
from collections.abc import Callable


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


class AddressBuckets:
    """A :class:`TokenBucket` per client address (HTTP requests).  Past
    ``max_keys`` addresses every bucket is forgotten at once: bounded memory."""

    def __init__(self, rate: float, burst: float, max_keys: int = 10_000) -> None:
        self.rate = rate
        self.burst = burst
        self.max_keys = max_keys
        self._buckets: dict[str, TokenBucket] = {}

    def allow(self, address: str) -> bool:
        bucket = self._buckets.get(address)
        if bucket is None:
            if len(self._buckets) > self.max_keys:
                self._buckets.clear()
            bucket = self._buckets[address] = TokenBucket(self.rate, self.burst)
        return bucket.allow()
