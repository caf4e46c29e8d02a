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

Latencies are measured inside one client process per room (all seats of a
room live in the same process), so one clock serves both ends.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .launch import listening_port, serve_command

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
    g.add_argument("--url", default=None, help="use a running server (ws://host:port/ws)")
    g.add_argument(
        "--server-log", default=None, help="file for the server's JSON log (default: temporary)"
    )


# ---------------------------------------------------------------- client side
@dataclass
class _Stats:
    mover: list[float] = field(default_factory=list)
    everyone: list[float] = field(default_factory=list)
    moves: int = 0
    games: int = 0
    errors: Counter[str] = field(default_factory=Counter)
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
    url: str,
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
        ws = await connect(url, open_timeout=60, max_queue=None, ping_interval=None)
        conns.append(ws)
        stats.connected += 1
        await ws.send(json.dumps({"type": "hello", "name": f"b{index}s{s}"}))
        while json.loads(await ws.recv())["type"] != "welcome":
            pass
        if s == 0:
            await ws.send(
                json.dumps(
                    {
                        "type": "create_room",
                        "seats": seats,
                        "move_time": 60,
                        "visibility": "public",
                        "bot_level": 1,
                    }
                )
            )
        else:
            await ws.send(json.dumps({"type": "join", "room": room.code}))
        while True:
            msg = json.loads(await ws.recv())
            if msg["type"] == "room":
                room.code = msg["room"]["code"]
                break
            if msg["type"] == "error":
                raise RuntimeError(f"bench room {index}: {msg}")
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

    def move(frame: dict[str, Any]) -> None:
        if flags.stopping or frame["version"] != latest:
            return
        action = rng.choice(frame["legal"])
        version = frame["version"]
        room.sent[version + 1] = time.perf_counter()
        msg = json.dumps({"type": "move", "action": action, "version": version})
        pending.append(asyncio.ensure_future(ws.send(msg)))
        if len(pending) > 64:
            pending[:] = [f for f in pending if not f.done()]

    def rematch() -> None:
        if not flags.stopping:
            pending.append(asyncio.ensure_future(ws.send('{"type":"rematch"}')))

    while not flags.stopping:
        try:
            raw = await asyncio.wait_for(ws.recv(), 0.5)
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


def _client_worker(
    url: str,
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
    _raise_nofile()
    stats = _Stats()
    flags = _Flags()

    async def main() -> None:
        readies = []
        tasks = []
        for i in range(rooms):
            ev = asyncio.Event()
            readies.append(ev)
            tasks.append(
                asyncio.ensure_future(
                    _room_main(url, first_room + i, seats, think, stats, flags, ev)
                )
            )
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
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _run_queue_seconds(pid: int) -> float:
    """Seconds the process's threads spent runnable but waiting for a CPU
    (/proc/PID/task/*/schedstat): how much other load slowed the server."""
    total = 0.0
    for stat in Path(f"/proc/{pid}/task").glob("*/schedstat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            total += int(stat.read_text().split()[1]) / 1e9
    return total


def _start_server(log_path: Path, db: Path) -> tuple[subprocess.Popen[bytes], str]:
    cmd = serve_command(f"sqlite:///{db}", "--bot-workers", "1")
    log = open(log_path, "wb")  # noqa: SIM115 - handed to the child
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited; see {log_path}")
        for line in log_path.read_text(errors="replace").splitlines():
            port = listening_port(line)
            if port is not None:
                return proc, f"ws://127.0.0.1:{port}/ws"
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"the server did not start; see {log_path}")


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


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(args: argparse.Namespace) -> int:
    """Run the benchmark and print (or with --json, dump) the figures."""
    _raise_nofile()
    with tempfile.TemporaryDirectory(prefix="kozyr-bench-") as tmp:
        return _run(args, Path(tmp))


def _run(args: argparse.Namespace, tmp: Path) -> int:
    seats = args.seats
    rooms = max(1, args.connections // seats)
    procs_n = max(1, min(args.client_procs, rooms))
    server = None
    url = args.url
    log_path = Path(args.server_log) if args.server_log else tmp / "server.log"
    if url is None:
        server, url = _start_server(log_path, tmp / "bench.db")
    http_base = url.replace("ws://", "http://").rsplit("/ws", 1)[0]
    ctx = multiprocessing.get_context("spawn")
    ready_q, results = ctx.Queue(), ctx.Queue()
    measure, stop = ctx.Event(), ctx.Event()
    workers = []
    share = [rooms // procs_n + (1 if i < rooms % procs_n else 0) for i in range(procs_n)]
    first = 0
    for n in share:
        w = ctx.Process(
            target=_client_worker,
            args=(url, first, n, seats, args.think, ready_q, measure, stop, results),
            daemon=True,
        )
        w.start()
        workers.append(w)
        first += n
    try:
        t0 = time.monotonic()
        connected = 0
        for _ in workers:
            got = ready_q.get(timeout=300)
            if isinstance(got, str):
                print(f"kozyr bench server: a client process failed: {got}", file=sys.stderr)
                return 1
            connected += got
        setup = time.monotonic() - t0
        time.sleep(2.0)  # let every room get into its game
        moves0 = _health(http_base)["moves"]
        cpu0 = _cpu_seconds(server.pid) if server else None
        wait0 = _run_queue_seconds(server.pid) if server else None
        clients0 = sum(_cpu_seconds(w.pid) for w in workers if w.pid)
        measure.set()
        start = time.monotonic()
        wall0 = time.time()
        time.sleep(args.duration / 2)
        health = _health(http_base)
        time.sleep(max(0.0, args.duration - (time.monotonic() - start)))
        cpu1 = _cpu_seconds(server.pid) if server else None
        moves1 = _health(http_base)["moves"]
        stop.set()
        window = time.monotonic() - start
        wall1 = time.time()
        wait1 = _run_queue_seconds(server.pid) if server else None
        clients1 = sum(_cpu_seconds(w.pid) for w in workers if w.pid)
        parts = [results.get(timeout=120) for _ in workers]
    finally:
        stop.set()
        for w in workers:
            w.join(timeout=30)
        if server is not None:
            server.terminate()
            try:
                server.wait(15)
            except subprocess.TimeoutExpired:
                server.kill()
    server_ms = _server_times(log_path, wall0, wall1) if server is not None else []
    mover = [x for part in parts for x in part["mover"]]
    everyone = [x for part in parts for x in part["everyone"]]
    moves = sum(part["moves"] for part in parts)
    errors: Counter[str] = Counter()
    for part in parts:
        errors.update(part["errors"])
    figures: dict[str, Any] = {
        "connections": args.connections,
        "rooms": rooms,
        "seats": seats,
        "think_s": args.think,
        "setup_s": round(setup, 2),
        "window_s": round(window, 2),
        "connections_held": sum(part["held"] for part in parts),
        "server_connections": health.get("connections"),
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
        "server_cpu_percent": (
            round((cpu1 - cpu0) / window * 100, 1)
            if cpu0 is not None and cpu1 is not None
            else None
        ),
        "server_cpu_wait_percent": (
            round((wait1 - wait0) / window * 100, 1)
            if wait0 is not None and wait1 is not None
            else None
        ),
        "server_moves": moves1 - moves0,
        "server_cpu_ms_per_move": (
            round((cpu1 - cpu0) * 1000 / (moves1 - moves0), 3)
            if cpu0 is not None and cpu1 is not None and moves1 > moves0
            else None
        ),
        "client_cpu_percent": round((clients1 - clients0) / window * 100, 1),
        "load_average": os.getloadavg()[0],
        "errors": dict(errors),
        "server_log": args.server_log,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    lat, lat_all = figures["latency_ms"], figures["latency_all_seats_ms"]
    print(
        f"kozyr bench server  ({figures['connections_held']} connections, {rooms} rooms x "
        f"{seats} seats, think {args.think:g} s, {window:.1f} s measured)"
    )
    print(
        f"  connections held:  {figures['connections_held']} "
        f"(server reports {figures['server_connections']}; all connected in {setup:.1f} s)"
    )
    print(f"  moves:             {moves} = {figures['moves_per_s']} moves/s")
    print(f"  games finished:    {figures['games_finished']}")
    print(
        f"  move -> broadcast: p50 {lat['p50']} ms, p90 {lat['p90']} ms, "
        f"p99 {lat['p99']} ms, max {lat['max']} ms"
    )
    print(f"  move -> all seats: p50 {lat_all['p50']} ms, p99 {lat_all['p99']} ms")
    if server_ms:
        sh = figures["server_handling_ms"]
        print(f"  inside the server: p50 {sh['p50']} ms, p99 {sh['p99']} ms (receipt -> broadcast)")
    if figures["server_cpu_percent"] is not None:
        print(
            f"  server CPU:        {figures['server_cpu_percent']} % of one core "
            f"(and {figures['server_cpu_wait_percent']} % waiting for a CPU; "
            f"load average {figures['load_average']:.1f})"
        )
    if figures["server_cpu_ms_per_move"] is not None:
        print(
            f"  server CPU/move:   {figures['server_cpu_ms_per_move']} ms "
            f"({figures['server_moves']} moves applied by the server in the window)"
        )
    print(f"  client processes:  {figures['client_cpu_percent']} % of one core in all")
    print(f"  errors:            {dict(errors) or 'none'}")
    return 0
