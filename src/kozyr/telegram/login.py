"""Telegram players on the server: their ``telegram_users`` rows
(:mod:`kozyr.server.storage.schema`) and the HTTP routes the Mini App uses
(docs/telegram.md, docs/protocol.md "HTTP API").

* ``POST /api/telegram/login`` ``{"init_data": "..."}``: the Mini App's launch data,
  checked as Telegram documents (:mod:`kozyr.telegram.initdata`); answers the
  player's token (derived from the Telegram user id, :mod:`kozyr.telegram.identity`),
  name, language, the deep link's start parameter and the Auto ladder.
* ``PUT /api/telegram/auto`` ``{"level", "games"}`` with ``Authorization: Bearer``:
  keeps a Telegram player's Auto ladder on the server, so it follows them to every
  device (a browser player's stays in the browser's localStorage).

The routes exist only on a server with a bot token (:mod:`kozyr.telegram.server`
adds them); without one, ``kozyr serve`` answers them 404 ``telegram_off`` and
loads no Telegram code.
"""

from __future__ import annotations

import json
import time
from typing import Any

import msgspec
from sqlalchemy import Connection, insert, select, update
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from kozyr.server import protocol as p
from kozyr.server.edge.http import bearer_token, decode, no_token, read_body
from kozyr.server.edge.http import error as _error
from kozyr.server.edge.ratelimit import AddressBuckets
from kozyr.server.players.ids import new_public_id
from kozyr.server.protocol import ProtocolError
from kozyr.server.storage.schema import players, telegram_users
from kozyr.server.tables.lobby import Hub, player_key
from kozyr.server.tables.rooms import Player

from .identity import bot_language, display_name, player_token
from .initdata import InitDataError, TelegramUser, parse_init_data
from .settings import TelegramSettings


class LoginBody(msgspec.Struct, forbid_unknown_fields=True):
    init_data: str


class AutoBody(msgspec.Struct, forbid_unknown_fields=True):
    level: int
    games: int


# ------------------------------------------------------------ storage
async def bind_user(
    hub: Hub, settings: TelegramSettings, user: TelegramUser
) -> tuple[Player, str, dict[str, Any]]:
    """(player, token, row) for a Telegram user: the player is created under
    the user's Telegram name; the row is their telegram_users row.

    The profile's name follows the Telegram name (a user renamed in Telegram
    is renamed here at the next login) until the person picks a name of their
    own on the profile screen: then that name stays (docs/telegram.md)."""
    token = player_token(settings.player_secret, user.id)
    key = player_key(token)
    tg_name = display_name(user.first_name, user.last_name, user.id)
    lang = bot_language(user.language_code)
    now = time.time()

    def job(conn: Connection) -> tuple[str, dict[str, Any]]:
        cols = telegram_users.c
        row = conn.execute(select(telegram_users).where(cols.tg_id == user.id)).mappings().first()
        current = conn.execute(select(players.c.name).where(players.c.key == key)).scalar()
        if current is None:
            name = tg_name
            conn.execute(
                insert(players).values(
                    key=key, name=name, created_at=now, public_id=new_public_id()
                )
            )
        elif row is None or current == row["name"]:
            name = tg_name  # still the Telegram name it was given: follow it
            if current != name:
                conn.execute(update(players).where(players.c.key == key).values(name=name))
        else:
            name = str(current)  # a name the person chose
        values = {"player": key, "name": tg_name, "lang": lang, "seen_at": now}
        if row is None:
            conn.execute(
                insert(telegram_users).values(tg_id=user.id, nudges=True, created_at=now, **values)
            )
            return name, {"tg_id": user.id, "nudges": True, "auto": None, **values}
        conn.execute(update(telegram_users).where(cols.tg_id == user.id).values(**values))
        return name, {**dict(row), **values}

    name, row = await hub.store.call(job)
    pl = hub._player(key, name)
    pl.name = name  # a player already in memory takes the name stored above
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


def telegram_routes(hub: Hub, settings: TelegramSettings) -> list[BaseRoute]:
    buckets = AddressBuckets(5.0, 20.0)

    def allowed(request: Request) -> bool:
        return buckets.allow(request.client.host if request.client else "unknown")

    async def login(request: Request) -> Response:
        if not allowed(request):
            return _error(
                429, p.Code.RATE_LIMITED, "too many logins from your address; wait a little"
            )
        body = await _json_body(request, LoginBody)
        if isinstance(body, Response):
            return body
        try:
            data = parse_init_data(body.init_data, settings.token, settings.max_age)
        except InitDataError as exc:
            return _error(exc.status, exc.code, exc.message)
        pl, token, row = await bind_user(hub, settings, data.user)
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
        token = bearer_token(request)
        if token is None:
            return no_token()
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
