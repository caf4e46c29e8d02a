"""``kozyr bench server``: many WebSocket players on loopback, real games.

It starts ``kozyr serve`` in a subprocess (or uses ``--url``), opens
``--connections`` clients in client processes, seats them ``--seats`` to a
room, and lets every room play real games (random legal moves after a
``--think`` pause; the host asks for a rematch after each game).  After
everyone is connected and playing it measures for ``--duration`` seconds:

* connections held (the clients' count and the server's ``/health``),
* moves per second,
* latency from sending a move to receiving its ``event`` broadcast, at the
  mover (p50/p90/p99/max), and until the last seat of the room has it,
* the server process's CPU use, and its CPU time per move: the process's
  user + system time (``/proc/PID/stat``, every thread) over the moves the
  server applied in the window (``moves`` of ``/health``).  Unlike latency,
  this figure barely depends on how loaded the machine is.

With ``--processes N`` (N > 1) it starts a cluster instead: a private
``redis-server`` and PostgreSQL (:mod:`.localcluster`, in temporary
directories) and N ``kozyr serve --redis`` processes, each on its own port;
``--url`` with several addresses benchmarks a running cluster.  Connections go
round-robin over the processes, seat by seat, so a room's seats sit on
different processes (and rooms' hosts, hence owners, are spread too).  CPU is
summed over the server processes; Redis's and PostgreSQL's are printed apart.

Latencies are measured inside one client process per room (all seats of a
room live in the same process), so one clock serves both ends.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import multiprocessing
import os
import queue
import random
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Any

from kozyr import machine

from .launch import listening_port, serve_command
from .localcluster import LocalPostgres, LocalRedis, MissingBinary, tree_pids

# Heavy imports (websockets) happen inside the worker and the run function, so
# that ``kozyr --help`` stays fast.


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The ``kozyr bench server`` options (registered by kozyr.cli.bench)."""
    g = p.add_argument_group("server (kozyr bench server)")
    g.add_argument("--connections", type=int, default=1000, help="clients (default 1000)")
    g.add_argument("--seats", type=int, default=4, help="seats per room (default 4)")
    g.add_argument("--duration", type=float, default=30.0, help="measured seconds (default 30)")
    g.add_argument(
        "--think", type=float, default=1.0, help="mean pause before each move, s (default 1.0)"
    )
    g.add_argument("--client-procs", type=int, default=2, help="client processes (default 2)")
    g.add_argument(
        "--processes",
        type=int,
        default=1,
        help="server processes; more than 1 starts a private Redis and PostgreSQL and "
        "a cluster (default 1: one server on SQLite)",
    )
    g.add_argument(
        "--url",
        nargs="+",
        default=None,
        metavar="URL",
        help="use running servers (ws://host:port/ws; several: the processes of a cluster)",
    )
    g.add_argument(
        "--server-log", default=None, help="file for the server's JSON log (default: temporary)"
    )
    g.add_argument(
        "--pin",
        action="store_true",
        help="give each server process a CPU of its own and run everything else (clients, "
        "Redis, PostgreSQL, the bench) on the other CPUs; needs more CPUs than --processes",
    )


# ---------------------------------------------------------------- client side
@dataclass
class _Stats:
    mover: list[float] = field(default_factory=list)
    everyone: list[float] = field(default_factory=list)
    moves: int = 0
    games: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    retried: Counter[str] = field(default_factory=Counter)
    connected: int = 0


@dataclass
class _Room:
    seats: int
    sent: dict[int, float] = field(default_factory=dict)
    got: dict[int, int] = field(default_factory=dict)
    code: str = ""


class _Flags:
    """Measurement flags, mirrored from the parent's multiprocessing events."""

    measuring = False
    stopping = False


async def _room_main(
    urls: list[str],
    index: int,
    seats: int,
    think: float,
    stats: _Stats,
    flags: _Flags,
    ready: asyncio.Event,
) -> None:
    from websockets.asyncio.client import connect

    room = _Room(seats)
    rng = random.Random(index)
    conns = []
    for s in range(seats):
        # Round-robin by connection, starting one process further for each room.
        url = urls[(index + s) % len(urls)]
        ws = await connect(url, open_timeout=60, max_queue=None, ping_interval=None)
        conns.append(ws)
        stats.connected += 1
        await ws.send(json.dumps({"type": "hello", "name": f"b{index}s{s}"}))
        while json.loads(await ws.recv())["type"] != "welcome":
            pass
        if s == 0:
            ask = {
                "type": "create_room",
                "seats": seats,
                "move_time": 60,
                "visibility": "public",
                "bot_level": 1,
            }
        else:
            ask = {"type": "join", "room": room.code}
        room.code = await _ask_room(ws, ask, index, stats)
    await conns[0].send(json.dumps({"type": "start"}))
    ready.set()
    tasks = [
        asyncio.ensure_future(_seat_loop(ws, s == 0, room, think, rng, stats, flags))
        for s, ws in enumerate(conns)
    ]
    try:
        await asyncio.gather(*tasks)
    finally:
        for ws in conns:
            await ws.close()
            stats.connected -= 1


async def _ask_room(ws: Any, ask: dict[str, Any], index: int, stats: _Stats) -> str:
    """Send ``create_room``/``join`` until the ``room`` frame comes; the room's code.

    In a cluster a ``join`` may meet a room whose owner is not reachable yet
    (``unavailable``): as docs/protocol.md asks, the same message is sent again
    after ``retry_after`` (and counted, since it is an error the user would see)."""
    for _attempt in range(30):
        await ws.send(json.dumps(ask))
        while True:
            msg = json.loads(await ws.recv())
            if msg["type"] == "room":
                return str(msg["room"]["code"])
            if msg["type"] == "error":
                break
        if msg["code"] != "unavailable":
            raise RuntimeError(f"bench room {index}: {msg}")
        stats.retried[ask["type"]] += 1
        await asyncio.sleep(float(msg.get("retry_after") or 1.0))
    raise RuntimeError(f"bench room {index}: still unavailable after 30 tries: {msg}")


async def _seat_loop(
    ws: Any,
    host: bool,
    room: _Room,
    think: float,
    rng: random.Random,
    stats: _Stats,
    flags: _Flags,
) -> None:
    import msgspec

    decode = msgspec.json.decode
    loop = asyncio.get_running_loop()
    latest = -1
    seat: int | None = None
    pending: list[asyncio.Future[None]] = []
    last: list[Any] = []  # the version and text of this seat's last move

    def move(frame: dict[str, Any]) -> None:
        if flags.stopping or frame["version"] != latest:
            return
        action = rng.choice(frame["legal"])
        version = frame["version"]
        room.sent[version + 1] = time.perf_counter()
        msg = json.dumps({"type": "move", "action": action, "version": version})
        last[:] = [version, msg]
        sending = asyncio.ensure_future(ws.send(msg))
        sending.add_done_callback(_retrieve)  # a send to a closing socket is no news
        pending.append(sending)
        if len(pending) > 64:
            pending[:] = [f for f in pending if not f.done()]

    def resend() -> None:
        # A move answered ``unavailable`` (its room changing owner) is sent again,
        # as docs/protocol.md asks, unless the game moved on meanwhile.
        if not flags.stopping and last and last[0] == latest:
            sending = asyncio.ensure_future(ws.send(last[1]))
            sending.add_done_callback(_retrieve)
            pending.append(sending)

    def rematch() -> None:
        if not flags.stopping:
            pending.append(asyncio.ensure_future(ws.send('{"type":"rematch"}')))

    while not flags.stopping:
        try:
            async with asyncio.timeout(0.5):  # no task per message, unlike wait_for
                raw = await ws.recv()
        except TimeoutError:
            continue
        now = time.perf_counter()
        msg = decode(raw)
        kind = msg["type"]
        if kind == "event":
            v = msg["version"]
            latest = max(latest, v)
            sent = room.sent.get(v)
            if sent is not None:
                if msg["seat"] == seat and flags.measuring:
                    stats.mover.append(now - sent)
                    stats.moves += 1
                n = room.got.get(v, 0) + 1
                if n >= room.seats:
                    room.got.pop(v, None)
                    room.sent.pop(v, None)
                    if flags.measuring:
                        stats.everyone.append(now - sent)
                else:
                    room.got[v] = n
        elif kind == "game":
            latest = max(latest, msg["version"])
            seat = msg["seat"]
            if msg["legal"]:
                loop.call_later(rng.uniform(0.5, 1.5) * think, move, msg)
        elif kind == "game_over":
            if host:
                stats.games += 1
                loop.call_later(0.5, rematch)
        elif kind == "error" and msg["code"] != "stale_version":
            stats.errors[msg["code"]] += 1
            if msg["code"] == "unavailable":
                loop.call_later(float(msg.get("retry_after") or 1.0), resend)


def _retrieve(fut: asyncio.Future[Any]) -> None:
    if not fut.cancelled():
        fut.exception()


def _client_worker(
    urls: list[str],
    first_room: int,
    rooms: int,
    seats: int,
    think: float,
    ready_q: Any,
    measure: Any,
    stop: Any,
    results: Any,
) -> None:
    """One client process: ``rooms`` rooms of ``seats`` WebSocket clients."""
    try:
        import uvloop

        uvloop.install()
    except ImportError:  # pragma: no cover - non-Linux
        pass
    # Ctrl-C is the parent's to handle: it stops the clients (and the servers).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _raise_nofile()
    stats = _Stats()
    flags = _Flags()

    async def main() -> None:
        readies = []
        tasks = []
        for i in range(rooms):
            ev = asyncio.Event()
            readies.append(ev)
            task = asyncio.ensure_future(
                _room_main(urls, first_room + i, seats, think, stats, flags, ev)
            )
            task.add_done_callback(_retrieve)  # the first failure is reported below
            tasks.append(task)
            if i % 25 == 24:
                await asyncio.sleep(0.05)  # a gentle ramp: no SYN storm
        while not all(ev.is_set() for ev in readies):
            for t in tasks:
                if t.done() and t.exception() is not None:
                    raise RuntimeError(f"a bench room failed: {t.exception()!r}")
            await asyncio.sleep(0.05)
        ready_q.put(stats.connected)
        while not measure.is_set():
            await asyncio.sleep(0.05)
        flags.measuring = True
        while not stop.is_set():
            await asyncio.sleep(0.05)
        held = stats.connected
        flags.measuring = False
        flags.stopping = True
        await asyncio.gather(*tasks, return_exceptions=True)
        results.put(
            {
                "mover": stats.mover,
                "everyone": stats.everyone,
                "moves": stats.moves,
                "games": stats.games,
                "errors": dict(stats.errors),
                "retried": dict(stats.retried),
                "held": held,
            }
        )

    try:
        asyncio.run(main())
    except Exception as exc:
        ready_q.put(f"error: {exc!r}")


# ---------------------------------------------------------------- parent side
def _raise_nofile() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def _cpu_seconds(pid: int) -> float:
    return sum(_cpu_split(pid))


def _cpu_split(pid: int) -> tuple[float, float]:
    """(user, system) seconds of a process, every thread (``/proc/PID/stat``)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def _run_queue_seconds(pid: int) -> float:
    """Seconds the process's threads spent runnable but waiting for a CPU
    (/proc/PID/task/*/schedstat): how much other load slowed the server."""
    total = 0.0
    for stat in Path(f"/proc/{pid}/task").glob("*/schedstat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            total += int(stat.read_text().split()[1]) / 1e9
    return total


def _tree_cpu_seconds(pid: int) -> float:
    """CPU of a process tree (PostgreSQL: the postmaster and its backends),
    plus what its reaped children used (``cutime``/``cstime`` of the root)."""
    total = 0.0
    for p in tree_pids(pid):
        with contextlib.suppress(OSError, ValueError, IndexError):
            total += _cpu_seconds(p)
    with contextlib.suppress(OSError, ValueError, IndexError):
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")
    return total


@dataclass
class _Servers:
    """What the bench started (or was pointed at); :meth:`stop` ends it all."""

    urls: list[str] = field(default_factory=list)
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    logs: list[Path] = field(default_factory=list)
    redis: LocalRedis | None = None
    pg: LocalPostgres | None = None
    #: ``--pin``: the CPU of each server process (None: not pinned).
    cpus: list[int] | None = None

    def pids(self) -> list[int]:
        """Every process started (servers, Redis, the PostgreSQL postmaster)."""
        out = [p.pid for p in self.procs]
        if self.redis is not None and self.redis.pid is not None:
            out.append(self.redis.pid)
        pg = self.pg.postmaster_pid() if self.pg is not None else None
        return out if pg is None else [*out, pg]

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        if self.redis is not None:
            self.redis.stop()
        if self.pg is not None:
            self.pg.stop()


def _log_paths(args: argparse.Namespace, tmp: Path, n: int) -> list[Path]:
    if n == 1:
        return [Path(args.server_log) if args.server_log else tmp / "server.log"]
    if args.server_log:
        base = Path(args.server_log)
        return [base.with_name(f"{base.stem}.{i}{base.suffix}") for i in range(n)]
    return [tmp / f"server.{i}.log" for i in range(n)]


def _start_servers(args: argparse.Namespace, tmp: Path, servers: _Servers) -> None:
    """One server on SQLite, or a cluster: Redis, PostgreSQL and ``--processes``
    servers, all started at once (as operators would; the schema creation must
    cope).  Everything started is recorded in ``servers`` before waiting, so a
    failure or Ctrl-C half-way still stops it."""
    n = args.processes
    options = ["--bot-workers", "1"]
    if n == 1:
        db_url = f"sqlite:///{tmp / 'bench.db'}"
    else:
        servers.redis = LocalRedis(tmp)
        servers.redis.start()
        servers.pg = LocalPostgres()
        servers.pg.start()
        db_url = servers.pg.url()
        options += ["--redis", servers.redis.url]
    servers.logs = _log_paths(args, tmp, n)
    cpus = servers.cpus
    for i, log_path in enumerate(servers.logs):
        log = open(log_path, "wb")  # noqa: SIM115 - handed to the child
        # A session of its own: Ctrl-C reaches the bench only, which stops the
        # servers after the clients (no burst of errors from servers dying first).
        cmd = serve_command(db_url, *options)
        # --pin: the server (and its bot worker) on a CPU of its own, from its start.
        pin = None if cpus is None else functools.partial(os.sched_setaffinity, 0, {cpus[i]})
        servers.procs.append(
            subprocess.Popen(
                cmd,
                stdout=subprocess.DEVNULL,
                stderr=log,
                start_new_session=True,
                preexec_fn=pin,  # one system call between fork and exec
            )
        )
    pairs = zip(servers.procs, servers.logs, strict=True)
    servers.urls = [_wait_listening(proc, log) for proc, log in pairs]


def _wait_listening(proc: subprocess.Popen[bytes], log_path: Path) -> str:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"a server exited; see {log_path}")
        for line in log_path.read_text(errors="replace").splitlines():
            port = listening_port(line)
            if port is not None:
                return f"ws://127.0.0.1:{port}/ws"
        time.sleep(0.1)
    raise RuntimeError(f"a server did not start; see {log_path}")


def _server_times(log_path: Path, t0: float, t1: float) -> list[float]:
    """The ``ms`` of the server's ``move`` log lines inside the window: the time
    from a move's arrival to its broadcast, without the clients' share."""
    out = []
    with open(log_path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if '"event":"move"' not in line or '"ms":null' in line:
                continue
            data = json.loads(line)
            ts = datetime.strptime(data["ts"], "%Y-%m-%dT%H:%M:%S.%fZ")
            when = ts.replace(tzinfo=UTC).timestamp()
            if t0 <= when <= t1:
                out.append(float(data["ms"]))
    return out


def _health(http_base: str) -> dict[str, Any]:
    with urllib.request.urlopen(http_base + "/health", timeout=10) as resp:
        data = json.loads(resp.read())
    assert isinstance(data, dict)
    return data


def _health_sum(bases: list[str], key: str) -> int:
    """``key`` of ``/health`` summed over the processes (moves are counted by
    the room's owner, connections by the process holding the socket)."""
    return sum(int(_health(b)[key]) for b in bases)


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _sigterm(_signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt  # unwinds through the ``finally`` that stops everything


def _placement(args: argparse.Namespace) -> tuple[list[int], set[int]] | str:
    """``--pin``: (the CPU of each server process, the CPUs of everything else),
    or why it cannot be done.

    Why: the clients that load the servers run on the same machine, and left
    to the scheduler they share the servers' cores (and caches), which a
    production server does not.  Pinning tells whether that matters; on the
    2-core development machine it did not change the CPU per move
    (docs/performance.md, "Third pass").
    """
    if args.url:
        return "--pin places the servers it starts; it cannot place --url servers"
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) <= args.processes:
        return f"--pin needs more CPUs than server processes ({len(cpus)} CPUs here)"
    return cpus[: args.processes], set(cpus[args.processes :])


def _affinity(pid: int) -> list[int] | None:
    """The CPUs process ``pid`` may run on (None once it is gone)."""
    try:
        return sorted(os.sched_getaffinity(pid))
    except OSError:
        return None


def run(args: argparse.Namespace) -> int:
    """Run the benchmark and print (or with --json, dump) the figures."""
    if args.processes < 1:
        print("kozyr bench server: --processes must be at least 1", file=sys.stderr)
        return 2
    if args.url and args.processes > 1:
        print("kozyr bench server: --url and --processes exclude each other", file=sys.stderr)
        return 2
    servers = _Servers()
    if args.pin:
        placement = _placement(args)
        if isinstance(placement, str):
            print(f"kozyr bench server: {placement}", file=sys.stderr)
            return 2
        servers.cpus, rest = placement
        os.sched_setaffinity(0, rest)  # inherited by the clients, Redis and PostgreSQL
    _raise_nofile()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _sigterm)
    with tempfile.TemporaryDirectory(prefix="kozyr-bench-") as tmp:
        try:
            if args.url:
                servers.urls = list(args.url)
            else:
                _start_servers(args, Path(tmp), servers)
            return _run(args, servers)
        except MissingBinary as exc:
            print(f"kozyr bench server: {exc}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("kozyr bench server: interrupted; stopping what it started", file=sys.stderr)
            return 130
        finally:
            servers.stop()


@dataclass
class _Sample:
    """Counters read at one end of the measured window."""

    moves: int
    servers: float | None
    #: The kernel's part of ``servers`` (system time: sockets, mostly).
    servers_system: float | None
    wait: float | None
    redis: float | None
    pg: float | None
    clients: float

    @classmethod
    def take(cls, servers: _Servers, bases: list[str], workers: list[Any]) -> _Sample:
        procs = [p.pid for p in servers.procs]
        redis, pg = servers.redis, servers.pg
        pg_pid = pg.postmaster_pid() if pg is not None else None
        split = [_cpu_split(p) for p in procs]  # (user, system) of each server
        return cls(
            moves=_health_sum(bases, "moves"),
            servers=sum(u + s for u, s in split) if procs else None,
            servers_system=sum(s for _u, s in split) if procs else None,
            wait=sum(_run_queue_seconds(p) for p in procs) if procs else None,
            redis=_cpu_seconds(redis.pid) if redis is not None and redis.pid else None,
            pg=_tree_cpu_seconds(pg_pid) if pg_pid is not None else None,
            clients=sum(_cpu_seconds(w.pid) for w in workers if w.pid),
        )


def _percent(a: float | None, b: float | None, window: float) -> float | None:
    return round((b - a) / window * 100, 1) if a is not None and b is not None else None


def _per_move(a: float | None, b: float | None, moves: int) -> float | None:
    if a is None or b is None or moves <= 0:
        return None
    return round((b - a) * 1000 / moves, 3)


def _run(args: argparse.Namespace, servers: _Servers) -> int:
    seats = args.seats
    rooms = max(1, args.connections // seats)
    procs_n = max(1, min(args.client_procs, rooms))
    urls = servers.urls
    bases = [u.replace("ws://", "http://").rsplit("/ws", 1)[0] for u in urls]
    ctx = multiprocessing.get_context("spawn")
    ready_q, results = ctx.Queue(), ctx.Queue()
    measure, stop = ctx.Event(), ctx.Event()
    workers = []
    share = [rooms // procs_n + (1 if i < rooms % procs_n else 0) for i in range(procs_n)]
    first = 0
    for n in share:
        w = ctx.Process(
            target=_client_worker,
            args=(urls, first, n, seats, args.think, ready_q, measure, stop, results),
            daemon=True,
        )
        w.start()
        workers.append(w)
        first += n
    finished = False
    try:
        t0 = time.monotonic()
        connected = 0
        for _ in workers:
            try:
                got = ready_q.get(timeout=600)
            except queue.Empty:
                print(
                    "kozyr bench server: the clients were not all seated after 600 s "
                    "(a create_room or join was never answered; see the servers' logs "
                    "with --server-log)",
                    file=sys.stderr,
                )
                return 1
            if isinstance(got, str):
                print(f"kozyr bench server: a client process failed: {got}", file=sys.stderr)
                return 1
            connected += got
        setup = time.monotonic() - t0
        time.sleep(2.0)  # let every room get into its game
        before = _Sample.take(servers, bases, workers)
        load_start = os.getloadavg()[0]
        measure.set()
        start = time.monotonic()
        wall0 = time.time()
        time.sleep(args.duration / 2)
        per_process = [int(_health(b)["connections"]) for b in bases]
        time.sleep(max(0.0, args.duration - (time.monotonic() - start)))
        after = _Sample.take(servers, bases, workers)
        stop.set()
        window = time.monotonic() - start
        wall1 = time.time()
        parts = [results.get(timeout=120) for _ in workers]
        finished = True
    finally:
        stop.set()
        for w in workers:
            w.join(timeout=30 if finished else 2)
            if w.is_alive():
                w.terminate()
                w.join(10)
    server_ms = [x for log in servers.logs for x in _server_times(log, wall0, wall1)]
    mover = [x for part in parts for x in part["mover"]]
    everyone = [x for part in parts for x in part["everyone"]]
    moves = sum(part["moves"] for part in parts)
    errors: Counter[str] = Counter()
    retried: Counter[str] = Counter()
    for part in parts:
        errors.update(part["errors"])
        retried.update(part["retried"])
    server_moves = after.moves - before.moves
    figures: dict[str, Any] = {
        "connections": args.connections,
        "rooms": rooms,
        "seats": seats,
        "processes": len(urls),
        "think_s": args.think,
        "setup_s": round(setup, 2),
        "window_s": round(window, 2),
        "connections_held": sum(part["held"] for part in parts),
        "server_connections": sum(per_process),
        "connections_per_process": per_process,
        "moves": moves,
        "moves_per_s": round(moves / window, 1),
        "games_finished": sum(part["games"] for part in parts),
        "latency_ms": {
            "p50": round(_pct(mover, 0.50) * 1000, 2),
            "p90": round(_pct(mover, 0.90) * 1000, 2),
            "p99": round(_pct(mover, 0.99) * 1000, 2),
            "max": round(max(mover, default=float("nan")) * 1000, 2),
        },
        "latency_all_seats_ms": {
            "p50": round(_pct(everyone, 0.50) * 1000, 2),
            "p99": round(_pct(everyone, 0.99) * 1000, 2),
        },
        "server_handling_ms": {
            "p50": round(_pct(server_ms, 0.50), 2),
            "p99": round(_pct(server_ms, 0.99), 2),
        },
        "server_cpu_percent": _percent(before.servers, after.servers, window),
        "server_cpu_wait_percent": _percent(before.wait, after.wait, window),
        "server_moves": server_moves,
        "server_cpu_ms_per_move": _per_move(before.servers, after.servers, server_moves),
        "server_system_ms_per_move": _per_move(
            before.servers_system, after.servers_system, server_moves
        ),
        "redis_cpu_percent": _percent(before.redis, after.redis, window),
        "redis_cpu_ms_per_move": _per_move(before.redis, after.redis, server_moves),
        "postgres_cpu_percent": _percent(before.pg, after.pg, window),
        "postgres_cpu_ms_per_move": _per_move(before.pg, after.pg, server_moves),
        "client_cpu_percent": round((after.clients - before.clients) / window * 100, 1),
        "load_average": os.getloadavg()[0],
        "load_average_start": load_start,
        "errors": dict(errors),
        "setup_retries": dict(retried),
        # What the clients were answered ``unavailable`` (issue 24: 0 in a run
        # without kills): moves during the window, joins and creations at setup.
        "unavailable": {
            "move": errors.get("unavailable", 0),
            "join": retried.get("join", 0),
            "create_room": retried.get("create_room", 0),
        },
        "server_log": args.server_log,
        "started_pids": servers.pids(),
        "server_cpus": servers.cpus,
        # The CPUs each started server may run on, as the kernel reports them.
        "server_affinity": [_affinity(p.pid) for p in servers.procs],
        # CPU per move depends on the machine: the figures travel with it.
        "machine": machine.describe().to_json(),
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        _print(figures, args, setup)
    return 0


def _print(figures: dict[str, Any], args: argparse.Namespace, setup: float) -> None:
    lat, lat_all = figures["latency_ms"], figures["latency_all_seats_ms"]
    n = figures["processes"]
    where = f"{n} server processes, " if n > 1 else ""
    if figures["server_cpus"]:
        where += f"servers pinned to CPU {', '.join(map(str, figures['server_cpus']))}, "
    print(
        f"kozyr bench server  ({figures['connections_held']} connections, {where}"
        f"{figures['rooms']} rooms x {figures['seats']} seats, think {args.think:g} s, "
        f"{figures['window_s']:.1f} s measured)"
    )
    print(
        f"  connections held:  {figures['connections_held']} "
        f"(servers report {figures['server_connections']}"
        f"{' = ' + ' + '.join(map(str, figures['connections_per_process'])) if n > 1 else ''}; "
        f"all connected in {setup:.1f} s)"
    )
    print(f"  moves:             {figures['moves']} = {figures['moves_per_s']} moves/s")
    print(f"  games finished:    {figures['games_finished']}")
    print(
        f"  move -> broadcast: p50 {lat['p50']} ms, p90 {lat['p90']} ms, "
        f"p99 {lat['p99']} ms, max {lat['max']} ms"
    )
    print(f"  move -> all seats: p50 {lat_all['p50']} ms, p99 {lat_all['p99']} ms")
    sh = figures["server_handling_ms"]
    if sh["p50"] == sh["p50"]:  # not NaN: the servers' logs were read
        print(f"  inside the server: p50 {sh['p50']} ms, p99 {sh['p99']} ms (receipt -> broadcast)")
    if figures["server_cpu_percent"] is not None:
        print(
            f"  server CPU:        {figures['server_cpu_percent']} % of one core "
            f"{'(all processes) ' if n > 1 else ''}"
            f"(and {figures['server_cpu_wait_percent']} % waiting for a CPU; "
            f"load average {figures['load_average_start']:.1f} at the start, "
            f"{figures['load_average']:.1f} at the end)"
        )
    if figures["server_cpu_ms_per_move"] is not None:
        print(
            f"  server CPU/move:   {figures['server_cpu_ms_per_move']} ms "
            f"(of which the kernel {figures['server_system_ms_per_move']} ms; "
            f"{figures['server_moves']} moves applied by the server"
            f"{'s' if n > 1 else ''} in the window)"
        )
    for name, key in (("Redis", "redis"), ("PostgreSQL", "postgres")):
        if figures[f"{key}_cpu_percent"] is not None:
            print(
                f"  {name + ' CPU:':<19}{figures[f'{key}_cpu_percent']} % of one core, "
                f"{figures[f'{key}_cpu_ms_per_move']} ms per move"
            )
    print(f"  client processes:  {figures['client_cpu_percent']} % of one core in all")
    print(f"  errors:            {figures['errors'] or 'none'}")
    if figures["setup_retries"]:
        print(f"  setup retried:     {figures['setup_retries']} (answered unavailable)")
    if n > 1:
        u = figures["unavailable"]
        print(
            f"  unavailable:       {u['move']} moves, {u['join']} joins, "
            f"{u['create_room']} room creations"
        )
    print(f"  machine:           {machine.Machine(**figures['machine']).summary()}")
