"""Starting ``kozyr serve`` as a child process and telling when it listens.

The server bench (:mod:`kozyr.bench.server`) and the test harness both run the
real server in a subprocess on port 0 and learn the port from its first
``listening`` log line; this module is the one place that knows the command
and the line.
"""

from __future__ import annotations

import json
import sys


def serve_command(db_url: str, *options: str) -> list[str]:
    """The argv of ``kozyr serve`` on a free port (0) with the store ``db_url``."""
    return [
        sys.executable,
        "-m",
        "kozyr.cli.main",
        "serve",
        "--port",
        "0",
        "--db",
        db_url,
        *options,
    ]


def listening_port(line: str) -> int | None:
    """The port of a ``listening`` JSON log line, None for any other line."""
    if '"listening"' not in line:
        return None
    try:
        data = json.loads(line)
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict) or data.get("event") != "listening":
        return None
    return int(data["port"])
