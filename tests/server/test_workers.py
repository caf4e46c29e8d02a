"""``kozyr serve --workers N``: a real supervisor and its workers on one port,
sharing rooms through a real Redis and PostgreSQL."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from pathlib import Path

from kozyr.bench.launch import serve_command

from .harness import Client, ServerProcess, check_frames, http, play_out, run
from .services import LEASE, PgCluster, RedisServer


def _nodes(srv: ServerProcess, want: int, timeout: float = 30.0) -> set[str]:
    """Node ids seen in /health (a new connection each time: the kernel hands
    each to whichever worker accepts it) until ``want`` of them showed up."""
    seen: set[str] = set()
    deadline = time.monotonic() + timeout
    while len(seen) < want and time.monotonic() < deadline:
        try:
            status, health = http("GET", srv.url + "/health")
        except OSError:  # a worker dying with this connection accepted
            continue
        if status == 200:
            seen.add(health["node"])
        time.sleep(0.02)
    return seen


def _pid(node: str) -> int:
    """The process id in a node id (``<host>-<pid>-<random>``)."""
    return int(node.rsplit("-", 2)[1])


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_workers_share_the_port_restart_and_stop_together(
    pg: PgCluster, redis_server: RedisServer, tmp_path: Path
) -> None:
    _db, url = pg.fresh_database("kozyr_workers")
    srv = ServerProcess(
        tmp_path / "unused.db",
        *("--rate", "200", "--burst", "200", "--redis", redis_server.new_url()),
        *("--lease", LEASE, "--workers", "2"),
        db_url=url,
    ).start()
    try:
        (supervising,) = srv.events("supervising")
        assert len(supervising["pids"]) == 2 and supervising["port"] == srv.port
        nodes = _nodes(srv, 2)
        assert len(nodes) == 2, nodes
        assert {_pid(n) for n in nodes} == set(supervising["pids"])

        async def game() -> None:
            rng = random.Random(4)
            anna, boris = Client(srv.ws_url, "anna"), Client(srv.ws_url, "boris")
            code = await anna.create_room(seats=3, visibility="private", move_time=None)
            await boris.join(code)
            await anna.send({"type": "start"})
            await play_out([anna, boris], rng, timeout=90)
            status, record = http("GET", srv.url + anna.over[-1]["record"])
            assert status == 200 and check_frames([anna, boris], record) > 20
            for c in (anna, boris):
                await c.close()

        run(game())

        # A worker killed: the supervisor starts another in its place.
        victim = supervising["pids"][0]
        os.kill(victim, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while not srv.events("worker_exited") and time.monotonic() < deadline:
            time.sleep(0.1)
        (exited,) = srv.events("worker_exited")
        assert exited["pid"] == victim and exited["code"] == -signal.SIGKILL
        after = set()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            after = _nodes(srv, 2, timeout=5)
            if len(after) == 2 and victim not in {_pid(n) for n in after}:
                break
        pids = {_pid(n) for n in after}
        assert len(after) == 2 and victim not in pids and supervising["pids"][1] in pids, after

        # SIGTERM to the supervisor stops every worker; status 0.
        assert srv.proc is not None
        srv.proc.send_signal(signal.SIGTERM)
        assert srv.proc.wait(30) == 0
        assert srv.events("supervisor_stopped")
        deadline = time.monotonic() + 10
        while not all(_gone(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert all(_gone(pid) for pid in pids), pids
    finally:
        srv.stop()
    for name in ("internal_error", "task_failed", "store_error", "cluster_entry_failed"):
        assert not srv.events(name), srv.events(name)


def test_workers_without_redis_are_refused_with_a_reason(tmp_path: Path) -> None:
    done = subprocess.run(
        serve_command(f"sqlite:///{tmp_path / 'k.db'}", "--workers", "2"),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 2
    assert "--workers needs --redis" in done.stderr, done.stderr
    assert not (tmp_path / "k.db").exists()  # refused before anything started


def test_one_worker_needs_no_redis(tmp_path: Path) -> None:
    """``--workers 1`` is the plain single process (no supervisor)."""
    srv = ServerProcess(tmp_path / "k.db", "--workers", "1").start()
    try:
        status, health = http("GET", srv.url + "/health")
        assert status == 200 and "node" not in health
        assert not srv.events("supervising")
    finally:
        srv.stop()
