"""Move clocks, grace periods and background tasks that must not get lost.

Why a module for this: every table has at most one pending "turn" (a human's
clock or a bot thinking) and, per absent player, one grace timer.  Keeping the
handles in small objects makes "cancel whatever was pending" one call, which
is what keeps a late timer from playing a move in a position that has moved on.
"""

from __future__ import annotations

import asyncio
import time
import traceback
from collections.abc import Callable, Coroutine
from typing import Any

from ..telemetry import log


class _Deadline:
    """When a clock runs out: ``due`` on the event loop's clock, and
    ``deadline_ms``, the same moment in wall-clock Unix milliseconds (what
    clients show as a countdown)."""

    __slots__ = ("deadline_ms", "due")
    due: float
    deadline_ms: int

    def _set(self, loop: asyncio.AbstractEventLoop, delay: float) -> float:
        self.due = loop.time() + delay
        self.deadline_ms = int((time.time() + delay) * 1000)
        return self.due

    def time_left_ms(self) -> int:
        left = self.due - asyncio.get_running_loop().time()
        return max(0, int(left * 1000))


class Timer(_Deadline):
    """Run ``callback`` after ``delay`` seconds unless cancelled first."""

    __slots__ = ("handle",)

    def __init__(self, delay: float, callback: Callable[[], None]) -> None:
        loop = asyncio.get_running_loop()
        self.handle = loop.call_at(self._set(loop, delay), callback)

    def cancel(self) -> None:
        self.handle.cancel()


class Alarm(_Deadline):
    """A timer that is re-armed all the time: a room's move clock, set again
    after every move.

    Why not a new :class:`Timer` each time: cancelling one event-loop timer and
    scheduling another on every move was about 3 % of the server's CPU per move
    (under uvloop each is a libuv timer).  An Alarm keeps its loop timer while
    the deadline only moves later (the usual case: each move gives the next
    player a fresh clock); when that timer goes off before the current deadline,
    it sleeps again until then.  :meth:`cancel` only forgets the callback.
    """

    __slots__ = ("_callback", "_handle", "_handle_due")

    #: A loop timer this early (seconds) is taken as on time (loops round to 1 ms).
    SLACK = 0.002

    def __init__(self) -> None:
        self.due = 0.0
        self.deadline_ms = 0
        self._callback: Callable[[], None] | None = None
        self._handle: asyncio.TimerHandle | None = None
        self._handle_due = 0.0

    def arm(self, delay: float, callback: Callable[[], None]) -> Alarm:
        """Run ``callback`` after ``delay`` seconds instead of whatever was armed."""
        loop = asyncio.get_running_loop()
        due = self._set(loop, delay)
        self._callback = callback
        if self._handle is None or self._handle_due > due:
            if self._handle is not None:
                self._handle.cancel()
            self._handle = loop.call_at(due, self._ring)
            self._handle_due = due
        return self

    def cancel(self) -> None:
        self._callback = None

    def _ring(self) -> None:
        self._handle = None
        callback = self._callback
        if callback is None:
            return  # cancelled since
        loop = asyncio.get_running_loop()
        if self.due - loop.time() > self.SLACK:  # the deadline moved on since
            self._handle = loop.call_at(self.due, self._ring)
            self._handle_due = self.due
            return
        self._callback = None
        callback()


class Tasks:
    """A set of fire-and-forget tasks that holds strong references to them and
    logs their exceptions (asyncio keeps only weak references to tasks, and an
    unobserved exception would otherwise vanish)."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            trace = "".join(traceback.format_exception(exc))
            log.error("task_failed", task=task.get_name(), error=repr(exc), traceback=trace)

    def cancel_all(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    def __len__(self) -> int:
        return len(self._tasks)
