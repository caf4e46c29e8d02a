"""HTTP routes of post-game analysis (issue 27; docs/protocol.md, "Analysis").

* ``POST /api/games/{id}/analysis?seat=N`` (``Authorization: Bearer <token>``)
  starts the analysis of seat N of a finished game, or answers with the one
  stored or running: 200 with ``status`` done, or 202 with queued/running and
  the progress.  Refusals: 401 ``no_token``, 404 ``no_such_game`` (unknown or
  not finished), 400 ``bad_seat``, 429 ``rate_limited``, 503 ``analysis_busy``
  (both with ``retry_after`` seconds).
* ``GET /api/games/{id}/analysis?seat=N`` says where it is (``none``, queued,
  running with ``done``/``total``, done with ``result``, failed) and never
  starts one.
"""

from __future__ import annotations

import re

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ..tables.analysis_pool import AnalysisRefused, AnalysisService
from ..tables.lobby import player_key
from .http import bearer_token, error

_DIGITS = re.compile(r"[0-9]{1,19}")


def _game_id(text: str) -> int | None:
    if not _DIGITS.fullmatch(text):
        return None
    value = int(text)
    return value if 0 < value < 2**63 else None


def _seat(request: Request) -> int | None:
    text = request.query_params.get("seat", "")
    return int(text) if text.isdigit() and len(text) <= 2 else None


def analysis_routes(service: AnalysisService) -> list[BaseRoute]:
    """The two routes, answering from ``service``."""

    def where(request: Request) -> tuple[int, int] | Response:
        game_id = _game_id(request.path_params["game_id"])
        if game_id is None:
            return error(404, "no_such_game", "no finished game has that id")
        seat = _seat(request)
        if seat is None:
            return error(400, "bad_seat", "give the seat to analyse: ?seat=N (0-5)")
        return game_id, seat

    async def start(request: Request) -> Response:
        found = where(request)
        if isinstance(found, Response):
            return found
        game_id, seat = found
        token = bearer_token(request)
        if not token:
            return error(401, "no_token", "send Authorization: Bearer <your token>")
        try:
            status = await service.request(game_id, seat, player_key(token))
        except AnalysisRefused as exc:
            extra = {} if exc.retry_after is None else {"retry_after": round(exc.retry_after, 1)}
            response = error(exc.status, exc.code, exc.message, **extra)
            if exc.retry_after is not None:
                response.headers["Retry-After"] = str(max(1, round(exc.retry_after)))
            return response
        return JSONResponse(
            status.to_json(game_id, seat), 200 if status.status in ("done", "failed") else 202
        )

    async def show(request: Request) -> Response:
        found = where(request)
        if isinstance(found, Response):
            return found
        game_id, seat = found
        status = await service.status(game_id, seat)
        if status.status == "none" and await service.finished_record(game_id) is None:
            return error(404, "no_such_game", "no finished game has that id")
        return JSONResponse(status.to_json(game_id, seat))

    return [
        Route("/api/games/{game_id}/analysis", start, methods=["POST"]),
        Route("/api/games/{game_id}/analysis", show, methods=["GET"]),
    ]
