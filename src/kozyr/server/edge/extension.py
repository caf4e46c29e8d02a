"""The hook through which packages above the server add to it.

Why: the server must not import what is built on it.  ``kozyr.telegram`` adds
its login routes and runs its bot through an :class:`Extension` that the
command line hands to :func:`~kozyr.server.edge.app.create_app`; a server
started without one loads no Telegram code at all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from .http import error

if TYPE_CHECKING:
    from ..tables.lobby import Hub


class Extension(Protocol):
    """Something added to a server: HTTP routes, and work that runs for as
    long as the server does.

    The app calls :meth:`routes` once while it is built (they come before the
    browser client's catch-all route), :meth:`start` once the hub has started
    (and, in a cluster, joined it), and :meth:`stop` before the hub stops."""

    def routes(self, hub: Hub) -> list[BaseRoute]: ...

    async def start(self, hub: Hub) -> None: ...

    async def stop(self) -> None: ...


class Unconfigured:
    """An extension left out: its routes answer 404 with ``code`` and a
    sentence saying what to configure, instead of a bare ``not_found``, so a
    client can tell "this server does not do that" from a wrong address."""

    def __init__(self, paths: list[str], code: str, message: str) -> None:
        self.paths = paths
        self.code = code
        self.message = message

    def routes(self, hub: Hub) -> list[BaseRoute]:
        async def off(_request: Request) -> Response:
            return error(404, self.code, self.message)

        return [Route(path, off, methods=["GET", "POST", "PUT"]) for path in self.paths]

    async def start(self, hub: Hub) -> None:
        """Nothing runs."""

    async def stop(self) -> None:
        """Nothing runs."""
