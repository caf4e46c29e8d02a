"""``kozyr telegram``: the game server with the Telegram bot in the same process.

The bot is configured by environment variables (docs/telegram.md):
``KOZYR_TELEGRAM_TOKEN`` (required), ``KOZYR_PUBLIC_URL`` (the server's public
HTTPS base URL; the Mini App buttons open pages under it) and
``KOZYR_TELEGRAM_API`` (the Bot API root, default https://api.telegram.org).
Every ``kozyr serve`` option works here too.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from kozyr.cli.serve import add_options, config_from_args, extensions


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "telegram",
        help="run the game server with its Telegram bot",
        description="Run the Kozyr game server and its Telegram bot (long polling). "
        "Settings: KOZYR_TELEGRAM_TOKEN, KOZYR_PUBLIC_URL, KOZYR_TELEGRAM_API "
        "(see docs/telegram.md).",
    )
    add_options(p)
    p.add_argument(
        "--poll",
        type=float,
        default=1.0,
        help="seconds between the bot's looks at the tables: nudges, results (default 1)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        import aiogram  # noqa: F401
    except ImportError:
        print(
            "kozyr telegram: the bot needs the 'telegram' extra: pip install -e '.[telegram]'",
            file=sys.stderr,
        )
        return 2
    if args.workers > 1 and not args.redis:
        print(
            "kozyr telegram: --workers needs --redis (and a shared --db such as PostgreSQL): "
            "the processes share rooms, and elect the one that runs the bot, through Redis "
            "(see docs/telegram.md)",
            file=sys.stderr,
        )
        return 2
    if not os.environ.get("KOZYR_TELEGRAM_TOKEN", "").strip():
        print("kozyr telegram: set KOZYR_TELEGRAM_TOKEN to the bot's token", file=sys.stderr)
        return 2
    if args.workers > 1:
        from kozyr.server.edge.supervisor import supervise

        argv = sys.argv[sys.argv.index("telegram") + 1 :] if "telegram" in sys.argv else []
        return supervise(config_from_args(args), args.workers, argv, command="telegram")
    from kozyr.server.edge.run import serve

    return serve(config_from_args(args), extensions(run_bot=True, poll=max(0.05, args.poll)))
