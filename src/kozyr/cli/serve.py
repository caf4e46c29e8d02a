"""``kozyr serve``: run the online game server (HTTP API + WebSockets).

Defaults: http://127.0.0.1:8000, an SQLite database at ``$KOZYR_HOME/kozyr.db``
(``./var/kozyr.db`` when KOZYR_HOME is unset).  ``--db`` takes any SQLAlchemy
URL, e.g. ``postgresql+psycopg://kozyr:secret@localhost/kozyr``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kozyr.server.config import STATIC_DIR, ServerConfig, default_db_url

if TYPE_CHECKING:
    from kozyr.server.edge.extension import Extension

#: What a server without a bot token answers at the Telegram routes.
TELEGRAM_OFF = "Telegram login is not configured on this server (no KOZYR_TELEGRAM_TOKEN)"


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "serve",
        help="run the online game server",
        description="Run the Kozyr game server: WebSocket play, HTTP API, browser client.",
    )
    add_options(p)
    p.set_defaults(run=run)


def add_options(p: argparse.ArgumentParser) -> None:
    """The server's options (``kozyr telegram`` takes them too)."""
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 = any free port)")
    p.add_argument(
        "--db",
        default=None,
        help=f"SQLAlchemy database URL (default {default_db_url()}; "
        "PostgreSQL: postgresql+psycopg://user:password@host/dbname)",
    )
    p.add_argument(
        "--static",
        type=Path,
        default=STATIC_DIR,
        help="directory served at / (default: the browser client, if installed)",
    )
    p.add_argument(
        "--bot-delay",
        type=float,
        default=0.6,
        help="minimum seconds between a bot's move and the move before it (default 0.6)",
    )
    p.add_argument(
        "--grace",
        type=float,
        default=10.0,
        help="seconds a disconnected player keeps the seat before a bot plays it (default 10)",
    )
    p.add_argument(
        "--bot-workers",
        type=int,
        default=None,
        help="bot worker processes (default: one per core; 0 = a thread, for debugging)",
    )
    p.add_argument(
        "--max-message", type=int, default=8192, help="largest client message in bytes (8192)"
    )
    p.add_argument(
        "--rate", type=float, default=20.0, help="messages per second per connection (20)"
    )
    p.add_argument("--burst", type=float, default=40.0, help="burst allowance per connection (40)")
    p.add_argument(
        "--passphrase-backoff",
        type=float,
        default=1.0,
        help="first wait after a wrong passphrase, doubled each time (1 s)",
    )
    p.add_argument(
        "--last-call",
        type=float,
        default=5.0,
        help="cheating tables: seconds people have to call out a card when a round "
        "ends before they pass automatically (default 5)",
    )
    p.add_argument(
        "--move-time-scale",
        type=float,
        default=1.0,
        help="multiply every move clock by this factor (tests; default 1)",
    )
    p.add_argument(
        "--quick-wait",
        type=float,
        default=20.0,
        help="quick match: seconds a waiting room waits for people before bots fill its "
        "empty seats (default 20)",
    )
    p.add_argument(
        "--challenge-time",
        type=float,
        default=20.0,
        help="seconds a challenged bot account has to accept or decline (default 20)",
    )
    p.add_argument(
        "--bot-burst",
        type=float,
        default=3.0,
        help="bot accounts one address may create at once, then one a minute (default 3)",
    )
    p.add_argument(
        "--transfer-burst",
        type=float,
        default=5.0,
        help="transfer codes one address may make at once, then one every 10 s (default 5)",
    )
    p.add_argument(
        "--ws-ping",
        type=float,
        default=15.0,
        help="seconds between WebSocket pings; a client silent for as long again is "
        "disconnected (default 15; 0 = no pings)",
    )
    p.add_argument(
        "--empty-lobby-close",
        type=float,
        default=600.0,
        help="seconds after which a room between games with nobody connected closes "
        "(default 600; a room with a game in it: an hour)",
    )
    p.add_argument(
        "--redis",
        default=None,
        metavar="URL",
        help="join a cluster through this Redis (redis://host:6379/0); every process of "
        "the cluster uses the same --redis and a shared PostgreSQL --db (docs/deploy.md)",
    )
    p.add_argument(
        "--lease",
        type=float,
        default=2.0,
        help="cluster: seconds a room's ownership lasts unrenewed; a dead process's rooms "
        "move to another process a little after this (default 2)",
    )
    p.add_argument(
        "--candy-cap",
        type=int,
        default=300,
        metavar="N",
        help="candies a player may earn per UTC day (default 300; 0 turns candies off; "
        "docs/players.md)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="server processes on this machine sharing the port, one core each "
        "(default 1; more than 1 needs --redis, see docs/deploy.md)",
    )
    p.add_argument(
        "--analysis-workers",
        type=int,
        default=1,
        help="worker processes of post-game analysis (default 1; 0 = a thread, for debugging)",
    )
    p.add_argument(
        "--analysis-concurrency",
        type=int,
        default=1,
        help="analyses run at once, the others wait in a queue (default 1)",
    )
    p.add_argument(
        "--analyses-per-hour",
        type=float,
        default=30.0,
        help="new analyses one player may ask for per hour, after a burst (default 30)",
    )
    p.add_argument(
        "--analysis-burst",
        type=float,
        default=4.0,
        help="new analyses one player may ask for at once (default 4)",
    )
    p.add_argument(
        "--analysis-budget",
        type=int,
        default=None,
        help="search iterations per analysed decision (default: 3x level 10's, docs/analysis.md)",
    )
    p.add_argument(
        "--hint-budget",
        type=int,
        default=None,
        help="search iterations of a hint (default: level 10's)",
    )
    p.add_argument(
        "--hints-per-minute",
        type=float,
        default=6.0,
        help="hints one player may ask for per minute, after a burst (default 6)",
    )
    p.add_argument(
        "--hint-burst",
        type=float,
        default=3.0,
        help="hints one player may ask for at once (default 3)",
    )
    p.add_argument("--fd", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument(
        "--log-level",
        default="info",
        choices=["debug", "info", "warning", "error"],
        help="JSON log level (default info: one line per event)",
    )


def config_from_args(args: argparse.Namespace) -> ServerConfig:
    return ServerConfig(
        host=args.host,
        port=args.port,
        db_url=args.db or "",
        static_dir=args.static,
        bot_delay=args.bot_delay,
        grace=args.grace,
        bot_workers=args.bot_workers,
        max_message=args.max_message,
        rate=args.rate,
        burst=args.burst,
        passphrase_backoff=args.passphrase_backoff,
        move_time_scale=args.move_time_scale,
        last_call=args.last_call,
        quick_wait=args.quick_wait,
        challenge_time=args.challenge_time,
        bot_create_burst=args.bot_burst,
        transfer_burst=args.transfer_burst,
        ws_ping=args.ws_ping or None,
        empty_lobby_timeout=args.empty_lobby_close,
        log_level=args.log_level,
        redis_url=args.redis,
        lease=args.lease,
        candy_cap=max(0, args.candy_cap),
        listen_fd=args.fd,
        analysis_workers=max(0, args.analysis_workers),
        analysis_concurrency=max(1, args.analysis_concurrency),
        analyses_per_hour=args.analyses_per_hour,
        analysis_budget=args.analysis_budget,
        hint_budget=args.hint_budget,
        hints_per_minute=args.hints_per_minute,
        analysis_burst=args.analysis_burst,
        hint_burst=args.hint_burst,
    )


def extensions(run_bot: bool = False, poll: float = 1.0) -> list[Extension]:
    """What the server runs with besides itself: Telegram's login routes (and
    with ``run_bot`` its bot) when ``KOZYR_TELEGRAM_TOKEN`` is set
    (docs/telegram.md); without a token no Telegram code is loaded and the
    Telegram routes answer 404 ``telegram_off``."""
    if not os.environ.get("KOZYR_TELEGRAM_TOKEN", "").strip():
        from kozyr.server.edge.extension import Unconfigured

        paths = ["/api/telegram/login", "/api/telegram/auto"]
        return [Unconfigured(paths, "telegram_off", TELEGRAM_OFF)]
    from kozyr.telegram.server import TelegramExtension
    from kozyr.telegram.settings import TelegramSettings

    settings = TelegramSettings.from_env()
    settings.run_bot = run_bot
    settings.poll = poll
    return [TelegramExtension(settings)]


def run(args: argparse.Namespace) -> int:
    if args.workers > 1:
        if not args.redis:
            print(
                "kozyr serve: --workers needs --redis (and a shared --db such as PostgreSQL): "
                "the processes share rooms through Redis; without it a player whose socket "
                "lands on another process would not find their room",
                file=sys.stderr,
            )
            return 2
        from kozyr.server.edge.supervisor import supervise

        argv = sys.argv[sys.argv.index("serve") + 1 :] if "serve" in sys.argv else []
        return supervise(config_from_args(args), args.workers, argv)
    from kozyr.server.edge.run import serve

    return serve(config_from_args(args), extensions())
