"""What every HTTP route answers with: the JSON error body, a body read up to a
limit, a body decoded into a struct, the bearer token and the client's address
(the key of the per-address throttles) of a request.

The routes of ``app.py`` and of ``telegram_api.py`` share these, so the same bad
input gets the same answer everywhere (docs/protocol.md, "HTTP errors")."""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse

from .. import protocol as p

T = TypeVar("T")


def error(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message, **extra}}, status)


async def read_body(request: Request, limit: int) -> bytes | None:
    """The request body, or None once it grows past ``limit`` bytes."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def decode(raw: bytes, kind: type[T]) -> T:
    """``raw`` as ``kind``: ``bad_json`` (a :class:`ProtocolError`) for what is not
    JSON, ``invalid_message`` for JSON nested too deeply; JSON of the wrong shape
    raises :class:`msgspec.ValidationError` (also ``invalid_message``)."""
    try:
        return msgspec.json.decode(raw, type=kind)
    except msgspec.ValidationError:
        raise
    except msgspec.DecodeError as exc:
        raise p.ProtocolError(p.Code.BAD_JSON, str(exc)) from None
    except RecursionError:
        raise p.ProtocolError(p.Code.INVALID, p.TOO_DEEP) from None


def bearer_token(request: Request) -> str | None:
    """The token of ``Authorization: Bearer <token>``, or None without one."""
    auth = request.headers.get("authorization", "")
    return auth[7:].strip() if auth.lower().startswith("bearer ") else None


def no_token() -> JSONResponse:
    """401 for a route that needs ``Authorization: Bearer <token>``."""
    return error(401, "no_token", "send Authorization: Bearer <your token>")


def no_such_player() -> JSONResponse:
    """404 for a Bearer token no profile has."""
    return error(404, "no_such_player", "that token is unknown")


def client_address(request: Request) -> str:
    """The client's address, the key of the per-address throttles."""
    return request.client.host if request.client else "unknown"
