"""``kozyr arena`` workers die with the main process, however it is killed.

Without this, killing a long run (SIGKILL, or SIGTERM, which skips Python's
clean-up) left both workers playing their chunks to the end, stealing the
cores from whatever ran next.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kozyr.workers import alive


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        out += [int(x) for x in task.read_text().split()]
    return out


def _workers(pid: int, timeout: float = 60.0) -> list[int]:
    """The pool workers of arena process ``pid``, once both have started."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        spawned = [
            c
            for c in _children(pid)
            if "spawn_main" in Path(f"/proc/{c}/cmdline").read_text(errors="replace")
        ]
        if len(spawned) >= 2:
            return spawned
        time.sleep(0.1)
    raise AssertionError("the arena's two workers did not start")


#: Long enough (2 x 400 games of level 6 vs 5) never to finish before the kill.
ARGS = ("--deals", "400", "--workers", "2", "-q")


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_workers_exit_when_the_arena_is_killed(sig: signal.Signals) -> None:
    arena = subprocess.Popen(
        [sys.executable, "-m", "kozyr.cli.main", "arena", "6", "5", *ARGS],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    workers: list[int] = []
    try:
        workers = _workers(arena.pid)
        time.sleep(0.5)
        assert all(alive(w) for w in workers)
        arena.send_signal(sig)
        arena.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(alive(w) for w in workers), "a worker outlived the arena"
    finally:
        arena.kill()
        arena.wait()
        for w in workers:  # a failed run must not leave them running
            if alive(w):
                os.kill(w, signal.SIGKILL)
