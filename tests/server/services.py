"""Real services the server tests start: a throwaway PostgreSQL cluster, a
throwaway Redis, and clusters of ``kozyr serve --redis`` processes sharing them."""

from __future__ import annotations

import glob
import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg  # a dev dependency (pip install -e '.[dev]')

from .harness import ServerProcess, http

PASSWORD = "s3cret-pw"  # trust auth ignores it; the server must not log it

#: Cluster tests: seconds a room's lease lasts.  Short, so takeovers are quick
#: to wait for, yet several times the renewal period (a quarter of it): a
#: process starved of CPU for a moment on a loaded machine keeps its rooms.
LEASE = "1.5"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# ------------------------------------------------------------------ PostgreSQL
def _pg_bin() -> Path | None:
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"),
        key=lambda p: int(Path(p).parents[1].name) if Path(p).parents[1].name.isdigit() else 0,
    )
    return Path(found[-1]).parent if found else None


class PgCluster:
    def __init__(self, port: int) -> None:
        self.port = port
        self._names = itertools.count(1)

    def connect(self, dbname: str = "postgres") -> psycopg.Connection:
        return psycopg.connect(
            host="127.0.0.1", port=self.port, user="postgres", dbname=dbname, autocommit=True
        )

    def new_database(self, name: str) -> str:
        """Create database ``name``; its SQLAlchemy URL (with a password, to
        check it never shows in the log)."""
        with self.connect() as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql+psycopg://postgres:{PASSWORD}@127.0.0.1:{self.port}/{name}"

    def fresh_database(self, prefix: str) -> tuple[str, str]:
        """A new database whose name starts with ``prefix``: (name, URL)."""
        name = f"{prefix}_{next(self._names)}"
        return name, self.new_database(name)


@contextmanager
def postgres() -> Iterator[PgCluster | None]:
    """A PostgreSQL cluster on a free loopback port (None: not installed)."""
    bindir = _pg_bin()
    if bindir is None:
        yield None
        return
    as_pg: list[str] = []
    if os.geteuid() == 0:  # initdb refuses to run as root
        as_pg = ["runuser", "-u", "postgres", "--"]
    # Not under pytest's tmp dir: that one is private to root (0700).
    top = Path(tempfile.mkdtemp(prefix="kozyr-pg-"))
    data, log = top / "data", top / "pg.log"
    if as_pg:
        shutil.chown(top, "postgres", "postgres")
    port = free_port()

    def run(*cmd: str) -> None:
        done = subprocess.run([*as_pg, *cmd], capture_output=True, text=True, timeout=60)
        if done.returncode:
            extra = log.read_text() if log.exists() else ""
            raise RuntimeError(f"{cmd[0]} failed:\n{done.stdout}{done.stderr}{extra}")

    try:
        run(str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres",
            "-E", "UTF8", "--locale=C", "--no-sync")  # fmt: skip
        opts = f"-k {top} -p {port} -h 127.0.0.1 -c fsync=off"
        run(str(bindir / "pg_ctl"), "-D", str(data), "-l", str(log), "-w", "-t", "30",
            "-o", opts, "start")  # fmt: skip
        try:
            yield PgCluster(port)
        finally:
            run(str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop")
    finally:
        shutil.rmtree(top, ignore_errors=True)


# ------------------------------------------------------------------ Redis
class RedisServer:
    """A throwaway ``redis-server`` on a loopback port, no persistence (a restart
    loses everything, the harder case for the cluster).  Each cluster sharing it
    gets a database number of its own (:meth:`new_url`)."""

    def __init__(self, binary: str, workdir: Path) -> None:
        self.binary = binary
        self.workdir = workdir
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self._dbs = itertools.count(0)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def new_url(self) -> str:
        """The URL of a database no other cluster of this Redis uses (16 in all)."""
        n = next(self._dbs)
        assert n < 16, "redis-server has 16 databases"
        return f"redis://127.0.0.1:{self.port}/{n}"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.workdir), "--protected-mode", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), 0.5) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


@contextmanager
def redis(workdir: Path) -> Iterator[RedisServer | None]:
    """A running Redis (None: redis-server is not installed)."""
    binary = shutil.which("redis-server")
    if binary is None:
        yield None
        return
    srv = RedisServer(binary, workdir)
    srv.start()
    try:
        yield srv
    finally:
        srv.kill()


# ------------------------------------------------------------------ clusters
class Cluster:
    """Server processes (three by default) sharing one Redis and one database.
    ``options`` replaces the harness's test options (None keeps them)."""

    def __init__(
        self,
        tmp: Path,
        db_url: str,
        redis_url: str,
        *extra: str,
        n: int = 3,
        options: tuple[str, ...] | None = None,
    ) -> None:
        #: The database's name (the last part of its URL).
        self.db = db_url.rsplit("/", 1)[-1]
        args = ("--rate", "200", "--burst", "200", "--redis", redis_url, "--lease", LEASE, *extra)
        kw = {} if options is None else {"options": options}
        self.servers = [
            ServerProcess(tmp / f"unused{i}.db", *args, db_url=db_url, **kw) for i in range(n)
        ]

    def start(self) -> Cluster:
        # All at once on an empty database: schema creation must be safe.
        errors: list[BaseException] = []

        def go(s: ServerProcess) -> None:
            try:
                s.start()
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=go, args=(s,)) for s in self.servers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            self.stop()
            raise errors[0]
        return self

    def stop(self) -> None:
        for s in self.servers:
            if s.proc is not None and s.proc.poll() is None:
                os.kill(s.proc.pid, signal.SIGCONT)  # a test may have stopped it
            s.stop()

    def dump(self, path: Path) -> None:
        """Every process's log into one file (to read after a failure)."""
        with path.open("w") as out:
            for i, s in enumerate(self.servers):
                for line in s.lines:
                    out.write(f"s{i} {json.dumps(line)}\n")

    def owners(self, code: str, skip: int | None = None) -> list[int]:
        """Indexes of the live processes whose /health lists ``code`` as owned
        (``skip``: a process not to ask, e.g. a stopped one that cannot answer)."""
        out = []
        for i, s in enumerate(self.servers):
            if not s.alive() or i == skip:
                continue
            try:
                status, health = http("GET", s.url + "/health")
            except OSError:
                continue
            if status == 200 and code in health["owned"]:
                out.append(i)
        return out

    def wait_owner(self, code: str, exclude: int | None = None, timeout: float = 10.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            owners = self.owners(code, skip=exclude)
            if len(owners) == 1:
                return owners[0]
            time.sleep(0.05)
        raise AssertionError(f"no single owner of {code}: {self.owners(code)}")

    def check_logs(self) -> None:
        for s in self.servers:
            for name in ("internal_error", "task_failed", "store_error", "cluster_entry_failed"):
                assert not s.events(name), (name, s.events(name)[:3])


class ClusterFront:
    """A cluster as the one-server tests see it (``server.ws_url``,
    ``server.url``): each use of either names the next process in turn, so the
    clients of a scenario sit on different processes and a reconnect lands on
    another one — like a round-robin load balancer."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self._turn = itertools.count()

    def _next(self) -> ServerProcess:
        servers = self.cluster.servers
        return servers[next(self._turn) % len(servers)]

    @property
    def ws_url(self) -> str:
        return self._next().ws_url

    @property
    def url(self) -> str:
        return self._next().url

    def alive(self) -> bool:
        return all(s.alive() for s in self.cluster.servers)
