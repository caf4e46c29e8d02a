"""The puzzles' HTTP API against a real server (docs/puzzles.md, "API"): the list,
the puzzle of the day, a puzzle without its solution, right / solved / wrong
moves, and every bad request refused with a clear code while the server stays up."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import urllib.error
import urllib.request
from typing import Any

from kozyr.bots import puzzles

from .harness import Client, ServerProcess, http, run


def solution_moves(p: puzzles.Puzzle) -> list[dict[str, Any]]:
    return [a.to_json() for a in map(puzzles.decode, p.solution) if a.seat == p.seat]


def pick(moves: int, kind: str = "exact") -> puzzles.Puzzle:
    return next(p for p in puzzles.shipped() if p.moves == moves and p.kind == kind)


def test_list_daily_and_one_puzzle(server: ServerProcess) -> None:
    status, listing = http("GET", f"{server.url}/api/puzzles")
    assert status == 200 and listing["count"] == len(puzzles.shipped()) >= 500
    row = listing["puzzles"][0]
    assert set(row) == {"id", "level", "hardness", "tags"}
    status, daily = http("GET", f"{server.url}/api/puzzles/daily")
    assert status == 200 and daily["id"] in {r["id"] for r in listing["puzzles"]}
    p = puzzles.by_id(daily["id"])
    assert p is not None and daily["level"] != "hard"
    status, same = http("GET", f"{server.url}/api/puzzles/{daily['id']}")
    assert status == 200 and same["position"] == daily["position"]
    text = json.dumps(same)
    assert "solution" not in same and '"actions"' not in text
    assert same["position"]["all_known"] is (p.kind == "exact")
    assert same["position"]["to_move"] == same["seat"] == p.seat
    kinds = {r["tags"]["kind"] for r in listing["puzzles"]}
    assert kinds == {"exact", "search"}


def test_solving_move_by_move(server: ServerProcess) -> None:
    p = pick(2)
    mine = solution_moves(p)
    url = f"{server.url}/api/puzzles/{p.id}/move"
    status, first = http("POST", url, {"actions": mine[:1]})
    assert status == 200 and first["result"] == "right", first
    assert all(a["seat"] != p.seat for a in first["replies"])
    assert first["position"]["to_move"] == p.seat and first["position"]["legal"]
    status, done = http("POST", url, {"actions": mine})
    assert status == 200 and done["result"] == "solved", done


def test_a_wrong_move_shows_where_it_leads(server: ServerProcess) -> None:
    p = pick(1)
    right = solution_moves(p)[0]
    legal = [a.to_json() for a in p.position().legal_actions()]
    wrong = next(a for a in legal if a != right)
    status, out = http("POST", f"{server.url}/api/puzzles/{p.id}/move", {"actions": [wrong]})
    assert status == 200 and out["result"] == "wrong"
    assert out["durak"] == p.seat and out["line"]
    assert out["position"]["result"] is None or out["position"]["phase"] != "over"


def test_a_search_puzzle_answers_with_chances(server: ServerProcess) -> None:
    """Three players holding cards: the page gets only what the player may
    know, a wrong move its chance and the best one's, the right move every chance."""
    p = pick(1, "search")
    status, data = http("GET", f"{server.url}/api/puzzles/{p.id}")
    assert status == 200 and data["tags"]["kind"] == "search"
    pos = data["position"]
    assert pos["all_known"] is False and len(pos["hands"]) == 3
    assert sum(map(len, pos["hands"])) < sum(pos["hand_counts"])  # some are face down
    url = f"{server.url}/api/puzzles/{p.id}/move"
    best = solution_moves(p)[0]
    wrong = puzzles.decode(p.chances[-1][0]).to_json()
    status, out = http("POST", url, {"actions": [wrong]})
    assert status == 200 and out["result"] == "wrong"
    assert (out["chance"], out["chance_best"]) == (p.chances[-1][1], p.chances[0][1])
    status, out = http("POST", url, {"actions": [best]})
    assert status == 200 and out["result"] == "solved"
    assert [c["chance"] for c in out["chances"]] == [c for _, c in p.chances]
    status, out = http("POST", url, {"actions": [best, best]})
    assert status == 400 and out["error"]["code"] == "illegal_move"


def test_bad_requests_are_refused_clearly(server: ServerProcess) -> None:
    p = puzzles.shipped()[0]
    url = f"{server.url}/api/puzzles/{p.id}/move"
    assert http("GET", f"{server.url}/api/puzzles/nope")[1]["error"]["code"] == "no_such_puzzle"
    assert http("GET", f"{server.url}/api/puzzles/{'9' * 60}")[0] == 404
    status, body = http("POST", f"{server.url}/api/puzzles/nope/move", {"actions": []})
    assert status == 404 and body["error"]["code"] == "no_such_puzzle"
    other = puzzles.decode(p.solution[0])._replace(seat=(p.seat + 1) % p.rules.players)
    cases = [
        ({"actions": [other.to_json()]}, "illegal_move"),
        ({"actions": [{"seat": p.seat, "type": "attack", "cards": ["ZZ"]}]}, "illegal_move"),
        ({"actions": [{"seat": p.seat, "type": "fly"}]}, "illegal_move"),
        ({"actions": "take"}, "invalid_message"),
        ({"moves": []}, "invalid_message"),
        ({"actions": [solution_moves(p)[0]] * 40}, "illegal_move"),
    ]
    for body_in, code in cases:
        status, body = http("POST", url, body_in)
        assert status == 400 and body["error"]["code"] == code, (body_in, body)
    req = urllib.request.Request(url, data=b"{nope", method="POST")
    try:
        urllib.request.urlopen(req, timeout=10)
        raise AssertionError("bad JSON was accepted")
    except urllib.error.HTTPError as exc:
        with exc:
            assert exc.code == 400
            assert json.loads(exc.read())["error"]["code"] == "bad_json"
    status, body = http("POST", url, {"actions": [{"seat": 0, "type": "pass"}] * 2000})
    assert status == 413 and body["error"]["code"] == "too_big"
    # Nothing changed: the puzzle still starts where it did, and the server answers.
    status, again = http("GET", f"{server.url}/api/puzzles/{p.id}")
    assert status == 200 and again == puzzles.public_json(p)


def _guest(server: ServerProcess, name: str) -> str:
    """A new player's token (a profile from the first hello)."""

    async def hello() -> str:
        c = Client(server.ws_url, name)
        await c.connect()
        await c.close()
        assert c.token
        return c.token

    return run(hello())


def test_progress_is_kept_with_the_profile(server: ServerProcess) -> None:
    """With a token, wrong and solved answers count with the profile: a clean
    first solve adds to the streak, a wrong move sets it to 0, a solve after a
    wrong move counts as solved but not in the streak, a second solve changes
    nothing; GET /api/me/puzzles gives it back, and deleting the profile erases it."""
    token = _guest(server, "puzzler")
    auth = {"authorization": f"Bearer {token}"}
    easy = [p for p in puzzles.shipped() if p.moves == 1]
    a, b, c = easy[:3]

    def post(p: puzzles.Puzzle, actions: list[dict[str, Any]]) -> dict[str, Any]:
        status, out = http("POST", f"{server.url}/api/puzzles/{p.id}/move",
                           {"actions": actions}, headers=auth)  # fmt: skip
        assert status == 200 and isinstance(out, dict), out
        return out

    def wrong_of(p: puzzles.Puzzle) -> dict[str, Any]:
        right = solution_moves(p)[0]
        return next(x.to_json() for x in p.position().legal_actions() if x.to_json() != right)

    status, start = http("GET", f"{server.url}/api/me/puzzles", headers=auth)
    assert status == 200 and start == {"solved": 0, "streak": 0, "best_streak": 0, "ids": []}
    out = post(a, solution_moves(a))
    assert out["result"] == "solved"
    assert out["progress"] == {"solved": 1, "streak": 1, "best_streak": 1, "ids": [a.id]}
    assert post(b, solution_moves(b))["progress"]["streak"] == 2
    assert post(a, solution_moves(a))["progress"]["streak"] == 2  # solved before: no change
    out = post(c, [wrong_of(c)])
    assert out["result"] == "wrong"
    assert out["progress"] == {"solved": 2, "streak": 0, "best_streak": 2, "ids": [a.id, b.id]}
    out = post(c, solution_moves(c))  # after a wrong move: solved, not in the streak
    assert out["progress"]["solved"] == 3 and out["progress"]["streak"] == 0
    status, kept = http("GET", f"{server.url}/api/me/puzzles", headers=auth)
    assert status == 200 and kept == out["progress"]
    # Without a token nothing is counted; an unknown token gets null progress.
    status, anon = http("POST", f"{server.url}/api/puzzles/{a.id}/move",
                        {"actions": solution_moves(a)})  # fmt: skip
    assert status == 200 and "progress" not in anon
    nobody = {"authorization": "Bearer nobody"}
    status, ghost = http("POST", f"{server.url}/api/puzzles/{a.id}/move",
                         {"actions": solution_moves(a)}, headers=nobody)  # fmt: skip
    assert status == 200 and ghost["progress"] is None
    status, body = http("GET", f"{server.url}/api/me/puzzles")
    assert status == 401 and body["error"]["code"] == "no_token"
    status, body = http(
        "GET", f"{server.url}/api/me/puzzles", headers={"authorization": "Bearer nobody"}
    )
    assert status == 404 and body["error"]["code"] == "no_such_player"
    status, _ = http("DELETE", f"{server.url}/api/me", headers=auth)
    assert status == 200
    assert _others_only(server.db, key_of(token))


def key_of(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _others_only(db: Any, key: str) -> bool:
    """No puzzle row of ``key`` is left (other tests' players may have some)."""
    with sqlite3.connect(db) as conn:
        return all(
            conn.execute(f"SELECT count(*) FROM {t} WHERE player = ?", (key,)).fetchone()[0] == 0
            for t in ("puzzle_tries", "puzzle_streaks")
        )
