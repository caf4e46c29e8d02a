"""Telegram players on the server: the ``telegram_users`` table and the HTTP routes
the Mini App uses (docs/telegram.md, docs/protocol.md "HTTP API").

* ``POST /api/telegram/login`` ``{"init_data": "..."}``: the Mini App's launch data,
  checked as Telegram documents (:mod:`kozyr.telegram.initdata`); answers the
  player's token (derived from the Telegram user id, :mod:`kozyr.telegram.identity`),
  name, language, the deep link's start parameter and the Auto ladder.
* ``PUT /api/telegram/auto`` ``{"level", "games"}`` with ``Authorization: Bearer``:
  keeps a Telegram player's Auto ladder on the server, so it follows them to every
  device (a browser player's stays in the browser's localStorage).

Both answer 404 ``telegram_off`` when the server has no bot token.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import msgspec
from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    Float,
    String,
    Table,
    Text,
    insert,
    select,
    update,
)
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from kozyr.telegram.identity import bot_language, display_name, player_token
from kozyr.telegram.initdata import InitDataError, TelegramUser, parse_init_data

from . import protocol as p
from .config import ServerConfig
from .http import bearer_token, decode, read_body
from .http import error as _error
from .lobby import Hub, player_key
from .protocol import ProtocolError
from .ratelimit import AddressBuckets
from .rooms import Player
from .store import metadata

#: One row per Telegram user who opened the Mini App or used the bot. A new
#: table (created on start like the others), so older databases need nothing.
telegram_users = Table(
    "telegram_users",
    metadata,
    Column("tg_id", BigInteger, primary_key=True, autoincrement=False),
    #: The player's key (hash of the derived token), as in ``players.key``.
    Column("player", String(64), nullable=False, index=True),
    Column("name", String(64), nullable=False),
    #: en | ru | zh | ja, from the user's Telegram language.
    Column("lang", String(8), nullable=False),
    #: "Your turn" messages wanted (the user can turn them off).
    Column("nudges", Boolean, nullable=False, default=True),
    #: The Auto ladder as JSON {"level", "games"}, null until the first Auto game.
    Column("auto", Text),
    Column("created_at", Float, nullable=False),
    Column("seen_at", Float, nullable=False),
)


class LoginBody(msgspec.Struct, forbid_unknown_fields=True):
    init_data: str


class AutoBody(msgspec.Struct, forbid_unknown_fields=True):
    level: int
    games: int


def config_from_env(config: ServerConfig) -> ServerConfig:
    """Fill the Telegram settings from the environment (the documented contract)."""
    env = os.environ
    config.telegram_token = env.get("KOZYR_TELEGRAM_TOKEN", config.telegram_token).strip()
    config.telegram_secret = env.get("KOZYR_TELEGRAM_SECRET", config.telegram_secret)
    config.telegram_api = env.get("KOZYR_TELEGRAM_API", "").strip() or config.telegram_api
    config.public_url = env.get("KOZYR_PUBLIC_URL", config.public_url).strip().rstrip("/")
    age = env.get("KOZYR_TELEGRAM_MAX_AGE")
    if age:
        config.telegram_max_age = float(age)
    return config


def secret_of(config: ServerConfig) -> str:
    return config.telegram_secret or config.telegram_token


# ------------------------------------------------------------ storage
async def bind_user(hub: Hub, user: TelegramUser) -> tuple[Player, str, dict[str, Any]]:
    """(player, token, row) for a Telegram user: the player is created or
    renamed after the user's Telegram name; the row is their telegram_users row."""
    config = hub.config
    token = player_token(secret_of(config), user.id)
    key = player_key(token)
    name = display_name(user.first_name, user.last_name, user.id)
    lang = bot_language(user.language_code)
    now = time.time()
    await hub.store.add_player(key, name)

    def job(conn: Connection) -> dict[str, Any]:
        cols = telegram_users.c
        row = conn.execute(select(telegram_users).where(cols.tg_id == user.id)).mappings().first()
        values = {"player": key, "name": name, "lang": lang, "seen_at": now}
        if row is None:
            conn.execute(
                insert(telegram_users).values(tg_id=user.id, nudges=True, created_at=now, **values)
            )
            return {"tg_id": user.id, "nudges": True, "auto": None, **values}
        conn.execute(update(telegram_users).where(cols.tg_id == user.id).values(**values))
        return {**dict(row), **values}

    row = await hub.store.call(job)
    pl = hub._player(key, name)
    pl.name = name  # a player already in memory takes the new name (stored above)
    return pl, token, row


async def user_by_player(hub: Hub, key: str) -> dict[str, Any] | None:
    def job(conn: Connection) -> dict[str, Any] | None:
        row = (
            conn.execute(select(telegram_users).where(telegram_users.c.player == key))
            .mappings()
            .first()
        )
        return None if row is None else dict(row)

    return await hub.store.call(job)


async def set_nudges(hub: Hub, tg_id: int, on: bool) -> bool:
    """Turn a user's nudges on or off; False if the user is unknown."""

    def job(conn: Connection) -> bool:
        done = conn.execute(
            update(telegram_users).where(telegram_users.c.tg_id == tg_id).values(nudges=on)
        )
        return bool(done.rowcount)

    return await hub.store.call(job)


def _auto(row: dict[str, Any]) -> dict[str, int] | None:
    try:
        data = json.loads(row["auto"]) if row.get("auto") else None
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


# ------------------------------------------------------------ routes
_OFF = "Telegram login is not configured on this server (no KOZYR_TELEGRAM_TOKEN)"
_MAX_BODY = 8192


async def _json_body(request: Request, kind: type[Any]) -> Any:
    """The request body as ``kind``; a :class:`Response` with the error if it is not."""
    raw = await read_body(request, _MAX_BODY)
    if raw is None:
        return _error(413, "too_big", f"bodies are at most {_MAX_BODY} bytes")
    try:
        return decode(raw, kind)
    except msgspec.ValidationError as exc:
        return _error(400, "invalid_message", str(exc))
    except ProtocolError as exc:
        return _error(400, exc.code, exc.message)


def telegram_routes(hub: Hub) -> list[BaseRoute]:
    config = hub.config
    buckets = AddressBuckets(5.0, 20.0)

    def allowed(request: Request) -> bool:
        return buckets.allow(request.client.host if request.client else "unknown")

    async def login(request: Request) -> Response:
        if not config.telegram_token:
            return _error(404, "telegram_off", _OFF)
        if not allowed(request):
            return _error(
                429, p.Code.RATE_LIMITED, "too many logins from your address; wait a little"
            )
        body = await _json_body(request, LoginBody)
        if isinstance(body, Response):
            return body
        try:
            data = parse_init_data(body.init_data, config.telegram_token, config.telegram_max_age)
        except InitDataError as exc:
            return _error(exc.status, exc.code, exc.message)
        pl, token, row = await bind_user(hub, data.user)
        return JSONResponse(
            {
                "token": token,
                "name": pl.name,
                "language": row["lang"],
                "start_param": data.start_param,
                "auto": _auto(row),
                "nudges": bool(row["nudges"]),
                "room": pl.room.code if pl.room else None,
            }
        )

    async def save_auto(request: Request) -> Response:
        if not config.telegram_token:
            return _error(404, "telegram_off", _OFF)
        token = bearer_token(request)
        if token is None:
            return _error(401, "no_token", "send Authorization: Bearer <your token>")
        body = await _json_body(request, AutoBody)
        if isinstance(body, Response):
            return body
        if not 1 <= body.level <= 10 or not 0 <= body.games <= 10**9:
            return _error(400, "invalid_message", "level is 1 to 10, games 0 or more")
        key = player_key(token)
        text = json.dumps({"level": body.level, "games": body.games})

        def job(conn: Connection) -> bool:
            done = conn.execute(
                update(telegram_users).where(telegram_users.c.player == key).values(auto=text)
            )
            return bool(done.rowcount)

        if not await hub.store.call(job):
            return _error(404, "no_such_player", "that token is not a Telegram player's")
        return JSONResponse({"level": body.level, "games": body.games})

    return [
        Route("/api/telegram/login", login, methods=["POST"]),
        Route("/api/telegram/auto", save_auto, methods=["PUT"]),
    ]
