"""Cluster mode: three real ``kozyr serve --redis`` processes, a real Redis and a
real PostgreSQL (all started by the tests), real WebSocket clients spread over
the processes.  Every game's frames go through the leak check (no seat ever
sees a card it may not see), whichever process forwarded them."""

from __future__ import annotations

import asyncio
import json
import random
import time
from pathlib import Path
from typing import Any

import pytest

from kozyr.cli.replay import replay_json

from .harness import (
    Client,
    ServerProcess,
    _quiet,
    check_frames,
    http,
    play_out,
    run,
    shared,
)
from .services import Cluster, PgCluster, RedisServer
from .test_metrics import scrape


def _cards_total(frame: dict[str, Any]) -> int:
    view = frame["view"]
    table = [c for pair in view["table"] for c in pair.values() if c]
    hand_counts: list[int] = view["hand_counts"]
    discard: int = view["discard"]
    deck: int = view["deck"]
    return sum(hand_counts) + len(table) + discard + deck


def _check_record(cluster_pg: PgCluster, db: str, record: dict[str, Any], game_id: int) -> None:
    """The finished record replays, and the database holds each move once."""
    code, out = replay_json(json.dumps(record))
    assert code == 0 and out["state"]["result"] == record["result"]
    with cluster_pg.connect(db) as conn:
        rows = conn.execute(
            "SELECT idx FROM moves WHERE game_id = %s ORDER BY idx", (game_id,)
        ).fetchall()
    assert [r[0] for r in rows] == list(range(len(record["actions"])))


def _record(srv: ServerProcess, over: dict[str, Any]) -> dict[str, Any]:
    status, record = http("GET", srv.url + over["record"])
    assert status == 200, record
    return dict(record)


async def _game_across(
    cluster: Cluster, rng: random.Random, moves: int
) -> tuple[str, list[Client], dict[str, dict[str, Any]]]:
    """anna, boris and carl, on processes 0, 1 and 2, and a bot at a private
    four-seat table, ``moves`` moves into a game, a human to move: (the room's
    code, the three clients, their last game frames)."""
    s0, s1, s2 = cluster.servers
    anna = Client(s0.ws_url, "anna")
    boris, carl = Client(s1.ws_url, "boris"), Client(s2.ws_url, "carl")
    code = await anna.create_room(seats=4, visibility="private", move_time=None, bot_level=1)
    await boris.join(code)
    await carl.join(code)
    await anna.send({"type": "start"})
    await play_out([anna, boris, carl], rng, moves=moves)
    return code, [anna, boris, carl], await _quiet([anna, boris, carl], {0, 1, 2})


def test_whole_game_across_three_processes(pg: PgCluster, cluster: Cluster) -> None:
    s0, s1, s2 = cluster.servers
    since = [len(s.lines) for s in cluster.servers]

    async def scenario() -> None:
        rng = random.Random(3)
        anna = Client(s0.ws_url, "anna")
        boris, carl = Client(s1.ws_url, "boris"), Client(s2.ws_url, "carl")
        dana = Client(s1.ws_url, "dana")
        code = await anna.create_room(seats=4, move_time=60, bot_level=1)
        assert cluster.owners(code) == [0]
        # The lobby and the invite code work on every process.
        for s in (s1, s2):
            status, info = http("GET", f"{s.url}/api/rooms/{code}")
            assert status == 200 and info["code"] == code, info
            status, lobby = http("GET", f"{s.url}/api/rooms")
            assert code in [r["code"] for r in lobby["rooms"]]
        assert (await boris.join(code))["you"]["seat"] == 1
        assert (await carl.join(code))["you"]["seat"] == 2
        await anna.send({"type": "start"})
        for c in (anna, boris, carl):
            frame = await c.expect("game")
            assert frame["seat"] == c.seat and len(frame["view"]["hand"]) == 6
        spectate = await dana.join(code)
        assert spectate["you"]["spectator"]
        await play_out([anna, boris, carl], rng, timeout=90)
        over = anna.over[-1]
        for c in (boris, carl):
            assert shared(c.over[-1]) == shared(over)
        await dana.expect("game_over", timeout=20)
        record = _record(s2, over)
        assert check_frames([anna, boris, carl, dana], record) > 50
        _check_record(pg, cluster.db, record, over["game_id"])
        # Rematch, asked on process 0, dealt by the owner, seen on 1 and 2.
        await anna.send({"type": "rematch"})
        for c in (boris, carl):
            frame = await c.expect("game", game=over["game"] + 1)
            assert len(frame["view"]["hand"]) == 6
        for c in (anna, boris, carl, dana):
            await c.close()
        assert cluster.owners(code) == [0]

    run(scenario())
    cluster.check_logs()
    # Nobody lost the room on the way (a healthy owner keeps its lease).
    for s, n in zip(cluster.servers, since, strict=True):
        assert not [e for e in s.lines[n:] if e.get("event") in ("room_lost", "room_adopted")]


def test_http_room_refused_while_seated_in_a_room_of_another_process(cluster: Cluster) -> None:
    s0, s1, s2 = cluster.servers

    async def scenario() -> None:
        anna = Client(s0.ws_url, "anna")
        code = await anna.create_room(seats=2, visibility="private", move_time=None)
        assert cluster.owners(code) == [0]
        # Over HTTP on process 1, with anna's token: she already sits at a table.
        status, err = http("POST", s1.url + "/api/rooms", {"name": "anya", "token": anna.token})
        assert status == 409 and err["error"]["code"] == "already_in_room", err
        status, results = http(
            "GET", s2.url + "/api/me/results", headers={"authorization": f"Bearer {anna.token}"}
        )
        assert status == 200 and results["name"] == "anna"  # a refusal renames nobody
        # A reconnect through process 2 finds her seat (the seat index).
        back = Client(s2.ws_url, "anna")
        welcome = await back.connect(anna.token)
        assert welcome["resumed"] and welcome["room"] == code
        assert (await back.expect("room"))["you"]["seat"] == 0
        await back.send({"type": "leave"})
        await back.expect("left")
        # Out of her room, she may make one anywhere.
        status, made = http("POST", s1.url + "/api/rooms", {"name": "anya", "token": anna.token})
        assert status == 201 and made["room"]["seats"][0]["name"] == "anya", made
        assert cluster.owners(made["code"]) == [1]

    run(scenario())
    cluster.check_logs()


def test_refusal_of_a_forwarded_message_names_it(cluster: Cluster) -> None:
    """A message handled by the room's owner for a socket on another process is
    refused as on one process: the ``error`` names the message (``ref``)."""
    s0, s1, _s2 = cluster.servers

    async def scenario() -> None:
        anna, boris = Client(s0.ws_url, "anna"), Client(s1.ws_url, "boris")
        code = await anna.create_room(seats=2, visibility="private", move_time=None)
        assert cluster.owners(code) == [0]
        await boris.join(code)
        await boris.send({"type": "start"})  # only the host may start
        frame = await boris.expect("error")
        assert frame["code"] == "not_host" and frame["ref"] == "start", frame
        for c in (anna, boris):
            await c.close()

    run(scenario())
    cluster.check_logs()


def test_owner_killed_another_process_takes_over(
    pg: PgCluster,
    redis_server: RedisServer,
    tmp_path: Path,
) -> None:
    db, url = pg.fresh_database("kozyr_cluster_kill")
    cluster = Cluster(tmp_path, url, redis_server.new_url(), "--bot-delay", "0.02").start()
    s0, _s1, s2 = cluster.servers

    async def scenario() -> None:
        rng = random.Random(7)
        code, (anna, boris, carl), before = await _game_across(cluster, rng, moves=10)
        assert cluster.owners(code) == [0]

        killed = time.monotonic()
        s0.kill()
        await anna.close()
        new_owner = await asyncio.to_thread(cluster.wait_owner, code, 0, 10.0)
        took = time.monotonic() - killed
        assert took < 5.0, took
        taken = scrape(cluster.servers[new_owner].url)
        assert taken["kozyr_lease_takeovers_total"] == 1
        assert taken['kozyr_rooms{kind="owned"}'] == 1
        # Anna comes back through another process: same seat, same cards.
        back = Client(s2.ws_url, "anna")
        back.frames = list(anna.frames)
        welcome = await back.connect(anna.token)
        assert welcome["resumed"] and welcome["room"] == code
        room = await back.expect("room")
        assert room["you"]["seat"] == 0
        frames = {"anna": await back.expect("game")}
        for c in (boris, carl):  # their processes attach them to the new owner
            frames[c.name] = await c.expect("game", version=before[c.name]["version"])
        for name, frame in frames.items():
            assert frame["version"] == before[name]["version"]
            assert frame["view"]["hand"] == before[name]["view"]["hand"]
            assert _cards_total(frame) == 36
        hands = [card for f in frames.values() for card in f["view"]["hand"]]
        assert len(set(hands)) == len(hands)
        await play_out([back, boris, carl], rng, timeout=90)
        over = back.over[-1]
        record = _record(cluster.servers[new_owner], over)
        assert check_frames([back, boris, carl], record) > 30
        _check_record(pg, db, record, over["game_id"])
        for c in (back, boris, carl):
            await c.close()
        print(f"takeover after kill -9: {took:.2f} s")

    cluster.play(scenario(), tmp_path / "cluster.log")
    assert any(s.events("room_adopted") for s in cluster.servers[1:])


def test_stalled_owner_cannot_write_after_its_lease(
    pg: PgCluster,
    redis_server: RedisServer,
    tmp_path: Path,
) -> None:
    db, url = pg.fresh_database("kozyr_cluster_stop")
    # Bots wait a little, so the stalled owner may have a bot move pending when stopped.
    cluster = Cluster(tmp_path, url, redis_server.new_url(), "--bot-delay", "0.15").start()
    s0, s1, s2 = cluster.servers

    async def scenario() -> None:
        rng = random.Random(11)
        # The room is made over HTTP on process 0 (which owns it); its host
        # plays through process 1 with the token, a guest through process 2.
        status, made = http(
            "POST", s0.url + "/api/rooms",
            {"name": "anna", "seats": 3, "visibility": "private", "move_time": None,
             "bot_level": 1},
        )  # fmt: skip
        assert status == 201, made
        code = made["code"]
        anna, boris = Client(s1.ws_url, "anna"), Client(s2.ws_url, "boris")
        welcome = await anna.connect(made["token"])
        assert welcome["room"] == code
        await anna.expect("room")
        await boris.join(code)
        await anna.send({"type": "start"})
        await play_out([anna, boris], rng, moves=6)
        await _quiet([anna, boris], {0, 1})
        assert cluster.owners(code) == [0]
        # A human move hands the turn to the bot (seat 2): its move is pending on 0.
        frame = anna.game if anna.game and anna.game["legal"] else boris.game
        mover = anna if frame is anna.game else boris
        assert frame is not None
        await mover.send(
            {"type": "move", "action": rng.choice(frame["legal"]), "version": frame["version"]}
        )
        await mover.expect("event", version=frame["version"] + 1)
        s0.pause()
        stopped = time.monotonic()
        new_owner = await asyncio.to_thread(cluster.wait_owner, code, 0, 10.0)
        assert time.monotonic() - stopped < 5.0
        # The game goes on at the new owner while the old one is frozen.
        await play_out([anna, boris], rng, moves=4, timeout=30)
        s0.resume()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not s0.events("room_lost"):
            await asyncio.sleep(0.1)
        assert s0.events("room_lost"), s0.log_text()
        assert cluster.owners(code) == [new_owner]
        # Nothing the old owner did after waking up reached the database: every
        # move it applied is one the new owner loaded.  (Compared by version, not
        # by when the line shows up: a log line of a move made just before the
        # stop may be written by the logging thread only after SIGCONT.)
        (taken,) = [
            e for e in cluster.servers[new_owner].events("room_recovered") if e["room"] == code
        ]
        old_moves = [e["version"] for e in s0.events("move") if e["room"] == code]
        assert old_moves and max(old_moves) <= taken["version"], (old_moves, taken)
        await play_out([anna, boris], rng, timeout=90)
        over = anna.over[-1]
        record = _record(s1, over)
        assert check_frames([anna, boris], record) > 20
        _check_record(pg, db, record, over["game_id"])
        for c in (anna, boris):
            await c.close()

    cluster.play(scenario(), tmp_path / "cluster.log")


def test_redis_restarted_mid_game_play_continues(
    pg: PgCluster, redis_server: RedisServer, cluster: Cluster
) -> None:
    """On the shared cluster: its Redis (the session's) restarts, empty."""
    _s0, s1, s2 = cluster.servers

    async def scenario() -> None:
        rng = random.Random(5)
        code, (anna, boris, carl), _ = await _game_across(cluster, rng, moves=8)
        lena = Client(s2.ws_url, "lena")  # a public room waiting in the lobby
        waiting = await lena.create_room(seats=2, move_time=30)
        redis_server.kill()
        await asyncio.sleep(1.0)
        redis_server.start()  # same port, empty
        # Sockets on the other processes are resynced once those processes have
        # subscribed again (frames may have been lost meanwhile).
        for c in (boris, carl):
            await c.expect("game", timeout=20)
        # Its owner lists it in the lobby again once it has its lease back.
        deadline = time.monotonic() + 15
        listed: list[str] = []
        while waiting not in listed and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
            _status, lobby = http("GET", s1.url + "/api/rooms")
            listed = [r["code"] for r in lobby["rooms"]]
        assert waiting in listed
        await lena.close()
        await play_out([anna, boris, carl], rng, timeout=90)
        over = anna.over[-1]
        record = _record(s1, over)
        assert check_frames([anna, boris, carl], record) > 30
        _check_record(pg, cluster.db, record, over["game_id"])
        for c in (anna, boris, carl):
            await c.close()
        assert len(cluster.owners(code)) == 1

    run(scenario())
    cluster.check_logs()


def test_fencing_refuses_a_former_owners_writes(tmp_path: Path) -> None:
    """The store alone (SQLite here): after a takeover raised the token, every
    kind of write with the old token is refused and changes nothing."""
    from kozyr.server.storage.store import Fence, Fenced, Store

    async def scenario() -> None:
        old, new = Store(f"sqlite:///{tmp_path / 'f.db'}"), Store(f"sqlite:///{tmp_path / 'f.db'}")
        old.start()
        new.start()
        try:
            stale = Fence("room1", 1)
            old.save_room("room1", "playing", {"seats": []}, fence=stale)
            game = await old.create_game("room1", 1, 0, {"h": 1}, stale)
            await old.add_move(game, 0, {"seat": 0}, stale)
            claimed = await new.claim_room("room1")
            assert claimed is not None and claimed[0] == 2
            with pytest.raises(Fenced):
                await old.add_move(game, 1, {"seat": 1}, stale)
            with pytest.raises(Fenced):
                await old.create_game("room1", 2, 5, {"h": 2}, stale)
            with pytest.raises(Fenced):
                await old.finish_game(game, {"result": None}, "finished", [], stale)
            await new.add_move(game, 1, {"seat": 2}, Fence("room1", 2))
            loaded = await new.call(
                lambda conn: conn.exec_driver_sql(
                    "SELECT idx, action FROM moves ORDER BY idx"
                ).all()
            )
            assert [(i, json.loads(a)["seat"]) for i, a in loaded] == [(0, 0), (1, 2)]
            # The old owner's room row is refused too; /metrics counts each refusal.
            old.save_room("room1", "over", {"seats": []}, fence=stale)
            await old.call(lambda _conn: None)  # the queue is in order: the save ran
            assert (old.fenced, new.fenced) == (4, 0)
        finally:
            old.close()
            new.close()

    run(scenario())


def test_a_refused_fence_loses_only_its_own_moves_in_a_batch(tmp_path: Path) -> None:
    """Moves of several rooms committed together (the store's group commit):
    the room whose owner lost it gets ``Fenced`` and nothing stored, the
    others are stored, and each room's inbox position is kept with its moves.
    SQLite here (a fence check per room, then the rows)."""
    _refused_fence_in_a_batch(f"sqlite:///{tmp_path / 'b.db'}")


def test_a_refused_fence_loses_only_its_own_moves_in_a_batch_on_postgres(pg: PgCluster) -> None:
    """The same on PostgreSQL, where each fenced move is one statement (the
    fence check and the row together)."""
    _db, url = pg.fresh_database("kozyr_fence_batch")
    _refused_fence_in_a_batch(url)


def _refused_fence_in_a_batch(url: str) -> None:
    import threading

    from kozyr.server.storage.store import Fence, Fenced, Store

    async def scenario() -> None:
        store = Store(url)
        store.start()
        try:
            mine, lost = Fence("mine", 1, "5-0"), Fence("lost", 1, "7-0")
            for fence in (mine, lost):
                store.save_room(fence.code, "playing", {"seats": []}, fence=fence)
            games = [await store.create_game(f.code, 1, 0, {}, f) for f in (mine, lost)]
            assert await store.claim_room("lost") is not None  # token 2 elsewhere
            gate = threading.Event()
            held = asyncio.ensure_future(store.call(lambda _conn: gate.wait(10)))
            await asyncio.sleep(0.05)  # the store thread now waits at the gate
            mine.pos, lost.pos = "6-0", "8-0"
            writes = [
                asyncio.ensure_future(store.add_move(games[0], 0, {"seat": 0}, mine)),
                asyncio.ensure_future(store.add_move(games[1], 0, {"seat": 1}, lost)),
                asyncio.ensure_future(store.add_move(games[0], 1, {"seat": 2}, mine)),
            ]
            await asyncio.sleep(0.05)
            gate.set()  # the three moves run as one batch
            await held
            done = await asyncio.gather(*writes, return_exceptions=True)
            assert done[0] is None and done[2] is None
            assert isinstance(done[1], Fenced)
            rows = await store.call(
                lambda conn: conn.exec_driver_sql(
                    "SELECT game_id, idx FROM moves ORDER BY game_id, idx"
                ).all()
            )
            assert [tuple(r) for r in rows] == [(games[0], 0), (games[0], 1)]
            pos: dict[str, str] = await store.call(
                lambda conn: dict(conn.exec_driver_sql("SELECT code, inbox_pos FROM rooms").all())
            )
            assert pos == {"mine": "6-0", "lost": "7-0"}
            assert store.fenced == 1
        finally:
            store.close()

    run(scenario())


def test_seat_index_finds_a_players_open_room(tmp_path: Path) -> None:
    """``hello`` on any process finds the player's room through the indexed
    ``room_seats`` table, kept with every save of the room; a database from
    before that table gets it filled when the schema is brought up to date."""
    import sqlalchemy as sa

    from kozyr.server.storage.store import Store

    def seats(*keys: str | None) -> dict[str, Any]:
        return {"seats": [{"player": k, "name": "x"} if k else {"bot": 1} for k in keys]}

    url = f"sqlite:///{tmp_path / 's.db'}"

    async def scenario() -> None:
        store = Store(url)
        store.start()
        try:
            store.save_room("r1", "lobby", seats("aa", None, "bb"))
            store.save_room("r2", "lobby", seats("cc"))
            assert await store.room_of_player("aa") == "r1"
            assert await store.room_of_player("cc") == "r2"
            store.save_room("r1", "playing", seats("aa", None))  # bb left
            assert await store.room_of_player("bb") is None
            store.save_room("r1", "over", seats("aa", None), closed=True)
            assert await store.room_of_player("aa") is None
            assert await store.room_of_player("zz'%") is None  # any text is safe
        finally:
            store.close()

    run(scenario())
    # An older database (from before Alembic and the seat table): its rooms only.
    from kozyr.server.storage import baseline

    engine = sa.create_engine(url)
    with engine.connect() as conn:
        kept = conn.execute(sa.select(baseline.rooms.c.code, baseline.rooms.c.data)).all()
    engine.dispose()
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = sa.create_engine(url)
    tables = [t for t in baseline.metadata.sorted_tables if t.name != "room_seats"]
    baseline.metadata.create_all(engine, tables=tables)
    with engine.begin() as conn:
        for code, data in kept:
            conn.execute(baseline.rooms.insert().values(
                code=code, state="lobby", closed=False, data=data, updated_at=1.0,
            ))  # fmt: skip
    engine.dispose()

    async def migrated() -> None:
        store = Store(url)
        store.start()
        try:
            assert await store.room_of_player("aa") == "r1"
            assert await store.room_of_player("cc") == "r2"
        finally:
            store.close()

    run(migrated())


def test_inbox_entries_reach_the_worker_once_in_order() -> None:
    """An owner gets each inbox entry twice at most (a copy on its channel, and
    the stream when it reads it): each reaches the room's worker once, in
    order; a gap in the numbers (or an owner that does not know where it is
    yet) makes it read the stream, and numbers that start again after a Redis
    restart do not make it drop entries."""
    from types import SimpleNamespace

    from kozyr.server.cluster.node import ClusterNode, Owned
    from kozyr.server.storage.store import Fence

    node = ClusterNode(SimpleNamespace(), "redis://127.0.0.1:1/0")  # type: ignore[arg-type]
    o = node.owned["r1"] = Owned(Fence("r1", 1), "n:1", "0-0")

    def copy(eid: str, seq: int, data: str) -> bool:
        """Deliver a copy; True if it made the owner read the stream."""
        node._poked.clear()
        node._deliver(["m", "r1", eid, seq, data])
        return "r1" in node._poked

    assert copy("100-0", 5, "a")  # where it is not known yet: read the stream
    node._take_entry(o, "100-0", 5, "a")  # ... which has it
    assert not copy("100-0", 5, "a")  # the copy came late: already handed over
    assert not copy("101-0", 6, "b")  # the next number: taken from the copy
    assert copy("105-0", 8, "d")  # a gap (7 was lost): read the stream
    for eid, seq, data in (("101-0", 6, "b"), ("103-0", 7, "c"), ("105-0", 8, "d")):
        node._take_entry(o, eid, seq, data)  # the read started before the copy of 6
    assert copy("200-0", 1, "e")  # Redis restarted: numbers start again
    node._take_entry(o, "200-0", 1, "e")
    assert not copy("200-1", 2, "f")
    got = [o.queue.get_nowait() for _ in range(o.queue.qsize())]
    assert got == [
        ("100-0", "a"), ("101-0", "b"), ("103-0", "c"), ("105-0", "d"), ("200-0", "e"),
        ("200-1", "f"),
    ]  # fmt: skip
    assert (o.read_id, o.seq) == ("200-1", 2)


def test_inbox_entries_go_out_in_one_pipeline_per_turn() -> None:
    """A burst of sends costs one call (one Redis round trip, one connection),
    keeps its order, and hands each sender its own result or error."""
    from redis.exceptions import ConnectionError as RedisConnectionError

    from kozyr.server.cluster.remote import InboxSender

    calls: list[list[str]] = []

    async def call(entries: list[tuple[list[str], list[Any]]]) -> list[Any]:
        calls.append([args[0] for _keys, args in entries])
        if len(calls) == 2:
            raise RedisConnectionError("Redis is away")
        return [ValueError("refused") if a == "bad" else f"id-{a}" for _k, (a,) in entries]

    async def scenario() -> None:
        sender = InboxSender(call)
        sender.start()
        burst = [asyncio.ensure_future(sender.send(["k"], [a])) for a in ("a", "b", "bad", "c")]
        done = await asyncio.gather(*burst, return_exceptions=True)
        assert done[:2] == ["id-a", "id-b"] and done[3] == "id-c"
        assert isinstance(done[2], ValueError)
        away = await asyncio.gather(sender.send(["k"], ["d"]), return_exceptions=True)
        assert isinstance(away[0], RedisConnectionError)
        assert await sender.send(["k"], ["e"]) == "id-e"
        sender.stop()

    run(scenario())
    assert calls == [["a", "b", "bad", "c"], ["d"], ["e"]]
