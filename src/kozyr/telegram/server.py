"""Telegram on the game server: the :class:`~kozyr.server.edge.extension.Extension`
that ``kozyr serve`` (with a bot token) and ``kozyr telegram`` hand the server.

It adds the Mini App's login routes (:mod:`.login`) and, when the settings say
so, runs the bot (:mod:`.bot`, aiogram: imported only then) in the server's
event loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.routing import BaseRoute

from kozyr.server.tables.lobby import Hub

from .login import telegram_routes
from .settings import TelegramSettings

if TYPE_CHECKING:
    from .bot import KozyrBot


class TelegramExtension:
    def __init__(self, settings: TelegramSettings) -> None:
        self.settings = settings
        self.bot: KozyrBot | None = None

    def routes(self, hub: Hub) -> list[BaseRoute]:
        return telegram_routes(hub, self.settings)

    async def start(self, hub: Hub) -> None:
        if self.settings.run_bot:
            from .bot import start_bot

            self.bot = await start_bot(hub, self.settings)

    async def stop(self) -> None:
        if self.bot is not None:
            await self.bot.stop()
            self.bot = None
