"""``kozyr serve --workers N``: N server processes on one machine, one port.

Why a supervisor and an inherited socket: one Python process uses one core
(one event loop); N processes use N.  The supervisor binds the port once and
every worker accepts on that same listening socket (the kernel hands each new
connection to one of them), so nothing but the kernel balances them.  The
workers form a cluster through ``--redis`` (a player's socket may land on any
of them), so N > 1 needs ``--redis``.  A worker that dies is started again;
SIGTERM or SIGINT stops them all (each gives up its rooms' leases first, so
the others could go on with them).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from types import FrameType

from ..config import ServerConfig
from ..telemetry import log
from .run import bind


def supervise(config: ServerConfig, workers: int, argv: list[str], command: str = "serve") -> int:
    """Run ``workers`` copies of ``kozyr <command>`` (``serve``, or ``telegram``
    whose processes elect the one that runs the bot) with arguments ``argv``,
    on one socket."""
    log.configure(config.log_level)
    try:
        sock = bind(config.host, config.port)
    except OSError as exc:
        log.error("bind_failed", host=config.host, port=config.port, error=str(exc))
        return 1
    port, fd = sock.getsockname()[1], sock.fileno()
    # Later options win: each worker is one process on the shared socket.
    cmd = [sys.executable, "-m", "kozyr.cli.main", command, *argv,
           "--workers", "1", "--port", str(port), "--fd", str(fd)]  # fmt: skip
    stopping = False

    def stop(signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    procs = [subprocess.Popen(cmd, pass_fds=[fd]) for _ in range(workers)]
    log.event("supervising", workers=workers, port=port, pids=[p.pid for p in procs])
    while not stopping:
        time.sleep(0.2)
        for i, proc in enumerate(procs):
            if proc.poll() is not None and not stopping:
                log.warning("worker_exited", pid=proc.pid, code=proc.returncode)
                procs[i] = subprocess.Popen(cmd, pass_fds=[fd])
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
    log.event("supervisor_stopped")
    log.flush()
    return 0
