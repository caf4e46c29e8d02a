"""Bots think in worker processes, off the event loop.

Why processes: a strong bot searches for a noticeable fraction of a second,
and Python threads would hold the GIL that every socket of the server needs.
``loop.run_in_executor`` on a :class:`~concurrent.futures.ProcessPoolExecutor`
keeps the loop free.  Workers start from a *forkserver* (a clean process that
imported this module once), not by forking the busy server with its threads.

What crosses the process boundary is the seat's :class:`View` only — never
the state — flattened to plain tuples by :func:`view_to_wire`: the compiled
(mypyc) engine's frozen dataclasses do not unpickle, and plain tuples are
smaller anyway.
"""

from __future__ import annotations

import asyncio
import dataclasses
import multiprocessing
import os
import random
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from kozyr.bots import Bot, make_bot
from kozyr.bots.ismcts import evaluate_actions
from kozyr.engine.actions import Action, Kind
from kozyr.engine.rules import Rules
from kozyr.engine.state import Result
from kozyr.engine.view import View
from kozyr.workers import exit_with

from ..telemetry import log

_VIEW_FIELDS = tuple(f.name for f in dataclasses.fields(View))


def bot_for(level: int, seed: int | None = None) -> Bot:
    """The computer player of ``level`` (1-10), from :func:`kozyr.bots.make_bot`."""
    return make_bot(level, seed)


# ------------------------------------------------------------ view on the wire
def view_to_wire(view: View) -> tuple[Any, ...]:
    """The view as nested tuples of ints, strings and bools (picklable anywhere)."""
    out: list[Any] = []
    for name in _VIEW_FIELDS:
        value = getattr(view, name)
        if name == "rules":
            value = tuple(sorted(value.to_dict().items()))
        elif name == "result":
            value = (
                None if value is None else (value.durak, value.team, value.pogony, value.repetition)
            )
        elif name in ("legal", "history"):
            value = tuple(tuple(a) for a in value)
        out.append(value)
    return tuple(out)


def view_from_wire(wire: tuple[Any, ...]) -> View:
    """Rebuild the :class:`View` that :func:`view_to_wire` flattened."""
    values: dict[str, Any] = dict(zip(_VIEW_FIELDS, wire, strict=True))
    values["rules"] = Rules.from_dict(dict(values["rules"]))
    if values["result"] is not None:
        durak, team, pogony, repetition = values["result"]
        values["result"] = Result(durak, tuple(team), pogony, repetition)
    for name in ("legal", "history"):
        values[name] = tuple(Action(s, Kind(k), c, t) for s, k, c, t in values[name])
    return View(**values)


# ------------------------------------------------------------ worker side
_bots: dict[int, Bot] = {}


def _worker_init(server: int) -> None:
    """Exit when the server is gone (e.g. killed with SIGKILL).

    A pool worker would otherwise wait on its queue forever, and the
    forkserver with it: each worker holds the forkserver's "alive" pipe, so
    the forkserver only notices the server's death once the workers exit.
    """
    exit_with(server)


def choose_in_worker(level: int, wire: tuple[Any, ...]) -> tuple[int, int, int, int]:
    """Run in a worker: rebuild the view, ask the bot of ``level``, return the action."""
    bot = _bots.get(level)
    if bot is None:
        bot = _bots[level] = bot_for(level, random.SystemRandom().getrandbits(63))
    action = bot.choose(view_from_wire(wire))
    seat, kind, cards, target = action
    return seat, int(kind), cards, target


def hint_in_worker(
    wire: tuple[Any, ...], budget: int
) -> tuple[tuple[int, int, int, int], float, bool]:
    """Run in a worker: the best action of the view and its chance (issue 27's
    hint), from the view alone, as the analysis would judge it."""
    values = evaluate_actions(view_from_wire(wire), budget, seed=0)
    exact = all(v.visits == 0 for v in values)
    if exact:  # solved exactly: the highest chance
        best = max(values, key=lambda v: v.chance)
    else:  # searched: the most visited action, as a level-10 bot would play
        best = max(values, key=lambda v: (v.visits, v.chance))
    seat, kind, cards, target = best.action
    return (seat, int(kind), cards, target), best.chance, exact


def _ready() -> int:
    return os.getpid()


# ------------------------------------------------------------ server side
class BotPool:
    """Where bots think: ``workers`` processes, or one thread if ``workers`` is 0."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._executor = self._make()
        self._rng = random.Random()

    def _make(self) -> Executor:
        if self.workers == 0:
            return ThreadPoolExecutor(1, thread_name_prefix="kozyr-bot")
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["kozyr.server.tables.bot_pool"])
        return ProcessPoolExecutor(
            self.workers, mp_context=ctx, initializer=_worker_init, initargs=(os.getpid(),)
        )

    async def warm_up(self) -> None:
        """Start the workers now rather than on the first bot move."""
        loop = asyncio.get_running_loop()
        await asyncio.gather(
            *(loop.run_in_executor(self._executor, _ready) for _ in range(max(1, self.workers)))
        )

    async def choose(self, level: int, view: View) -> Action:
        """The bot's move for ``view``; falls back to a random legal move if the
        worker fails, so a broken bot can never stall a table."""
        loop = asyncio.get_running_loop()
        try:
            seat, kind, cards, target = await loop.run_in_executor(
                self._executor, choose_in_worker, level, view_to_wire(view)
            )
            action = Action(seat, Kind(kind), cards, target)
            if action in view.legal:
                return action
            log.error("bot_illegal", level=level, seat=view.seat, action=action.to_json())
        except BrokenProcessPool:
            log.error("bot_pool_broken", level=level)
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = self._make()
        except Exception as exc:
            log.error("bot_failed", level=level, seat=view.seat, error=repr(exc))
        return self._rng.choice(view.legal)

    async def hint(self, view: View, budget: int) -> tuple[Action, float, bool]:
        """The best action of ``view``, its chance of not being the durak and
        whether that chance is exact,
        computed in a worker (errors propagate: a hint may fail, a table not)."""
        loop = asyncio.get_running_loop()
        try:
            (seat, kind, cards, target), chance, exact = await loop.run_in_executor(
                self._executor, hint_in_worker, view_to_wire(view), budget
            )
        except BrokenProcessPool:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = self._make()
            raise
        return Action(seat, Kind(kind), cards, target), chance, exact

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
