"""The ASGI application: HTTP API, the WebSocket endpoint, static files; and
:func:`serve`, which runs it with uvicorn.

Routes (docs/protocol.md has the details):

* ``GET /health`` — liveness and counters.
* ``POST /api/rooms`` — create a room over HTTP (returns invite code and token).
* ``GET /api/rooms`` — public rooms waiting in the lobby.
* ``GET /api/rooms/{code}`` — one room by invite code.
* ``GET /api/games/{id}`` — a finished game's record (for ``kozyr replay``).
* ``GET /api/me/results`` — your results against the computer, per level
  (``Authorization: Bearer <token>``).
* ``WS /ws`` — the game protocol.
* ``/`` — the browser client from ``src/kozyr/web/static`` when it exists
  (:mod:`kozyr.server.static`: versioned names cached for a year, pages and
  plain names revalidated with ETags, brotli or gzip).
"""

from __future__ import annotations

import socket
import traceback
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Literal

import msgspec
import uvicorn
from sqlalchemy.engine import make_url
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from . import logging as log
from . import protocol as p
from .config import ServerConfig
from .connection import Connection
from .lobby import Hub, check_name, player_key
from .static import ClientFiles


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


def _error(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message, **extra}}, status)


def create_app(config: ServerConfig) -> Starlette:
    """The whole server as an ASGI app (its state lives in one :class:`Hub`)."""
    hub = Hub(config)

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        await hub.startup()
        log.event(
            "listening",
            host=config.host,
            port=config.port,
            db=make_url(config.db_url).render_as_string(hide_password=True),
            bot_workers=config.bot_workers,
            static=config.static_dir.is_dir(),
        )
        try:
            yield
        finally:
            await hub.shutdown()
            log.event("stopped")
            log.flush()  # uvicorn may end the process by re-raising the signal

    async def health(_request: Request) -> Response:
        return JSONResponse(hub.health())

    async def create_room(request: Request) -> Response:
        if not hub.http_allowed(request.client.host if request.client else "unknown"):
            return _error(429, p.Code.RATE_LIMITED, "too many rooms created; wait a little")
        try:
            body = msgspec.json.decode(await request.body(), type=HttpCreateRoom)
            fields = msgspec.structs.asdict(body)
            name = check_name(fields.pop("name"))
            token = fields.pop("token")
            msg = msgspec.convert(fields, p.CreateRoom)
            pl, token, _ = await hub.identify(token, name)
            room = await hub.create_room(pl, msg, f"{request.url.scheme}://{request.url.netloc}")
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
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
        return JSONResponse({"rooms": hub.public_rooms()})

    async def room_info(request: Request) -> Response:
        room = hub.rooms.get(request.path_params["code"])
        if room is None:
            return _error(404, p.Code.NO_SUCH_ROOM, "no room has that invite code")
        return JSONResponse(msgspec.to_builtins(room.info()))

    async def game_record(request: Request) -> Response:
        record = await hub.store.finished_record(request.path_params["game_id"])
        if record is None:
            return _error(404, "no_such_game", "no finished game has that id")
        return JSONResponse(record)

    async def my_results(request: Request) -> Response:
        auth = request.headers.get("authorization", "")
        if not auth.lower().startswith("bearer "):
            return _error(401, "no_token", "send Authorization: Bearer <your token>")
        key = player_key(auth[7:].strip())
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
                raw: str | bytes = message.get("text") or message.get("bytes") or b""
                if not conn.bucket.allow():
                    if conn.bucket.violations >= config.flood_close_after:
                        log.warning("flood_closed", conn=conn.id, address=conn.address)
                        conn.send(p.Error(code=p.Code.RATE_LIMITED, message="message flood"))
                        conn.close(1008, "message flood")
                        break
                    conn.send(
                        p.Error(
                            code=p.Code.RATE_LIMITED,
                            message=f"at most {config.rate:g} messages a second; message dropped",
                        )
                    )
                    continue
                if len(raw) > config.max_message:
                    conn.send(
                        p.Error(
                            code=p.Code.TOO_BIG,
                            message=f"messages are at most {config.max_message} bytes",
                        )
                    )
                    conn.close(1009, "message too big")
                    break
                await _handle(conn, raw)
        except WebSocketDisconnect as exc:
            code = exc.code
        finally:
            await conn.drain()
            hub.closed(conn, code)

    async def _handle(conn: Connection, raw: str | bytes) -> None:
        try:
            msg = p.decode(raw)
            await hub.handle(conn, msg)
        except p.ProtocolError as exc:
            log.event(
                "error",
                conn=conn.id,
                player=conn.player.name if conn.player else None,
                code=exc.code,
                message=exc.message,
                ref=exc.ref,
            )
            conn.send(exc.to_message())
        except Exception as exc:
            log.error(
                "internal_error", conn=conn.id, error=repr(exc), traceback=traceback.format_exc()
            )
            conn.send(p.Error(code=p.Code.INTERNAL, message="internal server error"))

    routes: list[BaseRoute] = [
        Route("/health", health),
        Route("/api/rooms", create_room, methods=["POST"]),
        Route("/api/rooms", list_rooms, methods=["GET"]),
        Route("/api/rooms/{code}", room_info),
        Route("/api/games/{game_id:int}", game_record),
        Route("/api/me/results", my_results),
        WebSocketRoute("/ws", ws_endpoint),
    ]
    if config.static_dir.is_dir():
        client = ClientFiles(config.static_dir)
        routes.append(Route("/{path:path}", client.serve, methods=["GET"]))
    else:
        routes.append(Route("/", no_client))
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.hub = hub
    return app


def bind(host: str, port: int) -> socket.socket:
    """A listening socket (port 0 picks a free port; read it back from the socket)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(4096)
    sock.set_inheritable(True)
    return sock


def serve(config: ServerConfig) -> int:
    """Run the server until SIGINT/SIGTERM; returns the exit code."""
    log.configure(config.log_level)
    try:
        sock = bind(config.host, config.port)
    except OSError as exc:
        log.error("bind_failed", host=config.host, port=config.port, error=str(exc))
        return 1
    config.port = sock.getsockname()[1]
    uconfig = uvicorn.Config(
        create_app(config),
        log_config=None,
        access_log=False,
        ws_max_size=config.max_message,
        # Compression costs more CPU than it saves on small JSON frames.
        ws_per_message_deflate=False,
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        timeout_graceful_shutdown=5,
        lifespan="on",
    )
    server = uvicorn.Server(uconfig)
    server.run(sockets=[sock])
    return 0 if server.started else 1
