"""``kozyr bench players``: what profiles, candies, ratings and history cost
(issue 26's budgets: at most 2 ms of server CPU per finished game; p99 of
``GET /api/me/games`` and ``GET /api/leaderboard`` at most 20 ms with 100,000
games stored), on SQLite and on a throwaway PostgreSQL.

How: a database at the newest schema is filled with ``--games`` finished games
(bulk inserts: 1,000 players, two to four seats a game, one player in a tenth of
all games), then

* **settling**: ``--settle`` more games are settled exactly as the server does
  (:func:`kozyr.server.players.settle.settle` in its own transaction: the
  history rows, a candy grant per person, the ratings of a rated game), timed
  in this process's CPU time (on PostgreSQL the database's own CPU is another
  process's and not counted: the budget is the server's);
* **requests**: a real ``kozyr serve`` on that database answers ``--requests``
  requests of each route over one keep-alive connection: a first page and a
  page from a cursor of My games (the busiest player and random ones), and the
  leaderboard; the figures are the client-side latencies.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import insert, text
from sqlalchemy.engine import Engine

from kozyr.server.players.settle import GameFacts, SeatFacts, settle
from kozyr.server.storage.migrate import upgrade
from kozyr.server.storage.schema import candy_grants, game_seats, players, ratings
from kozyr.server.storage.store import make_engine

from .launch import listening_port, serve_command
from .localcluster import LocalPostgres, MissingBinary

PLAYERS = 1000
BATCH = 5000


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--games", type=int, default=100_000, help="players: games stored first")
    p.add_argument("--settle", type=int, default=500, help="players: games settled and timed")
    p.add_argument("--requests", type=int, default=1000, help="players: requests per route")
    p.add_argument(
        "--dbs", default="sqlite,postgres", help="players: sqlite, postgres or both (comma)"
    )


def _token(i: int) -> str:
    return f"bench-player-{i:05d}"


def _key(i: int) -> str:
    import hashlib

    return hashlib.sha256(_token(i).encode()).hexdigest()


def fill(engine: Engine, n_games: int, seed: int = 1) -> None:
    """``n_games`` finished games of 1,000 players (player 0 in a tenth of them)."""
    rng = random.Random(seed)
    keys = [_key(i) for i in range(PLAYERS)]
    now = time.time()
    with engine.begin() as conn:
        conn.execute(
            insert(players),
            [
                {
                    "key": k,
                    "name": f"player{i}",
                    "created_at": now - 86400 * 30,
                    "public_id": f"p{i:09d}",
                }
                for i, k in enumerate(keys)
            ],
        )
        conn.execute(
            insert(ratings),
            [
                {
                    "player": k,
                    "variant": v,
                    "mu": rng.gauss(1500, 200),
                    "sigma": 150.0,
                    "games": rng.randrange(0, 200),
                    "updated_at": now,
                }
                for k in keys
                for v in ("podkidnoy", "perevodnoy")
            ],
        )
    seats_rows: list[dict[str, Any]] = []
    grants: list[dict[str, Any]] = []
    for g in range(1, n_games + 1):
        ended = now - (n_games - g) * 20.0
        n = rng.choice((2, 2, 3, 4))
        people = rng.sample(range(1, PLAYERS), n)
        if rng.random() < 0.1:
            people[0] = 0
        durak = rng.randrange(n)
        for seat, who in enumerate(people):
            outcome = "loss" if seat == durak else "win"
            amount = 5 if seat == durak else 15
            seats_rows.append(
                {"game_id": g, "seat": seat, "player": keys[who], "bot_level": None,
                 "outcome": outcome, "variant": "podkidnoy", "moves": 60, "ended_at": ended,
                 "candies": amount, "rating_before": 1500.0, "rating_after": 1510.0}
            )  # fmt: skip
            grants.append(
                {"player": keys[who], "game_id": g, "amount": amount, "reason": "friends_win",
                 "capped": False, "day": time.strftime("%Y-%m-%d", time.gmtime(ended)),
                 "at": ended}
            )  # fmt: skip
        if len(seats_rows) >= BATCH or g == n_games:
            with engine.begin() as conn:
                conn.execute(insert(game_seats), seats_rows)
                conn.execute(insert(candy_grants), grants)
            seats_rows, grants = [], []
    with engine.begin() as conn:  # fresh statistics, as a live database has
        conn.execute(text("ANALYZE"))


def time_settle(engine: Engine, n: int, first_id: int, seed: int = 2) -> tuple[float, float]:
    """Mean CPU milliseconds of this process per settled game (rated, 2-4
    people): what settling adds to the transaction that finishes a game, and
    a transaction of its own (with its begin and commit) for comparison."""
    rng = random.Random(seed)
    keys = [_key(i) for i in range(PLAYERS)]
    total = whole = 0.0
    for i in range(n):
        people = rng.sample(keys, rng.choice((2, 2, 3, 4)))
        moves = rng.randrange(30, 120)
        facts = GameFacts(
            game_id=first_id + i, variant="podkidnoy",
            action_seats=[m % len(people) for m in range(moves)],
            seats=[SeatFacts(s, k) for s, k in enumerate(people)],
            durak=rng.randrange(len(people)), rated=True, cap=300, ended_at=time.time(),
            auto=[False] * moves,
        )  # fmt: skip
        facts.losers = (facts.durak,) if facts.durak is not None else ()
        start = time.process_time()
        with engine.begin() as conn:
            inner = time.process_time()
            settle(conn, facts)
            total += time.process_time() - inner
        whole += time.process_time() - start
    return total / n * 1000, whole / n * 1000


def _cpu(pid: int) -> float:
    """CPU seconds (user + system) of process ``pid`` so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    import os

    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def time_requests(url: str, n: int, seed: int = 3) -> dict[str, dict[str, float]]:
    """Latencies (ms: p50, p99, max) of the routes, from a real server."""
    rng = random.Random(seed)
    proc = subprocess.Popen(
        serve_command(url, "--bot-workers", "0"),
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        port = None
        assert proc.stderr is not None
        for line in proc.stderr:
            port = listening_port(line)
            if port is not None:
                break
        if port is None:
            raise RuntimeError("kozyr serve did not start")
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

        def get(path: str, token: str | None = None) -> tuple[float, Any]:
            headers = {"authorization": f"Bearer {token}"} if token else {}
            t0 = time.perf_counter()
            conn.request("GET", path, headers=headers)
            resp = conn.getresponse()
            body = resp.read()
            took = (time.perf_counter() - t0) * 1000
            if resp.status != 200:
                raise RuntimeError(f"GET {path}: {resp.status} {body[:200]!r}")
            return took, json.loads(body)

        for _ in range(20):  # warm up
            get("/api/leaderboard?limit=50")
            get("/api/me/games?limit=20", _token(0))
        who = [0 if i % 2 == 0 else rng.randrange(1, PLAYERS) for i in range(n)]
        cursors: list[tuple[int, str]] = []
        out: dict[str, list[float]] = {"games_first": [], "games_cursor": [], "leaderboard": []}
        cpu: dict[str, float] = {}
        start = _cpu(proc.pid)
        for w in who:  # first pages (busiest player and random ones)
            took, page = get("/api/me/games?limit=20", _token(w))
            out["games_first"].append(took)
            if page["next"]:
                cursors.append((w, page["next"]))
        cpu["games_first"], start = _cpu(proc.pid) - start, _cpu(proc.pid)
        for w, cursor in cursors:  # a page further on
            took, _ = get(f"/api/me/games?limit=20&before={cursor}", _token(w))
            out["games_cursor"].append(took)
        cpu["games_cursor"], start = _cpu(proc.pid) - start, _cpu(proc.pid)
        for _ in range(n):
            took, _ = get("/api/leaderboard?variant=podkidnoy&limit=50")
            out["leaderboard"].append(took)
        cpu["leaderboard"] = _cpu(proc.pid) - start
        conn.close()
        return {
            k: {
                "p50": round(_pct(v, 0.5), 2),
                "p99": round(_pct(v, 0.99), 2),
                "max": round(max(v), 2),
                "n": len(v),
                "server_cpu_ms": round(cpu[k] / max(1, len(v)) * 1000, 3),
            }
            for k, v in out.items()
        }
    finally:
        proc.terminate()
        proc.wait(30)


def bench_one(url: str, args: argparse.Namespace) -> dict[str, Any]:
    engine = make_engine(url)
    upgrade(engine)
    t0 = time.perf_counter()
    fill(engine, args.games)
    filled = time.perf_counter() - t0
    time_settle(engine, 20, args.games + 1)  # warm up (statement caches)
    settle_ms, whole_ms = time_settle(engine, args.settle, args.games + 100)
    engine.dispose()
    return {
        "games_stored": args.games,
        "fill_seconds": round(filled, 1),
        "settle_cpu_ms_per_game": round(settle_ms, 3),
        "settle_own_transaction_cpu_ms": round(whole_ms, 3),
        "requests_ms": time_requests(url, args.requests),
    }


def run(args: argparse.Namespace) -> int:
    wanted = [d.strip() for d in args.dbs.split(",") if d.strip()]
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="kozyr-bench-players-") as tmp:
        if "sqlite" in wanted:
            figures["sqlite"] = bench_one(f"sqlite:///{Path(tmp) / 'bench.db'}", args)
        if "postgres" in wanted:
            try:
                pg = LocalPostgres().start()
            except MissingBinary as exc:
                figures["postgres"] = {"skipped": str(exc)}
            else:
                try:
                    with make_engine(pg.url()).connect() as conn:
                        conn.execution_options(isolation_level="AUTOCOMMIT").execute(
                            text("CREATE DATABASE bench")
                        )
                    figures["postgres"] = bench_one(pg.url("bench"), args)
                finally:
                    pg.stop()
    print(json.dumps(figures, indent=2))
    try:
        import os

        figures["load_average"] = list(os.getloadavg())
    except OSError:
        pass
    print(json.dumps({"load_average": figures.get("load_average")}))
    return 0
