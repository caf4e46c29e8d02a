"""Server settings in one place, with the defaults that production uses.

Tests and the benchmark build a :class:`ServerConfig` with short delays (no bot
pacing, a short reconnection grace) instead of patching module globals.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

#: Where the browser client lives (a later issue builds it); served at ``/``.
STATIC_DIR = Path(__file__).resolve().parent.parent / "web" / "static"


def kozyr_home() -> Path:
    """``$KOZYR_HOME`` if set, else ``./var`` (relative to the working directory)."""
    home = os.environ.get("KOZYR_HOME")
    return Path(home) if home else Path("var")


def default_db_url() -> str:
    """An embedded SQLite file, ``kozyr.db`` under :func:`kozyr_home`."""
    return f"sqlite:///{kozyr_home() / 'kozyr.db'}"


@dataclass
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 8000
    #: SQLAlchemy URL: ``sqlite:///path.db`` or ``postgresql+psycopg://user:pw@host/db``.
    db_url: str = ""
    static_dir: Path = STATIC_DIR
    #: Minimum seconds between a bot's move and the move before it, so people can follow.
    bot_delay: float = 0.6
    #: Seconds a disconnected player keeps their seat before a bot plays for them.
    grace: float = 10.0
    #: Bot worker processes (default: one per core); 0 runs bots in a thread of
    #: the server process instead (debugging, tiny machines).
    bot_workers: int | None = None
    #: Largest WebSocket message accepted, in bytes (bigger ones close the connection).
    max_message: int = 8 * 1024
    #: Per-connection token bucket: messages per second and burst size.
    rate: float = 20.0
    burst: float = 40.0
    #: Messages refused for flooding before the connection is closed (code 1008).
    flood_close_after: int = 20
    #: Wrong passphrases: first back-off in seconds, doubled per failure, capped.
    passphrase_backoff: float = 1.0
    passphrase_backoff_cap: float = 60.0
    #: Rooms with nobody connected for this long are closed (seconds): a room
    #: with a game in it, and one between games (lobby, or a finished game).
    idle_room_timeout: float = 3600.0
    empty_lobby_timeout: float = 600.0
    #: Quick match: seconds a waiting room waits for people before bots fill it.
    quick_wait: float = 20.0
    #: WebSocket pings: one every ``ws_ping`` seconds; a client that has not
    #: answered ``ws_ping`` seconds later is closed (a silent client is noticed
    #: within twice this).  None turns them off.
    ws_ping: float | None = 15.0
    #: Cheating tables (rule 13): seconds people have in a round's last call to
    #: call out a card before they pass automatically (bots answer at once).
    last_call: float = 5.0
    #: Seconds a challenged bot account has to accept or decline (docs/bot-api.md).
    challenge_time: float = 20.0
    #: ``POST /api/bots`` per client address: bursts of this many, then one a minute.
    bot_create_burst: float = 3.0
    #: ``POST /api/me/transfer`` per client address: bursts of this many, then one
    #: every 10 seconds.
    transfer_burst: float = 5.0
    #: Multiplies every move clock (tests use a small factor to see timeouts fast).
    move_time_scale: float = 1.0
    log_level: str = "info"
    #: Cluster mode: the Redis URL (``redis://host:6379/0``); None runs one
    #: process on its own, as always.
    redis_url: str | None = None
    #: Cluster mode: seconds a room's lease lasts without renewal (a dead
    #: owner's rooms are taken over a little after this).
    lease: float = 2.0
    #: Post-game analysis (issue 27): worker processes (0: a thread), analyses
    #: run at once, analyses waiting at most, new analyses per player (a token
    #: bucket: per hour and burst), iterations per decision (None: 3x level 10's).
    analysis_workers: int = 1
    analysis_concurrency: int = 1
    analysis_queue: int = 16
    analyses_per_hour: float = 30.0
    analysis_burst: float = 4.0
    analysis_budget: int | None = None
    #: Hints at tables against the computer: a token bucket per player
    #: (hints a minute and burst) and the iterations of one hint (None: level 10's).
    hints_per_minute: float = 6.0
    hint_burst: float = 3.0
    hint_budget: int | None = None
    #: Candies a player may earn per UTC day (docs/players.md); 0 turns them off.
    candy_cap: int = 300
    #: A listening socket inherited from ``kozyr serve --workers N`` (its fd).
    listen_fd: int | None = None

    def __post_init__(self) -> None:
        if not self.db_url:
            self.db_url = default_db_url()
        if self.bot_workers is None:
            self.bot_workers = max(1, os.cpu_count() or 1)
        self.bot_workers = max(0, self.bot_workers)
