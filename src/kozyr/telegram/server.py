"""Telegram on the game server: the :class:`~kozyr.server.edge.extension.Extension`
that ``kozyr serve`` (with a bot token) and ``kozyr telegram`` hand the server.

It adds the Mini App's login routes (:mod:`.login`) and, when the settings say
so, runs the bot (:mod:`.bot`, aiogram: imported only then) in the server's
event loop.  In a cluster every process of ``kozyr telegram`` is a candidate
and exactly one runs the bot: the server's election (``Coordinator.elect``,
a lease in Redis) picks it, and when that process dies another takes the role
within a lease or two.  Every process with a bot token publishes its rooms'
events, so the bot follows every room wherever its owner is.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
from typing import TYPE_CHECKING

from starlette.routing import BaseRoute

from kozyr.server.tables.lobby import Hub
from kozyr.server.telemetry import log

from .login import telegram_routes
from .settings import TelegramSettings

if TYPE_CHECKING:
    from .bot import KozyrBot

#: The role's name in the server's election.
ROLE = "telegram"


class TelegramExtension:
    def __init__(self, settings: TelegramSettings) -> None:
        self.settings = settings
        self.bot: KozyrBot | None = None
        self._task: asyncio.Task[None] | None = None

    def routes(self, hub: Hub) -> list[BaseRoute]:
        return telegram_routes(hub, self.settings)

    async def start(self, hub: Hub) -> None:
        if self.settings.run_bot or hub.config.redis_url:
            hub.want_events()  # the bot (here or on another process) follows them
        if self.settings.run_bot:
            self._task = asyncio.get_running_loop().create_task(
                self._hold_role(hub), name="telegram-role"
            )

    async def _hold_role(self, hub: Hub) -> None:
        """Run the bot while this process holds the role (asked every quarter
        of a lease: the same rhythm as rooms' leases)."""
        every = hub.config.lease / 4 if hub.config.redis_url else 1.0
        # The bot's module (aiogram) takes seconds to import on a busy machine:
        # imported before standing for the role, and off the event loop, so that
        # a new leader does not stall past its lease while another takes over.
        await asyncio.to_thread(importlib.import_module, f"{__package__}.bot")
        while True:
            try:
                mine = await hub.coord.elect(ROLE)
                if mine and self.bot is None:
                    from .bot import start_bot

                    self.bot = await start_bot(hub, self.settings)
                    log.event("telegram_leader", node=hub.coord.node)
                elif not mine and self.bot is not None:
                    await self._stop_bot()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.error("telegram_role_failed", error=repr(exc))
            await asyncio.sleep(every)

    async def _stop_bot(self) -> None:
        if self.bot is not None:
            bot, self.bot = self.bot, None
            await bot.stop()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self._stop_bot()
