"""``kozyr bench server`` on a tiny load: it must report the server's CPU per move."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def test_bench_server_reports_cpu_per_move() -> None:
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    cmd = [sys.executable, "-m", "kozyr.cli.main", "bench", "server", "--json"]
    cmd += ["--connections", "8", "--duration", "4", "--think", "0.2", "--client-procs", "1"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env, check=True)
    figures = json.loads(out.stdout)
    assert figures["connections_held"] == 8
    assert figures["server_moves"] > 0
    # Every move the server applied costs some CPU, and far less than a second.
    assert 0 < figures["server_cpu_ms_per_move"] < 1000
    assert figures["errors"] == {}
