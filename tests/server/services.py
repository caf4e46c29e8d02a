"""Real services the server tests start: a throwaway PostgreSQL cluster, a
throwaway Redis, and clusters of ``kozyr serve --redis`` processes sharing them."""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg  # a dev dependency (pip install -e '.[dev]')

from kozyr.bench.localcluster import LocalPostgres, LocalRedis, MissingBinary

from .harness import ServerProcess, http, run

PASSWORD = "s3cret-pw"  # trust auth ignores it; the server must not log it

#: Cluster tests: seconds a room's lease lasts.  Short, so takeovers are quick
#: to wait for, yet several times the renewal period (a quarter of it): a
#: process starved of CPU for a moment on a loaded machine keeps its rooms.
LEASE = "1.5"


# ------------------------------------------------------------------ PostgreSQL
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
    """A PostgreSQL cluster on a free loopback port (None: not installed); the
    bench's throwaway one (:class:`~kozyr.bench.localcluster.LocalPostgres`)."""
    try:
        server = LocalPostgres()
    except MissingBinary:
        yield None
        return
    try:
        server.start()
        yield PgCluster(server.port)
    finally:
        server.stop()


# ------------------------------------------------------------------ Redis
class RedisServer(LocalRedis):
    """The bench's throwaway ``redis-server`` (no persistence: a restart loses
    everything, the harder case for the cluster).  Each cluster sharing it gets
    a database number of its own (:meth:`new_url`)."""

    def __init__(self, workdir: Path) -> None:
        super().__init__(workdir)
        self._dbs = itertools.count(0)

    def new_url(self) -> str:
        """The URL of a database no other cluster of this Redis uses (16 in all)."""
        n = next(self._dbs)
        assert n < 16, "redis-server has 16 databases"
        return f"redis://127.0.0.1:{self.port}/{n}"

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


@contextmanager
def redis(workdir: Path) -> Iterator[RedisServer | None]:
    """A running Redis (None: redis-server is not installed)."""
    try:
        srv = RedisServer(workdir)
    except MissingBinary:
        yield None
        return
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
            if s.alive():
                s.resume()  # a test may have stopped it
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

    def play(self, scenario: Coroutine[Any, Any, None], logs: Path) -> None:
        """Run ``scenario`` on this private cluster, stop it whatever happens
        (every log kept in ``logs`` for a failure), then check the logs."""
        try:
            run(scenario)
        finally:
            self.stop()
            self.dump(logs)
        self.check_logs()

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
