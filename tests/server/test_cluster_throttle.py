"""The wrong-passphrase back-off shared through Redis (a real ``redis-server``,
started by the tests): the memory throttle's behaviour table, Redis's clock and
atomicity across clients (as across processes), failing closed without Redis,
and a guesser met by one count per address across two server processes."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis.asyncio import Redis

from kozyr.bench.localcluster import free_port
from kozyr.server.cluster.throttle import RedisPassphraseThrottle
from kozyr.server.protocol import ProtocolError

from .harness import Client, run
from .services import Cluster, PgCluster, RedisServer
from .test_hardening import _client_from
from .test_units import Clock, passphrase_backoff_table


@pytest.fixture(scope="module")
def redis_url(redis_server: RedisServer) -> Iterator[str]:
    """One Redis database for this module's unit tests (each uses its own key prefix)."""
    yield redis_server.new_url()


def test_redis_throttle_answers_like_the_memory_one(redis_url: str) -> None:
    async def scenario() -> None:
        clock = Clock()
        async with Redis.from_url(redis_url) as redis:
            t = RedisPassphraseThrottle(redis, base=1.0, cap=5.0, clock=clock, prefix="table")
            await passphrase_backoff_table(t, clock, RedisPassphraseThrottle.HOLD)

    run(scenario())


def _text(key: bytes | str) -> str:
    """A key as Redis answers it: bytes (the clients here do not decode)."""
    assert isinstance(key, bytes), key
    return key.decode()


def test_redis_throttle_is_one_count_for_every_client_on_redis_time(redis_url: str) -> None:
    """Two clients (as two processes) share the counts, on Redis's clock; ten
    attempts at once through both reserve one; Redis forgets stale counts."""

    async def scenario() -> None:
        async with Redis.from_url(redis_url) as r1, Redis.from_url(redis_url) as r2:
            t1 = RedisPassphraseThrottle(r1, base=0.2, cap=0.5, prefix="time")
            t2 = RedisPassphraseThrottle(r2, base=0.2, cap=0.5, prefix="time")
            assert await t1.begin("r", "a") == 0
            assert await t2.begin("s", "a") == 0.2  # "a" is being checked at t1
            assert await t1.end("r", "a", ok=False) == 0.2
            held = await t2.begin("s", "a")
            assert 0 < held <= 0.2
            await asyncio.sleep(held + 0.02)
            assert await t2.begin("s", "a") == 0
            assert await t2.end("s", "a", ok=False) == 0.4  # the address's second failure
            keys = sorted(_text(k) for k in await r1.keys("time:*"))
            assert keys == ["time:addr:a", "time:room:r", "time:room:s"]
            ttl = await r1.pttl("time:addr:a")
            assert 0 < ttl <= 900  # the wait, then `cap` more
            await asyncio.sleep(0.4 + 0.5 + 0.1)
            assert await r1.keys("time:*") == []  # stale: Redis forgot them by itself

            # Ten attempts from one address at once, through both clients: one is checked.
            waits = await asyncio.gather(
                *((t1, t2)[i % 2].begin(f"room{i}", "b") for i in range(10))
            )
            assert sorted(waits) == [0.0] + [0.2] * 9, waits

    run(scenario())


def test_redis_throttle_fails_closed_without_redis() -> None:
    """Redis unreachable: the attempt is refused unchecked with the retryable
    ``unavailable``; a failure that cannot be recorded costs the reservation's hold."""
    warnings: list[str] = []

    async def scenario() -> None:
        url = f"redis://127.0.0.1:{free_port()}/0"  # nobody listens there
        async with Redis.from_url(url, socket_connect_timeout=1) as redis:
            t = RedisPassphraseThrottle(redis, warn=lambda event, **_: warnings.append(event))
            with pytest.raises(ProtocolError) as refused:
                await t.begin("r", "a")
            err = refused.value
            assert (err.code, err.ref, err.retry_after) == ("unavailable", "join", 1.0)
            assert await t.end("r", "a", ok=False) == RedisPassphraseThrottle.HOLD
            assert await t.end("r", "a", ok=True) == 0.0

    run(scenario())
    assert warnings == ["cluster_throttle_failed"] * 3


def test_guesses_count_per_address_across_processes(
    pg: PgCluster, redis_server: RedisServer, tmp_path: Path
) -> None:
    """Private rooms owned by processes 0 and 1: a wrong guess at the room of
    process 0 makes the same address wait at the room of process 1 (each process
    checks its own rooms' passphrases), while another address may go in."""
    _db, url = pg.fresh_database("kozyr_cluster_throttle")
    cluster = Cluster(
        tmp_path, url, redis_server.new_url(), "--passphrase-backoff", "2", n=2
    ).start()
    s0, s1 = cluster.servers

    async def scenario() -> None:
        host_a, host_b = Client(s0.ws_url, "host a"), Client(s1.ws_url, "host b")
        room_a = await host_a.create_room(visibility="private", passphrase="alpha", move_time=None)
        room_b = await host_b.create_room(visibility="private", passphrase="beta", move_time=None)
        assert cluster.owners(room_a) == [0] and cluster.owners(room_b) == [1]
        on_a = await _client_from(s0.ws_url, "guesser", "127.0.5.1")
        on_b = await _client_from(s1.ws_url, "guesser too", "127.0.5.1")

        await on_a.send({"type": "join", "room": room_a, "passphrase": "wrong"})
        first = await on_a.expect("error")
        assert first["code"] == "wrong_passphrase" and first["retry_after"] == 2.0, first
        # Process 1 never saw that guess, yet the address waits there too (even
        # with the right passphrase: it is not checked).
        await on_b.send({"type": "join", "room": room_b, "passphrase": "beta"})
        held = await on_b.expect("error")
        assert held["code"] == "throttled" and 0 < held["retry_after"] <= 2.0, held
        assert held["ref"] == "join"
        # Room b's own count is untouched: another address goes in at once.
        friend = await _client_from(s1.ws_url, "friend", "127.0.5.2")
        assert (await friend.join(room_b, passphrase="beta"))["you"]["seat"] == 1
        # Once the wait ran out, the address's next failure is its second.
        await asyncio.sleep(held["retry_after"] + 0.1)
        await on_b.send({"type": "join", "room": room_b, "passphrase": "wrong"})
        second = await on_b.expect("error")
        assert second["code"] == "wrong_passphrase" and second["retry_after"] == 4.0, second
        for c in (host_a, host_b, on_a, on_b, friend):
            await c.close()

    cluster.play(scenario(), tmp_path / "cluster.log")
    for s in cluster.servers:
        assert not s.events("cluster_throttle_failed"), s.events("cluster_throttle_failed")
