"""Entry point of the ``kozyr`` command."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from kozyr import __version__

#: Sub-command modules, in help order.  Each has ``add_parser(sub)``, which
#: registers the command and sets ``run`` (args -> exit code) as its default.
COMMANDS = ["replay", "analyse", "bench", "arena", "play", "serve", "telegram"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kozyr",
        description="Kozyr: the Russian card game Durak.",
    )
    parser.add_argument("--version", action="version", version=f"kozyr {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"kozyr.cli.{name}").add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
