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

from . import logging as log


class Timer:
    """Run ``callback`` after ``delay`` seconds unless cancelled first.

    ``deadline_ms`` is the wall-clock (Unix milliseconds) moment it fires, which
    is what clients show as a countdown.
    """

    __slots__ = ("deadline_ms", "due", "handle")

    def __init__(self, delay: float, callback: Callable[[], None]) -> None:
        loop = asyncio.get_running_loop()
        self.due = loop.time() + delay
        self.deadline_ms = int((time.time() + delay) * 1000)
        self.handle = loop.call_later(delay, callback)

    def cancel(self) -> None:
        self.handle.cancel()

    def time_left_ms(self) -> int:
        left = self.due - asyncio.get_running_loop().time()
        return max(0, int(left * 1000))


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
