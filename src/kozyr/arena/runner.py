"""Running a schedule, in this process or in parallel worker processes.

Games are handed out in chunks of whole duplicate-deal blocks.  Every game's
seeds come from the schedule, and results are sorted by (pairing, deal,
rotation) before anything is counted, so the output does not depend on the
number of workers or on the order in which chunks finish.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kozyr.engine.actions import Action
from kozyr.engine.deal import Deal
from kozyr.engine.rules import Rules
from kozyr.engine.state import GameState
from kozyr.workers import exit_with

from . import spec as specs_mod
from .match import play_game
from .schedule import GameSlot, Pairing, derive


@dataclass(frozen=True)
class GameResult(GameSlot):
    """A scheduled game and its outcome (small, so it travels between processes)."""

    #: The losing entrant (the durak, or the durak's team), None for a draw.
    loser: int | None
    durak_seat: int | None
    actions: int
    rounds: int
    pogony: bool
    #: Abandoned after GAME_CAP actions (counted as a draw): see Played.
    unfinished: bool = False
    #: Cheating tables (rule 13), per entrant: (cheats, caught, catches, false
    #: accusations); () elsewhere.
    cheating: tuple[tuple[int, int, int, int], ...] = ()


@dataclass(frozen=True)
class Job:
    """A chunk of games for one worker.  Rules travel as a dict (picklable)."""

    rules: dict[str, Any]
    #: For each pairing (by index): the spec and label of each entrant.
    lineups: tuple[tuple[tuple[str, str], ...], ...]
    slots: tuple[GameSlot, ...]
    save_dir: str | None
    arena_seed: int


def record_name(slot: GameSlot) -> str:
    """File name of a saved game."""
    return f"p{slot.pairing:03d}-d{slot.deal:05d}-r{slot.rotation}.json"


def play_slot(
    rules: Rules,
    lineup: Sequence[tuple[str, str]],
    slot: GameSlot,
    save_dir: str | None = None,
    arena_seed: int | None = None,
) -> GameResult:
    """Play one scheduled game; save its record under ``save_dir`` if given."""
    n = rules.players
    bots = [specs_mod.make(lineup[slot.seats[s]][0], derive(slot.game_seed, s)) for s in range(n)]
    labels = [lineup[slot.seats[s]][1] for s in range(n)]
    meta: dict[str, Any] | None = None
    if save_dir is not None:
        meta = {
            "arena": {
                "seed": arena_seed,
                "pairing": slot.pairing,
                "deal": slot.deal,
                "rotation": slot.rotation,
                "game_seed": slot.game_seed,
                "bots": labels,
                "specs": [lineup[slot.seats[s]][0] for s in range(n)],
            }
        }
    deal = Deal.from_seed(rules, slot.deal_seed)
    played = play_game(
        rules,
        deal,
        bots,
        labels,
        record=save_dir is not None,
        meta=meta,
    )
    result = played.result
    if save_dir is not None and played.record is not None:
        path = Path(save_dir) / record_name(slot)
        text = played.record.dumps(result.to_json() if result is not None else None)
        path.write_text(text + "\n", encoding="utf-8")
    return game_result(slot, played.state, deal)


def cheating_counts(
    rules: Rules, deal: Deal, log: Sequence[Action], entrant_of: Sequence[int]
) -> tuple[tuple[int, int, int, int], ...]:
    """Per entrant (``entrant_of[seat]``): cheats made, cheats caught, cheats
    caught by it, fair cards it accused — the game replayed from ``deal``."""
    counts = [[0, 0, 0, 0] for _ in range(max(entrant_of) + 1)]
    state = GameState.new(rules, deal)
    for action in log:
        event = state.cheat_event(action)
        if event is not None:
            verdict, seat, _card, other = event
            if verdict == "cheat":
                counts[entrant_of[seat]][0] += 1
            elif verdict == "caught":
                counts[entrant_of[other]][1] += 1
                counts[entrant_of[seat]][2] += 1
            else:
                counts[entrant_of[seat]][3] += 1
        state.do(action)
    return tuple((a, b, c, d) for a, b, c, d in counts)


def game_result(slot: GameSlot, state: GameState, deal: Deal) -> GameResult:
    """The counted outcome of ``slot``'s game, from its final state (a state
    that is not over is a game abandoned after GAME_CAP actions: a draw) and,
    at a cheating table, its history replayed from ``deal``."""
    result = state.result
    durak = result.durak if result is not None else None
    cheating: tuple[tuple[int, int, int, int], ...] = ()
    if state.rules.cheating and state.log is not None:
        cheating = cheating_counts(state.rules, deal, state.log, slot.seats)
    return GameResult(
        pairing=slot.pairing,
        deal=slot.deal,
        rotation=slot.rotation,
        deal_seed=slot.deal_seed,
        game_seed=slot.game_seed,
        seats=slot.seats,
        loser=None if durak is None else slot.seats[durak],
        durak_seat=durak,
        actions=state.history_len,
        rounds=state.rounds,
        pogony=result is not None and result.pogony,
        unfinished=result is None,
        cheating=cheating,
    )


def run_job(job: Job) -> list[GameResult]:
    """Play a chunk (the worker entry point)."""
    rules = Rules.from_dict(job.rules)
    return [
        play_slot(rules, job.lineups[slot.pairing], slot, job.save_dir, job.arena_seed)
        for slot in job.slots
    ]


def chunk_blocks(blocks: Sequence[Sequence[GameSlot]], workers: int) -> list[list[GameSlot]]:
    """Group whole blocks into chunks: about 16 per worker, at most 50 blocks each,
    so the progress bar moves and a slow chunk does not hold back the end."""
    if not blocks:
        return []
    size = max(1, min(50, math.ceil(len(blocks) / (workers * 16))))
    return [
        [slot for block in blocks[i : i + size] for slot in block]
        for i in range(0, len(blocks), size)
    ]


def _worker_init(parent: int) -> None:
    """Workers leave Ctrl-C to the main process, which stops them, and exit by
    themselves if the main process dies (SIGKILL, SIGTERM) mid-chunk."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with(parent)


def _terminate(pool: ProcessPoolExecutor) -> None:
    """Shut ``pool`` down, killing the workers rather than waiting for them."""
    stop = getattr(pool, "terminate_workers", None)  # Python 3.14+
    if callable(stop):
        stop()
        return
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        if proc.is_alive():
            proc.terminate()
    for proc in procs:
        proc.join(timeout=5)


def run(
    rules: Rules,
    pairings: Sequence[Pairing],
    blocks: Sequence[Sequence[GameSlot]],
    workers: int = 1,
    save_dir: str | Path | None = None,
    arena_seed: int | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> list[GameResult]:
    """Play every block; ``on_progress(games)`` is called as chunks finish.

    ``workers`` > 1 plays chunks in that many worker processes.  Results are
    returned sorted by (pairing, deal, rotation).
    """
    if workers < 1:
        raise specs_mod.ArenaError("--workers must be at least 1")
    if save_dir is not None:
        Path(save_dir).mkdir(parents=True, exist_ok=True)
    lineups = tuple(tuple((e.spec, e.label) for e in p.entrants) for p in pairings)
    jobs = [
        Job(
            rules.to_dict(),
            lineups,
            tuple(chunk),
            None if save_dir is None else str(save_dir),
            0 if arena_seed is None else arena_seed,
        )
        for chunk in chunk_blocks(blocks, workers)
    ]
    results: list[GameResult] = []
    if workers == 1 or len(jobs) <= 1:
        for job in jobs:
            out = run_job(job)
            results.extend(out)
            if on_progress:
                on_progress(len(out))
    else:
        # "spawn": workers start clean, never a fork of a process with threads
        # (the progress bar runs one).
        context = multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=context,
            initializer=_worker_init,
            initargs=(os.getpid(),),
        )
        try:
            pending: set[Future[list[GameResult]]] = {pool.submit(run_job, j) for j in jobs}
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    out = fut.result()
                    results.extend(out)
                    if on_progress:
                        on_progress(len(out))
        except BaseException:
            # A bot error or Ctrl-C: stop now, not after the chunks in progress.
            _terminate(pool)
            raise
        pool.shutdown(wait=True)
    results.sort(key=lambda g: (g.pairing, g.deal, g.rotation))
    return results
