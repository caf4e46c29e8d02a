"""The ASGI application: HTTP API, the WebSocket endpoint, static files
(:mod:`.run` serves it with uvicorn).

Routes (docs/protocol.md has the details):

* ``GET /health`` — liveness and counters.
* ``GET /metrics`` — the same and more in the Prometheus text format (docs/deploy.md).
* ``POST /api/rooms`` — create a room over HTTP (returns invite code and token).
* ``GET /api/rooms`` — public rooms waiting in the lobby.
* ``GET /api/rooms/{code}`` — one room by invite code; ``…/qr.svg`` its invite as a QR code.
* ``GET /api/games/{id}`` — a finished game's record (for ``kozyr replay``).
* ``POST``/``GET /api/games/{id}/analysis?seat=N`` — a finished game's analysis
  (:mod:`.analysis_routes`).
* ``GET /api/games/{id}/steps`` — a finished game replayed, the state after every
  action (the browser's game viewer; :mod:`.steps`).
* ``GET /api/me/results`` — your results against the computer, per level
  (``Authorization: Bearer <token>``).
* ``POST /api/bots`` — make a bot account (:mod:`.bots`, docs/bot-api.md).
* profiles, history, candies, ratings, leaderboard (:mod:`.players_api`):
  ``/api/me``, ``/api/me/games``, ``/api/me/transfer``, ``/api/claim``,
  ``/api/players/{public_id}``, ``/api/leaderboard``.
* puzzles (:mod:`.puzzle_routes`): ``/api/puzzles``, ``/api/puzzles/daily``,
  ``/api/puzzles/{id}``, ``/api/puzzles/{id}/move``, ``/api/me/puzzles``.
* what extensions add (:mod:`.extension`): ``POST /api/telegram/login`` and
  ``PUT /api/telegram/auto`` for Telegram Mini App players (docs/telegram.md).
* ``WS /ws`` — the game protocol.
* ``/game/{id}``, ``/player/{public_id}``, ``/me``, ``/me/games``, ``/leaderboard``, ``/puzzles``
  — the client's own pages (its ``index.html`` with a ``<base>``, so that the
  client's relative links still work; js/routes.js).
* ``/`` — the browser client from ``src/kozyr/web/static`` when it exists
  (:mod:`kozyr.server.edge.static`: versioned names cached for a year, pages and
  plain names revalidated with ETags, brotli or gzip).
"""

from __future__ import annotations

import io
import re
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any, Literal

import msgspec
import segno
from sqlalchemy.engine import make_url
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from .. import protocol as p
from ..config import ServerConfig
from ..tables.lobby import Hub, check_name, player_key
from ..telemetry import log
from ..telemetry.metrics import CONTENT_TYPE as METRICS_TYPE
from .analysis_routes import analysis_routes
from .bots import bot_routes
from .connection import Connection
from .extension import Extension
from .http import bearer_token, client_address, decode, read_body
from .http import error as _error
from .players_api import players_routes
from .puzzle_routes import puzzle_routes
from .ratelimit import AddressBuckets
from .static import CLIENT_PAGES, ClientFiles
from .steps import GameSteps


class HttpCreateRoom(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Body of ``POST /api/rooms``: the host's name (and token, to keep an
    identity) plus the fields of the ``create_room`` message."""

    name: p.Name
    token: p.Token | None = None
    seats: p.SeatCount = 4
    rules: dict[str, Any] = msgspec.field(default_factory=dict)
    move_time: Literal[30, 60] | None = 30
    visibility: Literal["public", "private"] = "public"
    passphrase: p.Passphrase | None = None
    bot_level: p.Level = 3
    start: bool = False
    rated: bool | None = None
    rate_bots: bool = False


#: Error codes of HTTP answers that come from routing, not from a handler.
_HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}


async def _http_error(request: Request, exc: Exception) -> Response:
    """Starlette's 404/405 (and any other HTTPException) as the JSON error body."""
    assert isinstance(exc, HTTPException)
    code = _HTTP_CODES.get(exc.status_code, "http_error")
    message = f"{exc.detail}: {request.method} {request.url.path}"
    response = _error(exc.status_code, code, message)
    response.headers.update(exc.headers or {})  # 405 names the allowed methods
    return response


async def _internal_error(_request: Request, _exc: Exception) -> Response:
    """A bug in a handler: the JSON error body too (uvicorn logs the traceback)."""
    return _error(500, p.Code.INTERNAL, "internal server error")


def _game_id(text: str) -> int | None:
    """A game id from the URL: a positive decimal that fits a 64-bit column."""
    if not _DIGITS.fullmatch(text):
        return None
    value = int(text)
    return value if 0 < value < 2**63 else None


_DIGITS = re.compile(r"[0-9]{1,19}")


def invite_qr(url: str) -> bytes:
    """``url`` as a QR code in SVG (black on white, a quiet zone of 2 modules)."""
    qr = segno.make(url, error="m")
    out = io.BytesIO()
    qr.save(out, kind="svg", scale=6, border=2, xmldecl=False, dark="#000", light="#fff")
    return out.getvalue()


def _utf8_size(text: str, limit: int) -> int:
    """The UTF-8 size of ``text``, exactly when it may be over ``limit``."""
    return len(text) if len(text) * 4 <= limit else len(text.encode())


def _decode_create_room(raw: bytes) -> HttpCreateRoom:
    """Parse a ``POST /api/rooms`` body: ``bad_json`` for what is not JSON,
    ``invalid_message`` for JSON of the wrong shape (or nested too deeply)."""
    body = decode(raw, HttpCreateRoom)
    if not p.nested_within(body.rules, p.MAX_DEPTH - 1):
        raise p.ProtocolError(p.Code.INVALID, p.TOO_DEEP)
    return body


def create_app(config: ServerConfig, extensions: Sequence[Extension] = ()) -> Starlette:
    """The whole server as an ASGI app (its state lives in one :class:`Hub`),
    with what ``extensions`` add to it."""
    hub = Hub(config)
    #: Per-address limit on HTTP room creation (each makes a player and a
    #: room): one a second on average, bursts of ten.
    room_buckets = AddressBuckets(1.0, 10.0)
    node = None
    if config.redis_url:
        from ..cluster import ClusterNode  # only a cluster needs the Redis client

        node = ClusterNode(hub, config.redis_url, config.lease)
        hub.coord = node

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        await hub.startup()
        if node is not None:
            await node.start()
        log.event(
            "listening",
            host=config.host,
            port=config.port,
            db=make_url(config.db_url).render_as_string(hide_password=True),
            bot_workers=config.bot_workers,
            static=config.static_dir.is_dir(),
        )
        started: list[Extension] = []
        try:
            for extension in extensions:
                await extension.start(hub)
                started.append(extension)
            yield
        finally:
            for extension in reversed(started):
                await extension.stop()
            if node is not None:
                await node.stop()
            await hub.shutdown()
            log.event("stopped")
            log.flush()  # uvicorn may end the process by re-raising the signal

    async def health(_request: Request) -> Response:
        return JSONResponse(hub.health())

    async def metrics(_request: Request) -> Response:
        return Response(hub.metrics_text(), media_type=METRICS_TYPE)

    async def create_room(request: Request) -> Response:
        if not room_buckets.allow(client_address(request)):
            return _error(429, p.Code.RATE_LIMITED, "too many rooms created; wait a little")
        raw = await read_body(request, config.max_message)
        if raw is None:
            return _error(413, p.Code.TOO_BIG, f"bodies are at most {config.max_message} bytes")
        try:
            body = _decode_create_room(raw)
            fields = msgspec.structs.asdict(body)
            name = check_name(fields.pop("name"))
            token = fields.pop("token")
            msg = msgspec.convert(fields, p.CreateRoom)
            # The name is the host's new name only if the room is made (not on a 409).
            pl, token, _ = await hub.identify(token, name, rename=False)
            if pl.room is None and await hub.coord.room_elsewhere(pl.key) is not None:
                # Seated in a room of another process (a socket would be routed there).
                raise p.ProtocolError(
                    p.Code.ALREADY_IN_ROOM, "leave your room before creating another"
                )
            base_url = f"{request.url.scheme}://{request.url.netloc}"
            room = await hub.create_room(pl, msg, base_url, rename=name)
        except msgspec.ValidationError as exc:
            return _error(400, p.Code.INVALID, str(exc))
        except p.ProtocolError as exc:
            return _error(409 if exc.code == p.Code.ALREADY_IN_ROOM else 400, exc.code, exc.message)
        return JSONResponse(
            {
                "code": room.code,
                "invite": room.invite,
                "token": token,
                "room": msgspec.to_builtins(room.info()),
            },
            201,
        )

    async def list_rooms(_request: Request) -> Response:
        return JSONResponse({"rooms": await hub.coord.public_rooms(hub.public_rooms())})

    async def room_info(request: Request) -> Response:
        code = request.path_params["code"]
        room = hub.rooms.get(code)
        if room is not None:
            return JSONResponse(msgspec.to_builtins(room.info()))
        elsewhere = await hub.coord.room_info(code)  # cluster: owned by another process
        if elsewhere is None:
            return _error(404, p.Code.NO_SUCH_ROOM, "no room has that invite code")
        return JSONResponse(elsewhere)

    async def room_qr(request: Request) -> Response:
        """The room's invite link as a QR code (SVG), so a phone can join from
        a desktop's screen."""
        info = await hub.room_info(request.path_params["code"])
        if info is None:
            return _error(404, p.Code.NO_SUCH_ROOM, "no room has that invite code")
        return Response(
            invite_qr(str(info["invite"])),
            media_type="image/svg+xml",
            headers={"cache-control": "private, max-age=3600"},
        )

    async def game_record(request: Request) -> Response:
        game_id = _game_id(request.path_params["game_id"])
        record = None if game_id is None else await hub.store.finished_record(game_id)
        if record is None:
            return _error(404, "no_such_game", "no finished game has that id")
        return JSONResponse(record)

    steps = GameSteps(hub)

    async def game_steps(request: Request) -> Response:
        return await steps.serve(request, _game_id(request.path_params["game_id"]))

    async def my_results(request: Request) -> Response:
        token = bearer_token(request)
        if token is None:
            return _error(401, "no_token", "send Authorization: Bearer <your token>")
        key = player_key(token)
        name = await hub.store.player_name(key)
        if name is None:
            return _error(404, "no_such_player", "that token is unknown")
        levels = await hub.store.player_results(key)
        return JSONResponse({"name": name, "levels": {str(k): v for k, v in levels.items()}})

    async def no_client(_request: Request) -> Response:
        return PlainTextResponse(
            "Kozyr server: the browser client is not installed (src/kozyr/web/static).\n"
            "WebSocket protocol at /ws, see docs/protocol.md.\n"
        )

    async def ws_endpoint(ws: WebSocket) -> None:
        await ws.accept()
        conn = Connection(ws, config.rate, config.burst)
        hub.opened(conn)
        code: int | None = None
        try:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    code = message.get("code")
                    break
                text = _admit(conn, message.get("text"), message.get("bytes"))
                if conn.closed:
                    break
                if text is not None:
                    await hub.handle_text(conn, text)
        except WebSocketDisconnect as exc:
            code = exc.code
        finally:
            await conn.drain()
            conn.finish()
            hub.closed(conn, code)

    def _admit(conn: Connection, text: str | None, data: bytes | None) -> str | None:
        """Check a frame before it is parsed (size, flood, text frame): its text
        if it is to be handled, else None (its error is sent, and the connection
        closed if the docs say so)."""
        size = len(data or b"") if text is None else _utf8_size(text, config.max_message)
        if size > config.max_message:
            conn.send(
                p.Error(
                    code=p.Code.TOO_BIG,
                    message=f"messages are at most {config.max_message} bytes",
                    ref=None if text is None else p.peek_type(text),
                )
            )
            conn.close(1009, "message too big")
            return None
        if not conn.bucket.allow():
            ref = None if text is None else p.peek_type(text)
            if conn.bucket.violations >= config.flood_close_after:
                log.warning("flood_closed", conn=conn.id, address=conn.address)
                conn.send(p.Error(code=p.Code.RATE_LIMITED, message="message flood", ref=ref))
                conn.close(1008, "message flood")
                return None
            message = f"at most {config.rate:g} messages a second; message dropped"
            conn.send(p.Error(code=p.Code.RATE_LIMITED, message=message, ref=ref))
            return None
        if text is None:
            conn.send(
                p.Error(
                    code=p.Code.BAD_JSON,
                    message="binary frames are not part of the protocol: send JSON in text frames",
                )
            )
        return text

    routes: list[BaseRoute] = [
        Route("/health", health),
        Route("/metrics", metrics),
        Route("/api/rooms", create_room, methods=["POST"]),
        Route("/api/rooms", list_rooms, methods=["GET"]),
        Route("/api/rooms/{code}", room_info),
        Route("/api/rooms/{code}/qr.svg", room_qr),
        Route("/api/games/{game_id}", game_record),
        *analysis_routes(hub.analysis),
        Route("/api/games/{game_id}/steps", game_steps),
        Route("/api/me/results", my_results),
        *bot_routes(hub, config),
        *players_routes(hub),
        *puzzle_routes(hub),
        *(route for extension in extensions for route in extension.routes(hub)),
        WebSocketRoute("/ws", ws_endpoint),
    ]
    if config.static_dir.is_dir():
        client = ClientFiles(config.static_dir)
        routes += [Route(path, client.serve_page, methods=["GET"]) for path in CLIENT_PAGES]
        routes.append(Route("/{path:path}", client.serve, methods=["GET"]))
    else:
        routes.append(Route("/", no_client))
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={HTTPException: _http_error, Exception: _internal_error},
    )
    app.state.hub = hub
    return app
