"""Flood control: a token bucket per connection, and per client address for HTTP.

Why: one noisy socket (or one address creating rooms in a loop) must not eat
the event loop that every other table shares.  The back-off for wrong
passphrases is room logic and lives with the rooms
(:mod:`kozyr.server.tables.passphrase`).  The bucket itself lives with the rooms
(:mod:`kozyr.server.tables.limits`), which limit quick phrases with it too.
"""

from __future__ import annotations

from ..tables.limits import TokenBucket


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


__all__ = ["AddressBuckets", "TokenBucket"]
