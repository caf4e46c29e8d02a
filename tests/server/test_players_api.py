"""Profiles, history, candies and ratings over HTTP against a real server
(docs/protocol.md, "Players"): a game against the computer pays and shows up in
My games; the profile's routes and their errors; the public page has nothing
private; the history's cursor; transfer codes (once, 10 minutes, throttled);
deleting a profile; the leaderboard; a grant survives kill -9 exactly once."""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
import time
from pathlib import Path
from typing import Any

from kozyr.cli.replay import replay_json
from kozyr.server.players.candies import COMPUTER, FRIENDS, MIN_MOVES

from .harness import Client, ServerProcess, http, play_out, run

#: Test players move at machine speed: the looser flood limit of the shared server.
MACHINE_SPEED = ("--rate", "200", "--burst", "200")


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def key_of(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def expected(table: dict[str, int], over: dict[str, Any], seat: int, moves: int) -> dict[str, Any]:
    outcome = "draw" if over["durak"] is None else ("loss" if over["durak"] == seat else "win")
    if moves < MIN_MOVES:
        return {"amount": 0, "reason": "too_short", "capped": False}
    mode = "friends" if table is FRIENDS else "computer"
    return {"amount": table[outcome], "reason": f"{mode}_{outcome}", "capped": False}


async def vs_computer(srv: ServerProcess, name: str, seed: int) -> tuple[Client, dict[str, Any]]:
    anna = Client(srv.ws_url, name)
    await anna.create_room(seats=2, visibility="private", move_time=None, bot_level=1,
                           start=True)  # fmt: skip
    await play_out([anna], random.Random(seed))
    return anna, anna.over[-1]


def test_a_game_against_the_computer_pays_and_shows_in_my_games(server: ServerProcess) -> None:
    anna, over = run(vs_computer(server, "anna", 3))
    assert anna.token is not None  # the server's welcome gave her a session
    status, record = http("GET", server.url + over["record"])
    moves = len(record["actions"])
    grant = expected(COMPUTER, over, 0, moves)
    assert over["candies"] == grant
    assert over["rating"] is None  # one person: not rated

    status, me = http("GET", server.url + "/api/me", headers=bearer(anna.token))
    assert status == 200
    assert me["name"] == "anna" and me["avatar"] == "fox" and len(me["public_id"]) == 10
    assert me["candies"] == {"balance": grant["amount"], "today": grant["amount"],
                             "daily_cap": 300}  # fmt: skip
    assert me["ratings"]["podkidnoy"] == {"rating": 1500, "games": 0, "provisional": True}
    assert me["levels"]["1"]["games"] == 1 and me["games"] == 1

    status, page = http("GET", server.url + "/api/me/games", headers=bearer(anna.token))
    assert status == 200 and page["next"] is None
    (game,) = page["games"]
    outcome = "draw" if over["durak"] is None else ("loss" if over["durak"] == 0 else "win")
    assert game == {
        "game_id": over["game_id"],
        "ended_at": game["ended_at"],
        "variant": "podkidnoy",
        "seat": 0,
        "players": [
            {"seat": 0, "name": "anna", "public_id": me["public_id"]},
            {"seat": 1, "bot_level": 1},
        ],
        "result": outcome,
        "moves": moves,
        "candies": grant["amount"],
        "rating_change": None,
    }
    assert abs(time.mktime(time.strptime(game["ended_at"], "%Y-%m-%dT%H:%M:%SZ"))
               - time.mktime(time.gmtime())) < 600  # fmt: skip


def test_profile_routes_and_their_errors(server: ServerProcess) -> None:
    anna, _ = run(vs_computer(server, "anna", 5))
    assert anna.token is not None  # the server's welcome gave her a session
    url = server.url + "/api/me"
    assert http("GET", url)[0] == 401
    status, body = http("GET", url, headers=bearer("not-a-token"))
    assert status == 404 and body["error"]["code"] == "no_such_player"
    status, me = http("PATCH", url, {"name": "Анна", "avatar": "owl", "lang": "ru"},
                      bearer(anna.token))  # fmt: skip
    assert status == 200 and (me["name"], me["avatar"], me["lang"]) == ("Анна", "owl", "ru")
    for body, code in (
        ({"avatar": "dragon"}, "bad_avatar"),
        ({"lang": "de"}, "bad_lang"),
        ({"name": ""}, "bad_name"),
        ({"colour": "red"}, "invalid_message"),
    ):
        status, answer = http("PATCH", url, body, bearer(anna.token))
        assert status == 400 and answer["error"]["code"] == code, answer
    status, me = http("GET", url, headers=bearer(anna.token))
    assert (me["name"], me["avatar"]) == ("Анна", "owl")  # the bad requests changed nothing


def _seed_history(db: Path, key: str, n: int) -> list[int]:
    """``n`` finished games of ``key`` against a bot, written straight into the
    server's database (the history is read from it); their ids, newest first."""
    with sqlite3.connect(db) as conn:
        ids = []
        for i in range(n):
            cur = conn.execute(
                "INSERT INTO games (room, game_no, base_version, record, status, started_at,"
                " finished_at) VALUES ('SEED', ?, 0, '{}', 'finished', 1, 2)",
                (i + 1,),
            )
            gid = int(cur.lastrowid or 0)
            ended = 1_700_000_000.0 + (i // 2)  # pairs end at the same second
            for seat, player, bot in ((0, key, None), (1, None, 4)):
                conn.execute(
                    "INSERT INTO game_seats (game_id, seat, player, bot_level, outcome, variant,"
                    " moves, ended_at, candies) VALUES (?, ?, ?, ?, 'win', 'perevodnoy', 30, ?,"
                    " 6)", (gid, seat, player, bot, ended),
                )  # fmt: skip
            ids.append(gid)
    return sorted(ids, key=lambda g: (1_700_000_000 + (ids.index(g) // 2), g), reverse=True)


def test_history_pages_with_an_opaque_cursor(server: ServerProcess) -> None:
    anna, _ = run(vs_computer(server, "anna", 9))
    assert anna.token
    newest_first = _seed_history(server.db, key_of(anna.token), 5)
    url = server.url + "/api/me/games?limit=2"
    seen: list[int] = []
    status, page = http("GET", url, headers=bearer(anna.token))
    seen += [g["game_id"] for g in page["games"]]  # the real game first (newest)
    while page["next"]:
        status, page = http("GET", f"{url}&before={page['next']}", headers=bearer(anna.token))
        assert status == 200 and len(page["games"]) <= 2
        seen += [g["game_id"] for g in page["games"]]
    assert seen[1:] == newest_first and len(seen) == 6
    for query, code in (
        ("before=xyz", "bad_cursor"),
        ("before=" + "QUJD", "bad_cursor"),
        ("limit=0", "bad_limit"),
        ("limit=101", "bad_limit"),
        ("limit=two", "bad_limit"),
    ):
        status, body = http("GET", f"{server.url}/api/me/games?{query}",
                            headers=bearer(anna.token))  # fmt: skip
        assert status == 400 and body["error"]["code"] == code, (query, body)
    status, body = http("GET", server.url + "/api/me/games", headers=bearer("nobody"))
    assert status == 404 and body["error"]["code"] == "no_such_player"


def test_public_page_shows_nothing_private(server: ServerProcess) -> None:
    anna, over = run(vs_computer(server, "anna", 11))
    assert anna.token
    _, me = http("GET", server.url + "/api/me", headers=bearer(anna.token))
    status, page = http("GET", f"{server.url}/api/players/{me['public_id']}")
    assert status == 200
    assert set(page) == {"public_id", "name", "avatar", "joined", "games", "ratings", "graph",
                         "recent"}  # fmt: skip
    assert page["name"] == "anna" and page["games"] == 1
    assert page["recent"][0]["game_id"] == over["game_id"]
    assert page["recent"][0]["candies"] is None  # candies are the player's own business
    text = json.dumps(page)
    assert anna.token not in text and key_of(anna.token) not in text
    status, games = http("GET", f"{server.url}/api/players/{me['public_id']}/games")
    assert status == 200 and [g["candies"] for g in games["games"]] == [None]
    assert anna.token not in json.dumps(games)
    for bad in ("zzzzzzzzzz", "short", "ABCDEFGHJK", key_of(anna.token)):
        status, body = http("GET", f"{server.url}/api/players/{bad}")
        assert status == 404 and body["error"]["code"] == "no_such_player"


def test_leaderboard_lists_rated_players_who_are_not_provisional(server: ServerProcess) -> None:
    with sqlite3.connect(server.db) as conn:
        for i, (mu, games) in enumerate([(1900, 12), (2100, 9), (1700, 30), (1600, 10)]):
            key = f"board{i}".ljust(64, "x")
            conn.execute(
                "INSERT INTO players (key, name, created_at, public_id) VALUES (?, ?, 1, ?)",
                (key, f"player{i}", f"brd{i}aaaaaa"[:10]),
            )
            conn.execute(
                "INSERT INTO ratings VALUES (?, 'perevodnoy', ?, 100, ?, 1)", (key, mu, games)
            )
    status, board = http("GET", server.url + "/api/leaderboard?variant=perevodnoy&limit=2")
    assert status == 200
    assert [(p["name"], p["rating"], p["rank"]) for p in board["players"]] == [
        ("player0", 1900, 1), ("player2", 1700, 2),
    ]  # fmt: skip
    assert set(board["players"][0]) == {"rank", "public_id", "name", "avatar", "rating", "games"}
    status, body = http("GET", server.url + "/api/leaderboard?variant=chess")
    assert status == 400 and body["error"]["code"] == "bad_variant"


def test_transfer_code_moves_the_profile_once_and_is_throttled(tmp_path: Path) -> None:
    srv = ServerProcess(tmp_path / "kozyr.db", "--transfer-burst", "4", *MACHINE_SPEED).start()
    try:
        anna, _ = run(vs_computer(srv, "anna", 13))
        assert anna.token
        status, made = http("POST", srv.url + "/api/me/transfer", headers=bearer(anna.token))
        assert status == 201 and len(made["code"]) == 8 and made["expires_in"] == 600
        status, got = http("POST", srv.url + "/api/claim", {"code": made["code"].lower()})
        assert status == 200 and got["token"] == anna.token and got["name"] == "anna"
        status, again = http("POST", srv.url + "/api/claim", {"code": made["code"]})
        assert status == 410 and again["error"]["code"] == "code_used"
        # The code is stored hashed, the token sealed with it: the table gives neither.
        with sqlite3.connect(srv.db) as conn:
            dump = "\n".join(conn.iterdump())
        assert made["code"] not in dump and anna.token not in dump
        # A code older than 10 minutes.
        _, old = http("POST", srv.url + "/api/me/transfer", headers=bearer(anna.token))
        with sqlite3.connect(srv.db) as conn:
            conn.execute("UPDATE transfer_codes SET expires_at = expires_at - 601")
        status, late = http("POST", srv.url + "/api/claim", {"code": old["code"]})
        assert status == 410 and late["error"]["code"] == "code_expired"
        status, bad = http("POST", srv.url + "/api/claim", {"code": "12"})
        assert status == 400 and bad["error"]["code"] == "bad_code"
        status, body = http("POST", srv.url + "/api/me/transfer", headers=bearer("nobody"))
        assert status == 404 and body["error"]["code"] == "no_such_player"
        codes = []
        for _ in range(12):
            status, body = http("POST", srv.url + "/api/claim", {"code": "ABCDEFGH"})
            codes.append(body["error"]["code"])
        assert "unknown_code" in codes and codes[-1] == "rate_limited"
        # Three codes were asked for above; the burst of 4 allows one more, then one in 10 s.
        made_now = [http("POST", srv.url + "/api/me/transfer", headers=bearer(anna.token))
                    for _ in range(3)]  # fmt: skip
        assert [status for status, _ in made_now][:1] == [201]
        assert made_now[-1][0] == 429 and made_now[-1][1]["error"]["code"] == "rate_limited"
        assert srv.alive()
    finally:
        srv.stop()


def test_delete_erases_the_profile_and_keeps_games_replayable(server: ServerProcess) -> None:
    async def two_people() -> tuple[Client, Client, dict[str, Any]]:
        anna, boris = Client(server.ws_url, "anna"), Client(server.ws_url, "boris")
        code = await anna.create_room(seats=2, visibility="private", move_time=None)
        await boris.join(code)
        await anna.send({"type": "start"})
        await play_out([anna, boris], random.Random(17))
        over = anna.over[-1]
        await anna.send({"type": "leave"})
        await anna.expect("left")
        return anna, boris, over

    anna, boris, over = run(two_people())
    assert anna.token and boris.token
    _, me = http("GET", server.url + "/api/me", headers=bearer(anna.token))
    status, body = http("DELETE", server.url + "/api/me", headers=bearer(anna.token))
    assert status == 200 and body == {"deleted": True}
    status, gone = http("GET", server.url + "/api/me", headers=bearer(anna.token))
    assert status == 404 and gone["error"]["code"] == "no_such_player"
    assert http("GET", f"{server.url}/api/players/{me['public_id']}")[0] == 404
    _, page = http("GET", server.url + "/api/me/games", headers=bearer(boris.token))
    (game,) = page["games"]
    assert game["players"][0] == {"seat": 0, "name": "deleted player", "public_id": None}
    status, record = http("GET", server.url + over["record"])
    assert status == 200 and record["meta"]["players"][0] == "deleted player"
    assert "anna" not in json.dumps(record)
    code_, out = replay_json(json.dumps(record))
    assert code_ == 0 and out["state"]["result"] == over["result"]
    with sqlite3.connect(server.db) as conn:
        key = key_of(anna.token)
        for table in ("players", "candy_grants", "ratings", "results", "game_seats"):
            n = conn.execute(
                f"SELECT count(*) FROM {table} WHERE "
                f"{'key' if table == 'players' else 'player'} = ?",
                (key,),
            )
            assert n.fetchone()[0] == 0, table


def test_a_grant_is_kept_exactly_once_across_kill_9(tmp_path: Path) -> None:
    """kill -9 right after the game ends, in both places it can land: after the
    finishing transaction (the room's row still says "playing"), and before it
    (nothing of the finish committed).  Either way the restarted server leaves
    exactly one grant, and the resynced game_over carries it."""
    srv = ServerProcess(tmp_path / "kozyr.db", *MACHINE_SPEED).start()
    try:
        anna, over = run(vs_computer(srv, "anna", 21))
        assert anna.token
        key, gid = key_of(anna.token), over["game_id"]
        grant = over["candies"]
        for before_commit in (False, True):
            srv.kill()
            with sqlite3.connect(srv.db) as conn:
                (data,) = conn.execute("SELECT data FROM rooms").fetchone()
                room = json.loads(data)
                room["state"] = "playing"  # the room's last save came before the end
                conn.execute("UPDATE rooms SET data = ?, state = 'playing'", (json.dumps(room),))
                if before_commit:  # the finishing transaction never committed
                    conn.execute("UPDATE games SET status = 'playing' WHERE id = ?", (gid,))
                    for table in ("candy_grants", "game_seats", "results"):
                        conn.execute(f"DELETE FROM {table} WHERE game_id = ?", (gid,))
            srv.start()

            async def back() -> dict[str, Any]:
                again = Client(srv.ws_url, "anna")
                welcome = await again.connect(anna.token)
                assert welcome["resumed"]
                return await again.expect("game_over")

            resent = run(back())
            assert resent["candies"] == grant and resent["game_id"] == gid
            with sqlite3.connect(srv.db) as conn:
                rows = conn.execute(
                    "SELECT amount FROM candy_grants WHERE player = ?", (key,)
                ).fetchall()
                assert rows == [(grant["amount"],)]
            _, me = http("GET", srv.url + "/api/me", headers=bearer(anna.token))
            assert me["candies"]["balance"] == grant["amount"]
    finally:
        srv.stop()
