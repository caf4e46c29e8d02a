"""Post-game analyses (issue 27), computed in worker processes off the event loop.

Why a pool of its own, beside the bots': an analysis keeps a core busy for
tens of seconds, and a bot at a table must never wait behind one.  The
service is a queue with a concurrency limit (``analysis_concurrency``
analyses at once, each spreading its decisions over the pool's processes), a
cap on waiting analyses (``analysis_busy`` beyond it), and a per-player token
bucket on new analyses (a stored or running analysis is free to ask for).

Results are stored once per game and seat (:mod:`..storage.analyses`), so
every process of a cluster reads the same result and progress; the process
that claimed an analysis refreshes it after every decision, and a claim left
unrefreshed (its process died) is taken over by the next request.  Only
finished games are analysed: the record comes from the ``games`` table's
finished rows, never from a table in play.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import secrets
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Final

from kozyr.bots.analysis import (
    decision_points,
    default_budget,
    judge,
    mean_accuracy,
    seat_json,
)
from kozyr.engine.record import GameRecord
from kozyr.workers import exit_with

from ..storage.analyses import AnalysisStore, StoredAnalysis
from ..telemetry import log
from .limits import TokenBucket

#: The seed of every server analysis: the same game and seat give the same
#: result on any process (``kozyr analyse --seed 0`` reproduces it).
SEED: Final = 0


# ------------------------------------------------------------ worker side
def _worker_init(server: int) -> None:
    exit_with(server)


def points_in_worker(record_text: str, seat: int) -> tuple[int, list[int]]:
    """(table size, the record indices of ``seat``'s decisions)."""
    record = GameRecord.loads(record_text)
    points, _skipped, n = decision_points(record, [seat])
    return n, [pt.index for pt in points]


def judge_in_worker(
    record_text: str, seat: int, index: int, budget: int
) -> tuple[dict[str, Any], float]:
    """The decision of ``seat`` at the record's action ``index``, as JSON, and
    its loss at full precision (for the accuracy, as ``kozyr analyse`` has it)."""
    record = GameRecord.loads(record_text)
    points, _skipped, _n = decision_points(record, [seat])
    point = next(pt for pt in points if pt.index == index)
    decision = judge(point, budget, SEED)
    return decision.to_json(), decision.loss


def not_judged_in_worker(record_text: str, seat: int) -> int:
    record = GameRecord.loads(record_text)
    _points, skipped, _n = decision_points(record, [seat])
    return skipped.get(seat, 0)


# ------------------------------------------------------------ server side
class AnalysisRefused(Exception):
    """A request the service turns down: ``code`` for the HTTP error body."""

    def __init__(self, status: int, code: str, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = retry_after


@dataclass
class Status:
    """What a client is told about one game and seat."""

    status: str  # none | queued | running | done | failed
    done: int = 0
    total: int = 0
    result: dict[str, Any] | None = None
    error: str | None = None

    def to_json(self, game_id: int, seat: int) -> dict[str, Any]:
        out: dict[str, Any] = {
            "game_id": game_id,
            "seat": seat,
            "status": self.status,
            "done": self.done,
            "total": self.total,
        }
        if self.result is not None:
            out["result"] = self.result
        if self.error is not None:
            out["error"] = self.error
        return out


def _stored_status(row: StoredAnalysis) -> Status:
    result = None
    if row.result is not None:
        result = {"seats": {str(row.seat): row.result}, "budget": row.budget, "seed": row.seed}
    return Status(row.status, row.done, row.total, result, row.error)


def _seat_json(judged: list[tuple[dict[str, Any], float]], not_judged: int) -> dict[str, Any]:
    """The seat object of ``kozyr analyse --json`` from the decisions' JSON and
    full-precision losses (:func:`judge_in_worker`): the same accuracy as the
    command's, which a mean of the JSON's rounded chances can miss by a tenth."""
    acc = mean_accuracy(loss for decision, loss in judged if decision["label"] != "forced")
    return seat_json(acc, [decision for decision, _loss in judged], not_judged)


class AnalysisService:
    """The queue of analyses of one server process."""

    def __init__(
        self,
        store: AnalysisStore,
        finished_record: Callable[[int], Awaitable[dict[str, Any] | None]],
        workers: int = 1,
        concurrency: int = 1,
        queue_limit: int = 16,
        rate: float = 1 / 120,
        burst: float = 4.0,
        budget: int | None = None,
        stale: float = 60.0,
    ) -> None:
        self.store = store
        self.finished_record = finished_record
        self.workers = workers
        self.queue_limit = queue_limit
        self.rate = rate
        self.burst = burst
        self.budget = budget
        self.stale = stale
        #: This process's name in the ``owner`` column (unique per process start).
        self.owner = f"{os.getpid()}-{secrets.token_hex(4)}"
        self._slots = asyncio.Semaphore(max(1, concurrency))
        self._executor: Executor | None = None
        #: Analyses of this process: (game, seat) -> live status.
        self.jobs: dict[tuple[int, int], Status] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._buckets: dict[str, TokenBucket] = {}

    # ------------------------------------------------------------ pool
    def _pool(self) -> Executor:
        if self._executor is None:
            if self.workers == 0:
                self._executor = ThreadPoolExecutor(1, thread_name_prefix="kozyr-analysis")
            else:
                ctx = multiprocessing.get_context("forkserver")
                ctx.set_forkserver_preload(["kozyr.server.tables.analysis_pool"])
                self._executor = ProcessPoolExecutor(
                    self.workers,
                    mp_context=ctx,
                    initializer=_worker_init,
                    initargs=(os.getpid(),),
                )
        return self._executor

    async def _run(self, fn: Callable[..., Any], *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._pool(), fn, *args)
        except BrokenProcessPool:
            if self._executor is not None:
                self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
            raise

    def shutdown(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)

    # ------------------------------------------------------------ requests
    async def status(self, game_id: int, seat: int) -> Status:
        """The analysis of ``seat`` in game ``game_id`` as this process knows it,
        else as the database does (another process may be computing it)."""
        job = self.jobs.get((game_id, seat))
        if job is not None and job.status in ("queued", "running"):
            return job
        row = await self.store.get(game_id, seat)
        if row is None:
            return Status("none")
        return _stored_status(row)

    async def _record(self, game_id: int, seat: int) -> str:
        record = await self.finished_record(game_id)
        if record is None:
            raise AnalysisRefused(404, "no_such_game", "no finished game has that id")
        players = GameRecord.from_json(record).rules.players
        if not 0 <= seat < players:
            raise AnalysisRefused(
                400, "bad_seat", f"there is no seat {seat} at a {players}-player table"
            )
        return json.dumps(record, separators=(",", ":"))

    async def request(self, game_id: int, seat: int, player: str) -> Status:
        """Start the analysis (or say where it is): stored and running ones are
        shared; a new one costs ``player`` a token and a place in the queue."""
        text = await self._record(game_id, seat)
        current = await self.status(game_id, seat)
        if current.status in ("done", "queued") or (
            current.status == "running" and (game_id, seat) in self.jobs
        ):
            return current
        waiting = sum(1 for j in self.jobs.values() if j.status in ("queued", "running"))
        if waiting >= self.queue_limit:
            raise AnalysisRefused(503, "analysis_busy", "too many analyses waiting", 30.0)
        bucket = self._buckets.get(player)
        if bucket is None:
            bucket = self._buckets[player] = TokenBucket(self.rate, self.burst)
        if bucket.wait() > 0:
            raise AnalysisRefused(
                429, "rate_limited", "too many analyses asked for: wait a little", bucket.wait()
            )
        n = GameRecord.loads(text).rules.players
        budget = self.budget or default_budget(n)
        if not await self.store.claim(game_id, seat, self.owner, budget, SEED, self.stale):
            return await self.status(game_id, seat)  # another process has it, or just did
        bucket.allow()
        job = self.jobs[(game_id, seat)] = Status("queued")
        task = asyncio.get_running_loop().create_task(self._analyse(game_id, seat, text, budget))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return job

    async def _analyse(self, game_id: int, seat: int, text: str, budget: int) -> None:
        job = self.jobs[(game_id, seat)]
        try:
            async with self._slots:
                job.status = "running"
                _n, indices = await self._run(points_in_worker, text, seat)
                job.total = len(indices)
                await self.store.progress(game_id, seat, self.owner, 0, job.total)
                futures = [
                    asyncio.ensure_future(self._run(judge_in_worker, text, seat, i, budget))
                    for i in indices
                ]
                judged: list[tuple[dict[str, Any], float]] = []
                for fut in futures:
                    judged.append(await fut)
                    job.done += 1
                    await self.store.progress(game_id, seat, self.owner, job.done, job.total)
                skipped = await self._run(not_judged_in_worker, text, seat)
            result = _seat_json(judged, skipped)
            await self.store.finish(game_id, seat, self.owner, result)
            job.status, job.result = (
                "done",
                {
                    "seats": {str(seat): result},
                    "budget": budget,
                    "seed": SEED,
                },
            )
            log.event("analysis_done", game_id=game_id, seat=seat, decisions=job.total)
        except asyncio.CancelledError:
            job.status = "failed"
            raise
        except Exception as exc:
            job.status, job.error = "failed", "the analysis failed"
            log.error("analysis_failed", game_id=game_id, seat=seat, error=repr(exc))
            try:
                await self.store.fail(game_id, seat, self.owner, repr(exc))
            except Exception as store_exc:
                log.error("analysis_fail_not_stored", error=repr(store_exc))
        finally:
            # Keep the finished status a moment for pollers here; the row has it anyway.
            self.jobs.pop((game_id, seat), None)
