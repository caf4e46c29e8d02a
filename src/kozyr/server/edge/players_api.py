"""The HTTP routes of profiles, history, candies and ratings (issue 26;
docs/protocol.md, "Players"):

* ``GET /api/me``, ``PATCH /api/me``, ``DELETE /api/me`` — your profile (Bearer token).
* ``GET /api/me/games?limit=N&before=CURSOR`` — your finished games, newest first.
* ``POST /api/me/transfer`` — a one-time code that moves your profile to another device.
* ``POST /api/claim`` ``{"code"}`` — the token of a transfer code (throttled).
* ``GET /api/players/{public_id}`` and ``…/games`` — a public profile and its games.
* ``GET /api/leaderboard?variant=&limit=`` — the best rated players who are not provisional.

Why a module of its own: the profile logic lives in :mod:`kozyr.server.players`;
this is only HTTP (parsing, errors, throttling), kept apart from ``app.py``.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from .. import protocol as p
from ..players import history, profiles
from ..players.ids import AVATARS, new_transfer_code, normalise_code, valid_public_id
from ..players.ratings import VARIANTS
from ..tables.lobby import Hub, check_name, player_key
from ..tables.rooms import Player
from .http import bearer_token, client_address, decode, no_such_player, no_token, read_body
from .http import error as _error
from .ratelimit import AddressBuckets

LANGS = ("en", "ru", "zh", "ja")
#: Claims per address: 10 at once, then one every 6 seconds (an 8-letter code
#: has 31^8 ≈ 8.5e11 values: guessing one is hopeless at that pace).
CLAIM_RATE, CLAIM_BURST = 1 / 6, 10.0
#: Transfer codes per address: a few at once (``Config.transfer_burst``), then one
#: every 10 seconds.
TRANSFER_RATE = 0.1
LEADERBOARD_MAX = 100


class ProfilePatch(msgspec.Struct, forbid_unknown_fields=True):
    name: str | None = None
    avatar: str | None = None
    lang: str | None = None


class ClaimBody(msgspec.Struct, forbid_unknown_fields=True):
    code: str


def _limit(request: Request, default: int, most: int) -> int | Response:
    raw = request.query_params.get("limit")
    if raw is None:
        return default
    if not raw.isdigit() or not 1 <= int(raw) <= most:
        return _error(400, "bad_limit", f"limit is a whole number from 1 to {most}")
    return int(raw)


def _seated_in_game(pl: Player) -> bool:
    """Names change between games only (as ``rename`` says)."""
    room = pl.room
    return room is not None and room.state == "playing" and room.seat_of(pl) is not None


def players_routes(hub: Hub) -> list[BaseRoute]:
    """The routes, bound to ``hub`` (its store and config)."""
    claims = AddressBuckets(CLAIM_RATE, CLAIM_BURST)
    transfers = AddressBuckets(TRANSFER_RATE, hub.config.transfer_burst)
    cap = hub.config.candy_cap

    async def me_key(request: Request) -> str | Response:
        token = bearer_token(request)
        if token is None:
            return no_token()
        return player_key(token)

    def with_key(
        handler: Callable[[Request, str], Awaitable[Response]],
    ) -> Callable[[Request], Awaitable[Response]]:
        async def route(request: Request) -> Response:
            key = await me_key(request)
            if isinstance(key, Response):
                return key
            return await handler(request, key)

        return route

    async def get_me(_request: Request, key: str) -> Response:
        found = await hub.store.call(lambda c: profiles.my_profile(c, key, cap))
        return no_such_player() if found is None else JSONResponse(found)

    async def patch_me(request: Request, key: str) -> Response:
        raw = await read_body(request, hub.config.max_message)
        if raw is None:
            return _error(413, p.Code.TOO_BIG, f"bodies are at most {hub.config.max_message} bytes")
        try:
            body = decode(raw, ProfilePatch)
            name = None if body.name is None else check_name(body.name)
        except msgspec.ValidationError as exc:
            return _error(400, p.Code.INVALID, str(exc))
        except p.ProtocolError as exc:
            return _error(400, exc.code, exc.message)
        if body.avatar is not None and body.avatar not in AVATARS:
            return _error(400, "bad_avatar", f"avatar is one of {', '.join(AVATARS)}")
        if body.lang is not None and body.lang not in LANGS:
            return _error(400, "bad_lang", f"lang is one of {', '.join(LANGS)}")
        pl = hub.players.get(key)
        if name is not None and pl is not None and _seated_in_game(pl):
            return _error(409, p.Code.WRONG_STATE, "names are changed between games")
        ok = await hub.store.call(
            lambda c: profiles.update_profile(c, key, name, body.avatar, body.lang)
        )
        if not ok:
            return no_such_player()
        if name is not None and pl is not None and pl.name != name:
            pl.name = name
            if pl.room is not None:
                pl.room.changed()
                pl.room.broadcast_room()
        return await get_me(request, key)

    async def delete_me(_request: Request, key: str) -> Response:
        pl = hub.players.get(key)
        if pl is not None and pl.room is not None:
            return _error(409, p.Code.ALREADY_IN_ROOM, "leave your room before deleting yourself")
        if await hub.coord.room_elsewhere(key) is not None:
            return _error(409, p.Code.ALREADY_IN_ROOM, "leave your room before deleting yourself")
        if not await hub.store.call(lambda c: profiles.delete_profile(c, key)):
            return no_such_player()
        if pl is not None:
            if pl.conn is not None:
                pl.conn.close(1000, "profile deleted")
            hub.forget(pl)
        return JSONResponse({"deleted": True})

    async def my_games(request: Request, key: str) -> Response:
        return await _games(request, key, public=False)

    async def _games(request: Request, key: str, public: bool) -> Response:
        limit = _limit(request, history.DEFAULT_LIMIT, history.MAX_LIMIT)
        if isinstance(limit, Response):
            return limit
        before = None
        raw = request.query_params.get("before")
        if raw:
            try:
                before = history.decode_cursor(raw)
            except history.BadCursor as exc:
                return _error(400, "bad_cursor", str(exc))

        def job(conn: Any) -> dict[str, Any] | None:
            if not public and profiles.key_exists(conn, key) is False:
                return None
            return history.games_of(conn, key, limit, before, public)

        found = await hub.store.call(job, read_only=True)
        return no_such_player() if found is None else JSONResponse(found)

    async def transfer(request: Request, key: str) -> Response:
        if not transfers.allow(client_address(request)):
            return _error(429, p.Code.RATE_LIMITED, "too many codes asked for; wait a little",
                          retry_after=10)  # fmt: skip
        token = bearer_token(request)
        assert token is not None
        code = new_transfer_code()
        now = time.time()
        ok = await hub.store.call(lambda c: profiles.create_transfer(c, key, token, code, now))
        if not ok:
            return no_such_player()
        return JSONResponse(
            {
                "code": code,
                "expires_at": history.iso(now + profiles.TRANSFER_TTL),
                "expires_in": int(profiles.TRANSFER_TTL),
            },
            201,
        )

    async def claim(request: Request) -> Response:
        if not claims.allow(client_address(request)):
            return _error(429, p.Code.RATE_LIMITED, "too many codes tried; wait a little",
                          retry_after=round(1 / CLAIM_RATE))  # fmt: skip
        raw = await read_body(request, hub.config.max_message)
        if raw is None:
            return _error(413, p.Code.TOO_BIG, f"bodies are at most {hub.config.max_message} bytes")
        try:
            body = decode(raw, ClaimBody)
        except msgspec.ValidationError as exc:
            return _error(400, p.Code.INVALID, str(exc))
        except p.ProtocolError as exc:
            return _error(400, exc.code, exc.message)
        code = normalise_code(body.code)
        if code is None:
            return _error(400, "bad_code", "a transfer code is 8 letters and digits")
        now = time.time()
        outcome, token = await hub.store.call(lambda c: profiles.claim_transfer(c, code, now))
        if token is None:
            messages = {
                "unknown_code": "no profile has that code (check it, or ask for a new one)",
                "code_used": "that code was used already: ask for a new one",
                "code_expired": "that code is more than 10 minutes old: ask for a new one",
            }
            return _error(404 if outcome == "unknown_code" else 410, outcome, messages[outcome])
        key = player_key(token)
        found = await hub.store.call(lambda c: profiles.my_profile(c, key, cap))
        if found is None:
            return _error(404, "unknown_code", "no profile has that code")
        return JSONResponse(
            {"token": token, "public_id": found["public_id"], "name": found["name"]}
        )

    async def public_key(request: Request) -> str | Response:
        public_id = request.path_params["public_id"]
        if not valid_public_id(public_id):
            return _error(404, "no_such_player", "no player has that id")
        return str(public_id)

    async def player_page(request: Request) -> Response:
        public_id = await public_key(request)
        if isinstance(public_id, Response):
            return public_id
        found = await hub.store.call(
            lambda c: profiles.public_profile(c, public_id), read_only=True
        )
        if found is None:
            return _error(404, "no_such_player", "no player has that id")
        return JSONResponse(found)

    async def player_games(request: Request) -> Response:
        public_id = await public_key(request)
        if isinstance(public_id, Response):
            return public_id
        key = await hub.store.call(lambda c: profiles.key_of_public(c, public_id), read_only=True)
        if key is None:
            return _error(404, "no_such_player", "no player has that id")
        return await _games(request, key, public=True)

    async def board(request: Request) -> Response:
        variant = request.query_params.get("variant", "podkidnoy")
        if variant not in VARIANTS:
            return _error(400, "bad_variant", f"variant is one of {', '.join(VARIANTS)}")
        limit = _limit(request, 50, LEADERBOARD_MAX)
        if isinstance(limit, Response):
            return limit
        rows = await hub.store.call(
            lambda c: profiles.leaderboard(c, variant, limit), read_only=True
        )
        return JSONResponse({"variant": variant, "players": rows})

    return [
        Route("/api/me", with_key(get_me), methods=["GET"]),
        Route("/api/me", with_key(patch_me), methods=["PATCH"]),
        Route("/api/me", with_key(delete_me), methods=["DELETE"]),
        Route("/api/me/games", with_key(my_games), methods=["GET"]),
        Route("/api/me/transfer", with_key(transfer), methods=["POST"]),
        Route("/api/claim", claim, methods=["POST"]),
        Route("/api/players/{public_id}", player_page, methods=["GET"]),
        Route("/api/players/{public_id}/games", player_games, methods=["GET"]),
        Route("/api/leaderboard", board, methods=["GET"]),
    ]
