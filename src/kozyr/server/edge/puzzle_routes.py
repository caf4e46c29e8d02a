"""HTTP routes of Durak puzzles (issue 27 §5; docs/puzzles.md):

* ``GET /api/puzzles`` — every puzzle's id, level, hardness and tags (no positions).
* ``GET /api/puzzles/daily`` — the puzzle of the day (UTC), as ``GET /api/puzzles/{id}``.
* ``GET /api/puzzles/{id}`` — the position the player sees, never the solution.
* ``POST /api/puzzles/{id}/move`` ``{"actions": [...]}`` — the player's moves from
  the position, in order: ``right`` (with the opponent's replies), ``solved``, or
  ``wrong`` with the line the losing move leads to.  Refusals: 404
  ``no_such_puzzle``, 400 ``bad_json`` / ``invalid_message`` / ``illegal_move``,
  413 ``too_large``, 429 ``rate_limited``.  With ``Authorization: Bearer
  <token>`` a ``wrong`` or ``solved`` answer is counted with the player's
  profile and the answer carries ``"progress"`` (null for an unknown token).
* ``GET /api/me/puzzles`` (Bearer) — ``{"solved", "streak", "best_streak",
  "ids"}``; 401 ``no_token``, 404 ``no_such_player``.

The server keeps no state of a puzzle being solved: the page sends all its moves
each time and the solver judges them (a puzzle's position is small:
milliseconds).  Solving runs in a worker thread so the event loop keeps serving
games.  Only the progress (:mod:`..players.puzzle_progress`) is stored.
"""

from __future__ import annotations

import time
from typing import Any

import msgspec
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from kozyr.bots import puzzles
from kozyr.engine.actions import Action, ActionError

from .. import protocol as proto
from ..players import puzzle_progress
from ..tables.lobby import Hub, player_key
from .http import bearer_token, client_address, decode, error, no_such_player, no_token, read_body
from .ratelimit import AddressBuckets

#: Moves judged per address: 40 at once, then 4 a second.
MOVE_RATE, MOVE_BURST = 4.0, 40.0
BODY_LIMIT = 8192


class MoveBody(msgspec.Struct, forbid_unknown_fields=True):
    actions: list[dict[str, Any]]


def _puzzle(request: Request) -> puzzles.Puzzle | None:
    text = request.path_params["puzzle_id"]
    return puzzles.by_id(text) if len(text) <= 40 else None


def _missing() -> Response:
    return error(404, "no_such_puzzle", "there is no puzzle with that id")


def puzzle_routes(hub: Hub) -> list[BaseRoute]:
    """The routes; progress is stored through ``hub``'s store."""
    buckets = AddressBuckets(MOVE_RATE, MOVE_BURST)

    async def index(request: Request) -> Response:
        rows = [
            {"id": p.id, "level": p.level, "hardness": p.hardness, "tags": p.tags}
            for p in puzzles.shipped()
        ]
        return JSONResponse({"count": len(rows), "puzzles": rows})

    async def daily(request: Request) -> Response:
        day = int(time.time() // 86400)
        try:
            p = puzzles.daily(day)
        except puzzles.PuzzleError:
            return _missing()
        data = await run_in_threadpool(puzzles.public_json, p)
        data["day"] = day
        return JSONResponse(data)

    async def one(request: Request) -> Response:
        p = _puzzle(request)
        if p is None:
            return _missing()
        return JSONResponse(await run_in_threadpool(puzzles.public_json, p))

    async def move(request: Request) -> Response:
        p = _puzzle(request)
        if p is None:
            return _missing()
        if not buckets.allow(client_address(request)):
            return error(429, proto.Code.RATE_LIMITED, "too many moves: wait a moment",
                         retry_after=round(1 / MOVE_RATE, 2))  # fmt: skip
        raw = await read_body(request, BODY_LIMIT)
        if raw is None:
            return error(413, proto.Code.TOO_BIG, f"a move request is at most {BODY_LIMIT} bytes")
        try:
            body = decode(raw, MoveBody)
        except msgspec.ValidationError as exc:
            return error(400, proto.Code.INVALID, f'expected {{"actions": [...]}}: {exc}')
        except proto.ProtocolError as exc:
            return error(400, exc.code, exc.message)
        try:
            actions = [Action.from_json(a) for a in body.actions]
        except ActionError as exc:
            return error(400, "illegal_move", str(exc))
        if len(actions) > puzzles.MAX_MOVES * 4:
            return error(400, "illegal_move", "more moves than any puzzle needs")
        try:
            result = await run_in_threadpool(puzzles.play, p, actions)
        except puzzles.PuzzleError as exc:
            return error(400, "illegal_move", str(exc))
        token = bearer_token(request)
        outcome = result.get("result")
        if token is not None and outcome in ("wrong", "solved"):
            key, now = player_key(token), time.time()
            result["progress"] = await hub.store.call(
                lambda c: puzzle_progress.record(c, key, p.id, outcome, now)
            )
        return JSONResponse(result)

    async def mine(request: Request) -> Response:
        token = bearer_token(request)
        if token is None:
            return no_token()
        key = player_key(token)
        found = await hub.store.call(lambda c: puzzle_progress.progress(c, key), read_only=True)
        if found is None:
            return no_such_player()
        return JSONResponse(found)

    return [
        Route("/api/puzzles", index, methods=["GET"]),
        Route("/api/puzzles/daily", daily, methods=["GET"]),
        Route("/api/puzzles/{puzzle_id}", one, methods=["GET"]),
        Route("/api/puzzles/{puzzle_id}/move", move, methods=["POST"]),
        Route("/api/me/puzzles", mine, methods=["GET"]),
    ]
