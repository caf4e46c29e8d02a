"""A private Redis and PostgreSQL on loopback, for ``kozyr bench server --processes``
(and the server tests, tests/server/services.py).

Both live in a temporary directory, listen on a free loopback port, keep no
data worth keeping (Redis without persistence, PostgreSQL with ``fsync=off``)
and are stopped by :meth:`stop` (also after Ctrl-C: the bench calls it from a
``finally``).  Debian's ``redis-server`` and PostgreSQL (``initdb``/``pg_ctl``
under ``/usr/lib/postgresql/*/bin``) are what ``./setup`` installs.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


class MissingBinary(RuntimeError):
    """redis-server or PostgreSQL is not installed (the message says which)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def redis_binary() -> str | None:
    return shutil.which("redis-server")


def pg_bindir() -> Path | None:
    """The newest ``/usr/lib/postgresql/N/bin`` that has ``pg_ctl``."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"),
        key=lambda p: int(Path(p).parents[1].name) if Path(p).parents[1].name.isdigit() else 0,
    )
    return Path(found[-1]).parent if found else None


class LocalRedis:
    """``redis-server`` on a free loopback port, no persistence."""

    def __init__(self, workdir: Path) -> None:
        binary = redis_binary()
        if binary is None:
            raise MissingBinary("redis-server not found (run ./setup: it installs it)")
        self.binary = binary
        self.workdir = workdir
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def start(self) -> LocalRedis:
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.workdir), "--protected-mode", "no",
             "--maxclients", "10000"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl-C is for the bench, which stops it
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.proc.returncode}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), 0.5) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


class LocalPostgres:
    """A throwaway PostgreSQL cluster (initdb in a temporary directory).

    initdb refuses to run as root, so as root the cluster runs as the
    ``postgres`` user (``runuser``), in a directory of its own under /tmp."""

    def __init__(self) -> None:
        bindir = pg_bindir()
        if bindir is None:
            raise MissingBinary(
                "PostgreSQL not found under /usr/lib/postgresql/*/bin (run ./setup: it installs it)"
            )
        self.bindir = bindir
        self.as_pg = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        self.top = Path(tempfile.mkdtemp(prefix="kozyr-bench-pg-"))
        self.data, self.log = self.top / "data", self.top / "pg.log"
        self.port = free_port()
        self.started = False

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{dbname}"

    def _run(self, *cmd: str) -> None:
        done = subprocess.run(
            [*self.as_pg, *cmd], capture_output=True, text=True, timeout=120, check=False
        )
        if done.returncode:
            extra = self.log.read_text(errors="replace") if self.log.exists() else ""
            raise RuntimeError(f"{Path(cmd[0]).name} failed:\n{done.stdout}{done.stderr}{extra}")

    def start(self) -> LocalPostgres:
        if self.as_pg:
            shutil.chown(self.top, "postgres", "postgres")
        self._run(str(self.bindir / "initdb"), "-D", str(self.data), "-A", "trust",
                  "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync")  # fmt: skip
        # Enough connections for every server process's pool and more.
        opts = f"-k {self.top} -p {self.port} -h 127.0.0.1 -c fsync=off -c max_connections=200"
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l", str(self.log),
                  "-w", "-t", "60", "-o", opts, "start")  # fmt: skip
        self.started = True
        return self

    def postmaster_pid(self) -> int | None:
        with contextlib.suppress(OSError, ValueError, IndexError):
            return int((self.data / "postmaster.pid").read_text().split()[0])
        return None

    def stop(self) -> None:
        try:
            if self.started:
                self.started = False
                self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data),
                          "-m", "immediate", "-w", "stop")  # fmt: skip
        finally:
            shutil.rmtree(self.top, ignore_errors=True)


def tree_pids(pid: int) -> list[int]:
    """``pid`` and all its descendants (``/proc/PID/task/*/children``)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        for children in Path(f"/proc/{p}/task").glob("*/children"):
            with contextlib.suppress(OSError, ValueError):
                todo.extend(int(c) for c in children.read_text().split())
    return out
