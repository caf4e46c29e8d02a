"""``GET /api/games/{id}/steps``: a finished game, step by step, for the viewer.

The browser cannot run the rules engine, so the server replays the record once
and sends the omniscient state after every action (docs/protocol.md, "The game
viewer's steps"). Only a finished game is ever replayed: a game in play would
show every hand and the deck, so it is refused with ``game_not_finished``.

A finished record never changes, so the answer is kept (a small LRU of
encoded bodies) and the replay runs in a worker thread, off the event loop.
"""

from __future__ import annotations

import asyncio
import gzip
from collections import OrderedDict
from typing import Any

import msgspec
from sqlalchemy import select
from sqlalchemy.engine import Connection
from starlette.requests import Request
from starlette.responses import Response

from ...engine.actions import Action
from ...engine.record import GameRecord
from ..storage.schema import games
from ..tables.lobby import Hub
from .http import error

#: How many replayed games are kept in memory (a few hundred kB at most).
CACHE_SIZE = 64
#: Bodies smaller than this are sent as they are.
MIN_COMPRESS = 1000


def replay_steps(game_id: int, data: dict[str, Any]) -> dict[str, Any]:
    """The steps of a finished game's record: step 0 is the deal, step k the
    state after action k-1 (``index`` is that action's place in the record)."""
    record = GameRecord.from_json(data)
    state = record.start()
    steps: list[dict[str, Any]] = [{"index": None, "action": None, "state": state.to_json()}]
    for i, raw in enumerate(record.actions):
        action = Action.from_json(raw)
        state.apply(action)
        steps.append({"index": i, "action": action.to_json(), "state": state.to_json()})
    meta = record.meta
    players = meta.get("players")
    return {
        "game_id": game_id,
        "rules": record.rules.to_dict(),
        "players": players if isinstance(players, list) else None,
        "started": meta.get("started") if isinstance(meta.get("started"), str) else None,
        "result": state.to_json()["result"],
        "steps": steps,
    }


class GameSteps:
    """The route's handler, with its cache of encoded answers."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        #: game id -> (JSON, gzipped JSON)
        self._cache: OrderedDict[int, tuple[bytes, bytes]] = OrderedDict()

    async def status(self, game_id: int) -> str | None:
        """``playing``, ``finished``, ``abandoned``, or None for no such game."""

        def job(conn: Connection) -> str | None:
            row = conn.execute(select(games.c.status).where(games.c.id == game_id)).first()
            return None if row is None else str(row[0])

        return await self.hub.store.call(job, read_only=True)

    async def body(self, game_id: int) -> tuple[bytes, bytes] | Response:
        """The encoded steps of a game (plain and gzipped), or the error to answer with."""
        cached = self._cache.get(game_id)
        if cached is not None:
            self._cache.move_to_end(game_id)
            return cached
        status = await self.status(game_id)
        if status == "playing":
            return error(
                409,
                "game_not_finished",
                "that game is still being played: it can be viewed once it is over",
            )
        record = None if status != "finished" else await self.hub.store.finished_record(game_id)
        if record is None:
            return error(404, "no_such_game", "no finished game has that id")
        body = await asyncio.to_thread(_encoded, game_id, record)
        self._cache[game_id] = body
        if len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        return body

    async def serve(self, request: Request, game_id: int | None) -> Response:
        if game_id is None:
            return error(404, "no_such_game", "no finished game has that id")
        bodies = await self.body(game_id)
        if isinstance(bodies, Response):
            return bodies
        plain, packed = bodies
        headers = {"cache-control": "public, max-age=300", "vary": "Accept-Encoding"}
        if len(plain) >= MIN_COMPRESS and "gzip" in request.headers.get("accept-encoding", ""):
            headers["content-encoding"] = "gzip"
            return Response(packed, media_type="application/json", headers=headers)
        return Response(plain, media_type="application/json", headers=headers)


def _encoded(game_id: int, record: dict[str, Any]) -> tuple[bytes, bytes]:
    """Replay and encode (in a worker thread): the JSON and its gzip."""
    plain = msgspec.json.encode(replay_steps(game_id, record))
    return plain, gzip.compress(plain, compresslevel=6, mtime=0)
