"""A token bucket: ``rate`` events a second on average, bursts of ``burst``.

Why here, with the rooms: the edge limits each connection's messages with it,
and rooms limit each person's quick phrases and reactions with it.
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

    def wait(self) -> float:
        """Seconds until the next event would be allowed (0: now)."""
        now = self.clock()
        tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        return 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.rate
