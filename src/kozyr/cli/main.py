"""Entry point of the ``kozyr`` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from kozyr import __version__

from . import bench, replay


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kozyr",
        description="Kozyr: the Russian card game Durak.",
    )
    parser.add_argument("--version", action="version", version=f"kozyr {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    replay.add_parser(sub)
    bench.add_parser(sub)
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
