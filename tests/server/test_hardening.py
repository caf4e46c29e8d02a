"""What an outside probe of the server found (issue 15, "Server hardening"):
each case against the real server process, with the answer docs/protocol.md
promises and nothing at error level in the server's log."""

from __future__ import annotations

import asyncio
import http.client
import json
import random
import signal
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from kozyr.server.edge.run import ws_frame_limit

from .harness import Client, ServerProcess, play_out, run
from .harness import http as get


def _errors_logged(server: ServerProcess, since: int) -> list[dict[str, Any]]:
    """Log lines at error level (or not JSON at all) written after line ``since``."""
    return [
        line
        for line in server.lines[since:]
        if line.get("level") in ("error", "critical") or line.get("event") == "raw"
    ]


async def _error(c: Client, code: str, ref: str | None = None) -> dict[str, Any]:
    frame = await c.expect("error", timeout=10)
    assert frame["code"] == code, frame
    assert frame["message"]
    if ref is not None:
        assert frame["ref"] == ref, frame
    return frame


async def _client_from(url: str, name: str, address: str) -> Client:
    """A client whose socket comes from ``address`` (any 127.x.y.z is loopback)."""
    c = Client(url, name)
    c.ws = await connect(url, local_addr=(address, 0), max_queue=None, open_timeout=10)
    await c.send({"type": "hello", "name": name})
    c.token = (await c.expect("welcome"))["token"]
    return c


def _post(url: str, body: bytes | dict[str, Any], address: str) -> tuple[int, Any]:
    """POST ``body`` from ``address`` (room creation is limited per address, so
    each test that posts a lot uses an address of its own)."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(
        parts.hostname or "", parts.port, timeout=10, source_address=(address, 0)
    )
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    try:
        conn.request("POST", parts.path, raw, {"content-type": "application/json"})
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read())
    finally:
        conn.close()


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


# ---------------------------------------------------------------- HTTP
def test_game_ids_out_of_range_are_json_404s(server: ServerProcess) -> None:
    since = len(server.lines)
    for bad in (
        str(2**63),
        str(2**63 + 1),
        "9" * 40,
        "9" * 5000,  # past Python's int-from-string limit
        "0",
        "-1",
        "-9223372036854775809",
        "abc",
        "1e3",
        "%F0%9F%82%A1",
    ):
        status, body = get("GET", f"{server.url}/api/games/{bad}")
        assert status == 404, (bad, status, body)
        assert body["error"]["code"] == "no_such_game", body
    status, body = get("GET", f"{server.url}/api/games/{2**63 - 1}")
    assert status == 404 and body["error"]["code"] == "no_such_game"
    assert server.alive()
    assert not _errors_logged(server, since), _errors_logged(server, since)


def test_unknown_paths_and_methods_get_the_json_error_body(server: ServerProcess) -> None:
    since = len(server.lines)
    for path in ("/nope", "/api/nope", "/api/games", "/api/rooms/a/b"):
        status, body = get("GET", server.url + path)
        assert status == 404, (path, body)
        assert body["error"]["code"] == "not_found" and path in body["error"]["message"]
    for method, path in (("DELETE", "/api/rooms"), ("PUT", "/api/rooms"), ("POST", "/health")):
        req = urllib.request.Request(server.url + path, method=method)
        try:
            urllib.request.urlopen(req, timeout=10)
            raise AssertionError(f"{method} {path} was accepted")
        except urllib.error.HTTPError as exc:
            assert exc.code == 405, (method, path)
            body = json.loads(exc.read())
            assert body["error"]["code"] == "method_not_allowed", body
            assert exc.headers["allow"], exc.headers  # which methods would do
    assert not _errors_logged(server, since), _errors_logged(server, since)


def test_http_bodies_bad_json_invalid_too_big_and_deep(server: ServerProcess) -> None:
    url = server.url + "/api/rooms"
    for raw in (b"not json", b'{"name": "anna"', b"\xff\xfe", b""):
        status, body = _post(url, raw, "127.0.4.1")
        assert status == 400 and body["error"]["code"] == "bad_json", (raw, body)
    for raw in (b"[1, 2]", b'{"name": 5}', b'{"name": "anna", "admin": true}'):
        status, body = _post(url, raw, "127.0.4.1")
        assert status == 400 and body["error"]["code"] == "invalid_message", (raw, body)
    deep = f'{{"name": "anna", "rules": {{"x": {_nested(1000)}}}}}'.encode()
    status, body = _post(url, deep, "127.0.4.1")
    assert status == 400 and body["error"]["code"] == "invalid_message", body
    assert "nested" in body["error"]["message"]
    status, body = _post(url, {"name": "anna", "pad": "x" * 9000}, "127.0.4.1")
    assert status == 413 and body["error"]["code"] == "too_big", body
    status, body = _post(url, {"name": "n" * 65, "seats": 2}, "127.0.4.1")
    assert status == 400 and body["error"]["code"] == "bad_name", body
    assert server.alive()
    assert not server.events("internal_error")


def test_refused_room_creation_keeps_the_players_name(server: ServerProcess) -> None:
    """POST /api/rooms answers 409 to a host who is already in a room, and the
    name in that refused request is not taken."""
    status, made = _post(
        server.url + "/api/rooms",
        {"name": "first", "seats": 2, "visibility": "private", "move_time": None},
        "127.0.4.2",
    )
    assert status == 201, made
    token, code = made["token"], made["code"]
    status, refused = _post(
        server.url + "/api/rooms", {"name": "second", "token": token, "seats": 3}, "127.0.4.2"
    )
    assert status == 409 and refused["error"]["code"] == "already_in_room", refused
    status, info = get("GET", f"{server.url}/api/rooms/{code}")
    assert status == 200 and info["host_name"] == "first", info
    status, me = get(
        "GET", server.url + "/api/me/results", headers={"Authorization": f"Bearer {token}"}
    )
    assert status == 200 and me["name"] == "first", me

    async def scenario() -> None:  # the host's own socket sees the same name
        c = Client(server.ws_url, "first")
        welcome = await c.connect(token)
        assert welcome["resumed"] and welcome["room"] == code
        room = await c.expect("room")
        assert room["room"]["seats"][0]["name"] == "first"
        await c.send({"type": "leave"})
        await c.expect("left")
        await c.close()

    run(scenario())


# ---------------------------------------------------------------- passphrases
def test_passphrase_guesses_at_once_are_throttled_together(server: ServerProcess) -> None:
    """Ten sockets guessing at the same moment count as guesses in a row: one is
    checked, nine are refused unchecked; from one address or from ten.  (Each
    test here uses addresses of its own: the address counter spans rooms.)"""

    async def guess_all(code: str, clients: list[Client]) -> list[dict[str, Any]]:
        await asyncio.gather(
            *(
                c.send({"type": "join", "room": code, "passphrase": f"guess {i}"})
                for i, c in enumerate(clients)
            )
        )
        return list(await asyncio.gather(*(c.expect("error") for c in clients)))

    async def scenario() -> None:
        host = Client(server.ws_url, "host")
        code = await host.create_room(
            visibility="private", passphrase="open sesame", move_time=None
        )
        logged = len(server.events("wrong_passphrase"))
        one = [await _client_from(server.ws_url, f"g{i}", "127.0.1.1") for i in range(10)]
        answers = await guess_all(code, one)
        codes = sorted(a["code"] for a in answers)
        assert codes == ["throttled"] * 9 + ["wrong_passphrase"], answers
        assert all(a["ref"] == "join" and a["retry_after"] > 0 for a in answers)
        await asyncio.sleep(max(a["retry_after"] for a in answers) + 0.1)

        many = [await _client_from(server.ws_url, f"m{i}", f"127.0.2.{i + 1}") for i in range(10)]
        answers = await guess_all(code, many)
        codes = sorted(a["code"] for a in answers)
        assert codes == ["throttled"] * 9 + ["wrong_passphrase"], answers
        await asyncio.sleep(0.3)
        assert len(server.events("wrong_passphrase")) == logged + 2

        # The room's back-off holds for a new address too, even with the right
        # passphrase (it is not checked); once it ran out, the right one gets in.
        friend = await _client_from(server.ws_url, "friend", "127.0.3.1")
        await friend.send({"type": "join", "room": code, "passphrase": "open sesame"})
        held = await _error(friend, "throttled", "join")
        await asyncio.sleep(held["retry_after"] + 0.1)
        room = await friend.join(code, passphrase="open sesame")
        assert room["you"]["seat"] == 1
        # The first address still waits (0.4, then 0.8 s): its count spans rooms.
        other = Client(server.ws_url, "host2")
        other_code = await other.create_room(
            visibility="private", passphrase="another", move_time=None
        )
        await one[0].send({"type": "join", "room": other_code, "passphrase": "guess"})
        frame = await one[0].expect("error")
        assert frame["code"] in ("throttled", "wrong_passphrase"), frame
        if frame["code"] == "wrong_passphrase":
            assert frame["retry_after"] == 0.8, frame  # the second failure of that address
        for c in [host, friend, other, *one, *many]:
            await c.close()

    run(scenario())
    assert server.alive()


# ---------------------------------------------------------------- seats
def test_spectator_cannot_send_seat_only_messages(server: ServerProcess) -> None:
    """After a game, a spectator's rematch, start or seat_bot is refused and the
    room stays as it was; a spectator's back_to_room only shows them the room
    (to watch the next game: issue 25), and a seated player's works."""

    async def scenario() -> None:
        anna, boris, spy = (Client(server.ws_url, n) for n in ("anna", "boris", "spy"))
        code = await anna.create_room(seats=2, visibility="private", move_time=None)
        await boris.join(code)
        await anna.send({"type": "start"})
        frame = await anna.expect("game")
        await spy.connect()
        await spy.send({"type": "join", "room": code})
        watched = await spy.expect("room")
        assert watched["you"] == {"seat": None, "host": False, "spectator": True}
        await play_out([anna, boris], random.Random(15))
        await spy.expect("game_over", timeout=30)
        assert frame is not None
        await asyncio.sleep(0.2)
        spy.frames.clear()
        await spy.send({"type": "back_to_room"})
        shown = await spy.expect("room")
        assert shown["you"]["spectator"] and shown["room"]["state"] == "over"
        await spy.send({"type": "rematch"})
        await _error(spy, "not_host", "rematch")
        await spy.send({"type": "start"})
        await _error(spy, "not_host", "start")
        await spy.send({"type": "seat_bot", "seat": 1})
        await _error(spy, "not_host", "seat_bot")
        status, info = get("GET", f"{server.url}/api/rooms/{code}")
        assert status == 200 and info["state"] == "over", info
        assert [s["name"] for s in info["seats"]] == ["anna", "boris"]
        assert info["spectators"] == ["spy"]
        await asyncio.sleep(0.3)
        rooms = [f["room"]["state"] for _, f in spy.frames if f["type"] == "room"]
        assert set(rooms) <= {"over"}, rooms

        await boris.send({"type": "back_to_room"})
        room = await boris.expect("room", timeout=10)
        while room["room"]["state"] != "lobby":
            room = await boris.expect("room", timeout=10)
        for c in (anna, boris, spy):
            await c.close()

    run(scenario())


# ---------------------------------------------------------------- deep JSON
async def _deep_messages(url: str, depth: int) -> None:
    """Deeply nested messages before and after hello: invalid_message each time,
    and the connection carries on."""
    c = Client(url, "deep")
    await c.connect(hello=False)
    for raw in (
        _nested(depth),
        f'{{"type": "hello", "name": {_nested(depth)}}}',
        '{"type": "hello", "name": "deep", "x": ' + '{"a": ' * depth + "1" + "}" * depth + "}",
    ):
        await c.send_raw(raw)
        await _error(c, "invalid_message")
    await c.send({"type": "hello", "name": "deep"})
    await c.expect("welcome")
    await c.send_raw(_nested(depth))
    await _error(c, "invalid_message")
    rules = f'{{"type": "create_room", "rules": {{"variant": {_nested(depth)}}}}}'
    await c.send_raw(rules)
    await _error(c, "invalid_message", "create_room" if depth < 900 else None)
    await c.send({"type": "create_room", "seats": 2, "visibility": "private", "move_time": None})
    await c.expect("room")
    await c.send_raw(f'{{"type": "move", "version": 0, "action": {_nested(depth)}}}')
    await _error(c, "invalid_message")
    await c.send({"type": "sync"})
    await c.expect("room")
    await c.close()


def test_deeply_nested_json_is_an_invalid_message(server: ServerProcess) -> None:
    since = len(server.lines)
    for depth in (9, 100, 1000, 1150):
        run(_deep_messages(server.ws_url, depth))
    assert server.alive()
    assert not _errors_logged(server, since), _errors_logged(server, since)
    assert "RecursionError" not in server.log_text()


def test_json_nested_100000_levels_is_an_invalid_message(tmp_path: Path) -> None:
    """With the size limit raised so that it fits, 100,000 levels are still refused."""
    srv = ServerProcess(tmp_path / "kozyr.db", "--max-message", "1000000").start()
    try:
        run(_deep_messages(srv.ws_url, 100_000))
        deep = f'{{"name": "x", "rules": {_nested(100_000)}}}'.encode()
        status, body = _post(srv.url + "/api/rooms", deep, "127.0.0.1")
        assert status == 400 and body["error"]["code"] == "invalid_message", body
        assert srv.alive()
        assert not _errors_logged(srv, 0), _errors_logged(srv, 0)
        assert "RecursionError" not in json.dumps(srv.lines)
    finally:
        srv.stop()


# ---------------------------------------------------------------- frames
def test_too_big_is_sent_before_the_close(server: ServerProcess) -> None:
    async def scenario() -> None:
        # Bytes count, not characters: 3,000 CJK characters are 9,000 bytes.
        for pad in ("x" * 9000, "字" * 3000):
            big = Client(server.ws_url, "big")
            await big.connect()
            await big.send_raw(json.dumps({"type": "sync", "pad": pad}, ensure_ascii=False))
            frame = await _error(big, "too_big", "sync")
            assert "8192" in frame["message"]
            assert await big.closed_code() == 1009
        # Past the transport's limit the socket is closed at once (still 1009).
        huge = Client(server.ws_url, "huge")
        await huge.connect()
        await huge.send_raw("x" * (ws_frame_limit(8192) + 1))
        assert await huge.closed_code() == 1009
        # Just under the limit is fine.
        ok = Client(server.ws_url, "ok")
        await ok.connect(hello=False)
        hello = {"type": "hello", "name": "ok"}
        raw = json.dumps(hello)
        await ok.send_raw(raw[:-1] + " " * (8192 - len(raw)) + "}")
        await ok.expect("welcome")
        await ok.close()

    run(scenario())


def test_text_that_is_not_utf8_closes_with_1007_without_a_traceback(
    server: ServerProcess,
) -> None:
    since = len(server.lines)

    async def scenario() -> None:
        c = Client(server.ws_url, "bytes")
        await c.connect()
        assert c.ws is not None
        await c.ws.send(b'{"type": "sync", "x": "\xff\xfe"}', text=True)
        assert await c.closed_code() == 1007
        again = Client(server.ws_url, "bytes")
        assert (await again.connect(c.token))["resumed"]
        await again.close()

    run(scenario())
    assert server.alive()
    # The log line is written as the server handles the close, which may come
    # after the client saw the close frame: give the log a moment (an idle CI
    # box read the lines before it came).
    deadline = time.monotonic() + 5
    while not any(line.get("event") == "ws_bad_utf8" for line in server.lines[since:]):
        assert time.monotonic() < deadline, server.lines[since:]
        time.sleep(0.05)
    assert not _errors_logged(server, since), _errors_logged(server, since)
    assert not any("exception" in line for line in server.lines[since:])


def test_binary_frames_are_refused_not_processed(server: ServerProcess) -> None:
    async def scenario() -> None:
        c = Client(server.ws_url, "binary")
        await c.connect(hello=False)
        await c.send_raw(json.dumps({"type": "sync"}).encode())  # would be hello_first
        frame = await _error(c, "bad_json")
        assert "binary" in frame["message"]
        await c.send_raw(json.dumps({"type": "hello", "name": "binary"}).encode())
        await _error(c, "bad_json")
        await c.send({"type": "hello", "name": "binary"})
        await c.expect("welcome")
        made = {"type": "create_room", "visibility": "private", "move_time": None}
        await c.send_raw(json.dumps(made).encode())
        await _error(c, "bad_json")
        await c.send({"type": "sync"})
        await _error(c, "not_in_room", "sync")  # no room was made
        await c.close()

    run(scenario())


def test_dropped_messages_name_their_type(tmp_path: Path) -> None:
    """rate_limited carries the ``ref`` of the message it dropped, so a client
    can tell that its move was lost (a server allowing one message a second)."""
    srv = ServerProcess(tmp_path / "kozyr.db", "--rate", "1", "--burst", "2").start()

    async def scenario() -> None:
        c = Client(srv.ws_url, "hasty")
        await c.connect()  # hello: the first of the burst
        await c.send({"type": "sync"})  # the second: not_in_room
        await _error(c, "not_in_room", "sync")
        await c.send({"type": "move", "action": {"seat": 0, "type": "take"}, "version": 1})
        await c.send({"type": "create_room"})
        await c.send_raw('{"type": 5}')
        await c.send_raw("not json")
        refs = [(await _error(c, "rate_limited"))["ref"] for _ in range(4)]
        assert refs == ["move", "create_room", None, None], refs
        await c.close()

    try:
        run(scenario())
    finally:
        srv.stop()


def test_names_that_break_the_rule_get_bad_name(server: ServerProcess) -> None:
    async def scenario() -> None:
        c = Client(server.ws_url, "x")
        await c.connect(hello=False)
        for bad in ("n" * 65, "名" * 64 + "a", "\x00", "\u200b"):
            await c.send({"type": "hello", "name": bad})
            await _error(c, "bad_name", "hello")
        await c.send({"type": "hello", "name": 42})
        await _error(c, "invalid_message", "hello")  # not a string: the schema
        await c.send({"type": "hello", "name": "ok"})
        await c.expect("welcome")
        await c.close()

    run(scenario())


# ---------------------------------------------------------------- signals
def test_sigterm_and_sigint_stop_cleanly_with_status_0(tmp_path: Path) -> None:
    for sig in (signal.SIGTERM, signal.SIGINT):
        srv = ServerProcess(tmp_path / "kozyr.db").start()
        assert srv.proc is not None

        async def scenario(srv: ServerProcess = srv, sig: int = sig) -> int | None:
            c = Client(srv.ws_url, "anna")
            await c.create_room(seats=2, visibility="private", move_time=None)
            assert srv.proc is not None
            srv.proc.send_signal(sig)
            return await c.closed_code(timeout=20)

        close = run(scenario())
        assert close in (1001, 1012), close  # going away / service restart
        assert srv.proc.wait(20) == 0, srv.log_text()
        srv._reader.join(10)
        assert srv.events("stopped"), srv.log_text()
        assert not _errors_logged(srv, 0), _errors_logged(srv, 0)
