"""What the HTTP routes share (:mod:`.app`, :mod:`.telegram_api`): the JSON
error body of docs/protocol.md ("HTTP API") and a size-limited body read."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse


def json_error(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    """``{"error": {"code", "message", ...}}`` with HTTP status ``status``."""
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
