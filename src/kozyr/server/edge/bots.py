"""``POST /api/bots``: make a bot account (docs/bot-api.md).

Why a module of its own: the bot API's only HTTP route, with its own creation
throttle; everything else a bot does goes over the WebSocket protocol people use.
"""

from __future__ import annotations

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from .. import protocol as p
from ..config import ServerConfig
from ..tables.bot_accounts import BOT_MAX_GAMES, CREATE_EVERY, NameTaken
from ..tables.lobby import Hub, check_name
from ..telemetry import log
from .http import client_address, decode, error, read_body
from .ratelimit import AddressBuckets


class NewBot(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Body of ``POST /api/bots``."""

    name: p.Name


def bot_routes(hub: Hub, config: ServerConfig) -> list[BaseRoute]:
    #: Per address: one account a minute on average, bursts of three.
    burst = config.bot_create_burst
    buckets = AddressBuckets(1.0 / CREATE_EVERY, burst)

    async def create_bot(request: Request) -> Response:
        address = client_address(request)
        raw = await read_body(request, config.max_message)
        if raw is None:
            return error(413, p.Code.TOO_BIG, f"bodies are at most {config.max_message} bytes")
        try:
            name = check_name(decode(raw, NewBot).name)
        except msgspec.ValidationError as exc:
            return error(400, p.Code.INVALID, str(exc))
        except p.ProtocolError as exc:
            return error(400, exc.code, exc.message)
        # Counted only for well-formed requests: a typo does not cost a minute.
        if not buckets.allow(address):
            return error(
                429,
                p.Code.RATE_LIMITED,
                f"at most {burst:g} bot accounts at once and one a minute after that, per address",
                retry_after=CREATE_EVERY,
            )
        try:
            account, token = await hub.bots.create(name)
        except NameTaken:
            return error(409, "name_taken", f"a bot account is called {name!r} already")
        log.event("bot_created", bot=account.name, address=address)
        return JSONResponse({"name": account.name, "token": token, "max_games": BOT_MAX_GAMES}, 201)

    return [Route("/api/bots", create_bot, methods=["POST"])]
