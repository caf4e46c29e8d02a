"""Telegram's settings, read from the environment (docs/telegram.md).

Why apart from :class:`~kozyr.server.config.ServerConfig`: the server knows
nothing of Telegram; ``kozyr serve`` and ``kozyr telegram`` read these and hand
the server a :class:`~kozyr.telegram.server.TelegramExtension` built from them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass
class TelegramSettings:
    #: The bot token: checks Mini App logins (empty: Telegram login is off).
    token: str = ""
    #: Derives Telegram players' tokens (empty: the bot token).
    secret: str = ""
    #: Launch data (initData) older than this many seconds is refused.
    max_age: float = 86400.0
    #: The Bot API root (requests go to {root}/bot{token}/{method}).
    api: str = "https://api.telegram.org"
    #: Public base URL of this server (the Mini App); empty: http://host:port.
    public_url: str = ""
    #: Run the bot in this process (``kozyr telegram``).
    run_bot: bool = False
    #: Seconds between the bot's looks at the tables (nudges, results, full tables).
    poll: float = 1.0

    @property
    def player_secret(self) -> str:
        """The key Telegram players' tokens are derived with."""
        return self.secret or self.token

    @classmethod
    def from_env(cls) -> TelegramSettings:
        """The documented ``KOZYR_TELEGRAM_*`` and ``KOZYR_PUBLIC_URL`` variables."""
        env = os.environ
        settings = cls(
            token=env.get("KOZYR_TELEGRAM_TOKEN", "").strip(),
            secret=env.get("KOZYR_TELEGRAM_SECRET", ""),
            public_url=env.get("KOZYR_PUBLIC_URL", "").strip().rstrip("/"),
        )
        settings.api = env.get("KOZYR_TELEGRAM_API", "").strip() or settings.api
        age = env.get("KOZYR_TELEGRAM_MAX_AGE")
        if age:
            settings.max_age = float(age)
        return settings
