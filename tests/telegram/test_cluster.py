"""Telegram in a cluster (issue 24): three ``kozyr telegram --redis`` processes
against a local fake Bot API.  Exactly one runs the bot; when it is killed
(kill -9) another takes the role within a few seconds; a group's table made
before the kill has its result posted once; no update is handled twice; and
the table outlives a restart of every process."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import random
import threading
import time
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest

from ..server.harness import Client, play_out
from ..server.services import PgCluster, RedisServer
from .conftest import TelegramServer, init_data, login
from .fake_api import FakeBotAPI, group, user
from .test_bot import buttons

LEASE = "1.5"


@pytest.fixture(autouse=True)
def _collect_here() -> Iterator[None]:
    """Sockets a failed start leaves behind are collected in this module's
    teardown, so their warning names the test that left them, not a later one."""
    yield
    gc.collect()


class TelegramCluster:
    """Three bot-and-server processes on one Redis and one PostgreSQL."""

    def __init__(self, tmp: Path, api: FakeBotAPI, db_url: str, redis_url: str) -> None:
        args = ("--redis", redis_url, "--lease", LEASE, "--rate", "200", "--burst", "200")
        self.servers = [
            TelegramServer(tmp / f"unused{i}.db", api.root, *args, db_url=db_url) for i in range(3)
        ]

    def start(self, which: list[int] | None = None) -> None:
        errors: list[BaseException] = []

        def go(s: TelegramServer) -> None:
            try:
                s.start()
            except BaseException as exc:
                errors.append(exc)

        chosen = [self.servers[i] for i in (which if which is not None else range(3))]
        threads = [threading.Thread(target=go, args=(s,)) for s in chosen]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]

    def stop(self) -> None:
        for s in self.servers:
            s.stop()

    def leaders(self, since: list[int]) -> list[int]:
        """Processes that became the bot's leader after log line ``since[i]``."""
        return [
            i
            for i, s in enumerate(self.servers)
            if any(e.get("event") == "telegram_leader" for e in s.lines[since[i] :])
        ]

    def wait_leader(self, since: list[int], timeout: float = 15.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.leaders(since)
            if found:
                assert len(found) == 1, f"two leaders: {found}"
                return found[0]
            time.sleep(0.05)
        raise AssertionError("no process took the bot's role")

    def marks(self) -> list[int]:
        return [len(s.lines) for s in self.servers]

    def handled_updates(self) -> list[int]:
        return [int(e["update"]) for s in self.servers for e in s.events("telegram_update")]


def results_posted(api: FakeBotAPI, chat: int) -> list[str]:
    return [
        str(p["text"])
        for p in api.calls_to("sendMessage")
        if str(p.get("chat_id")) == str(chat) and "окончена" in p["text"]
    ]


async def play_some(clients: list[Client], moves: int) -> None:
    await play_out(clients, random.Random(moves), moves=moves, timeout=60)


async def reconnect_all(clients: list[Client], cluster: TelegramCluster) -> None:
    """Every client reconnects (with its token) to a live process, in turn."""
    live = [s for s in cluster.servers if s.alive()]
    for i, c in enumerate(clients):
        with contextlib.suppress(Exception):
            await c.close()
        c.url = live[i % len(live)].ws_url
        welcome = await c.connect(c.token)
        assert welcome["resumed"] and welcome["room"], welcome


async def scenario(
    api: FakeBotAPI, cluster: TelegramCluster, clients: list[Client], code: str, leader: int
) -> float:
    """Play, kill the leader, finish; rematch, restart everything, finish.
    Returns how long the bot's role took to move after the kill."""
    wait = asyncio.to_thread
    for c in clients:
        assert (await c.connect(c.token))["room"] == code
    await play_some(clients, 6)

    # Updates handed out but whose reading Telegram never heard of, then the
    # leader dies: the next one gets them again and must not handle them twice.
    api.lose_confirmations = True
    ids = [api.message(user(7200 + n, f"Guest{n}"), "/rules") for n in range(3)]
    deadline = time.monotonic() + 15
    while not all(api.handed.get(u, 0) >= 1 for u in ids):
        assert time.monotonic() < deadline, api.handed
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    since = cluster.marks()
    killed_at = time.monotonic()
    await wait(cluster.servers[leader].kill)
    new_leader = await wait(cluster.wait_leader, since)
    took = time.monotonic() - killed_at
    assert new_leader != leader and took < 8.0, took
    deadline = time.monotonic() + 10
    while not all(api.handed.get(u, 0) >= 2 for u in ids):  # met again by the new leader
        assert time.monotonic() < deadline, api.handed
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    api.lose_confirmations = False
    assert any(s.events("telegram_update_skipped") for s in cluster.servers)

    await reconnect_all(clients, cluster)
    await play_out(clients, random.Random(3), timeout=120)
    over = clients[0].over[-1]
    word = "ничья" if over["durak"] is None else "дурак"
    posted = await wait(api.wait_sent, -100900, word, 30)
    assert "Masha" in posted["text"]

    # A rematch, then every process restarts mid-game: the table is in the
    # database, so the next bot posts game 2's result too.
    # Whoever holds the host role now (it passes on if the host was away too long).
    host = next(c for c in clients if c.room and c.room["seats"][c.seat]["host"])
    await host.send({"type": "rematch"})
    for c in clients:
        await c.expect("game", game=over["game"] + 1)
    await play_some(clients, 4)
    for c in clients:
        await c.close()
    await wait(cluster.servers[leader].start)  # the killed one comes back first
    await wait(cluster.stop)
    since = cluster.marks()
    await wait(cluster.start)
    await wait(cluster.wait_leader, since)
    await reconnect_all(clients, cluster)
    await play_out(clients, random.Random(4), timeout=120)
    for c in clients:
        await c.close()
    deadline = time.monotonic() + 30
    while len(results_posted(api, -100900)) < 2:
        assert time.monotonic() < deadline, results_posted(api, -100900)
        await asyncio.sleep(0.1)
    await asyncio.sleep(2.0)  # nothing more comes
    assert len(results_posted(api, -100900)) == 2  # once per game
    handled = cluster.handled_updates()
    assert len(handled) == len(set(handled)), sorted(handled)  # no update twice
    return took


async def closing(clients: list[Client], run: Coroutine[Any, Any, float]) -> float:
    """``run``, then the clients' sockets closed even if it failed (an open
    socket of a finished loop would warn in whatever test runs next)."""
    try:
        return await run
    finally:
        for c in clients:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(c.close(), 5)


def test_one_bot_for_the_cluster_takes_over_and_posts_each_result_once(
    pg: PgCluster, redis_server: RedisServer, tmp_path: Path
) -> None:
    pytest.importorskip("aiogram", reason="the bot needs the telegram extra: run ./setup")
    api = FakeBotAPI("7000001:TEST-token-for-the-fake-api").up()
    _db, url = pg.fresh_database("kozyr_tg_cluster")
    cluster = TelegramCluster(tmp_path, api, url, redis_server.new_url())
    try:
        cluster.start()
        leader = cluster.wait_leader([0, 0, 0])
        time.sleep(1.0)
        assert cluster.leaders([0, 0, 0]) == [leader]  # one, and it stays one

        # A group table, filled with one tap: the game starts by itself.
        chat = group(-100900, "Cluster club")
        masha, petya = user(7101, "Masha", "ru"), user(7102, "Petya", "ru")
        api.message(masha, "/durak 2", chat)
        table = api.wait_sent(-100900, "Игроков: 2")
        code = buttons(table)[0]["callback_data"][2:]
        message = {"message_id": 999, "date": 0, "chat": chat, "text": table["text"]}
        api.callback(petya, f"j:{code}", message)
        api.wait_for(lambda m, p: m == "answerCallbackQuery" and "Место ваше" in p.get("text", ""))
        api.wait_for(
            lambda m, p: m == "editMessageText" and "игра идёт" in p.get("text", ""), what="playing"
        )

        # Both open the Mini App on processes other than the leader's.
        others = [i for i in range(3) if i != leader]
        clients = []
        for u, i in zip((masha, petya), others, strict=True):
            srv = cluster.servers[i]
            c = Client(srv.ws_url, u["first_name"])
            c.token = login(srv, init_data(u))[1]["token"]
            clients.append(c)
        took = asyncio.run(closing(clients, scenario(api, cluster, clients, code, leader)))
        print(f"bot role taken over {took:.2f} s after kill -9")
    finally:
        cluster.stop()
        api.down()
    for s in cluster.servers:
        assert not s.events("internal_error"), s.events("internal_error")
        assert not s.events("telegram_watch_failed"), s.events("telegram_watch_failed")
