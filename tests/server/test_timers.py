"""The move clock's Alarm: one loop timer moved, not replaced, on every move."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import uvloop

from kozyr.server.tables.timers import Alarm


def _run(main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    # uvloop is what `kozyr serve` runs (its timers round to a millisecond).
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(main())


def test_an_alarm_rings_once_at_its_deadline() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        rang: list[float] = []
        start = loop.time()
        alarm = Alarm().arm(0.05, lambda: rang.append(loop.time() - start))
        assert 0 < alarm.time_left_ms() <= 50
        await asyncio.sleep(0.3)
        assert len(rang) == 1 and rang[0] >= 0.05 - Alarm.SLACK
        assert alarm.time_left_ms() == 0

    _run(main)


def test_moving_the_deadline_later_rings_only_the_last_callback_then() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        rang: list[tuple[str, float]] = []
        start = loop.time()
        alarm = Alarm()
        alarm.arm(0.1, lambda: rang.append(("first", loop.time() - start)))
        await asyncio.sleep(0.05)
        alarm.arm(0.2, lambda: rang.append(("second", loop.time() - start)))
        await asyncio.sleep(0.1)  # past the first deadline: nothing yet
        assert rang == []
        await asyncio.sleep(0.3)
        assert [name for name, _ in rang] == ["second"]
        assert rang[0][1] >= 0.25 - Alarm.SLACK

    _run(main)


def test_moving_the_deadline_earlier_rings_then_and_not_again() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        rang: list[float] = []
        start = loop.time()
        alarm = Alarm()
        alarm.arm(0.3, lambda: rang.append(-1.0))
        alarm.arm(0.05, lambda: rang.append(loop.time() - start))
        await asyncio.sleep(0.5)
        assert len(rang) == 1 and 0.05 - Alarm.SLACK <= rang[0] < 0.3

    _run(main)


def test_a_cancelled_alarm_stays_silent_and_can_be_armed_again() -> None:
    async def main() -> None:
        rang: list[str] = []
        alarm = Alarm()
        alarm.arm(0.05, lambda: rang.append("cancelled"))
        alarm.cancel()
        await asyncio.sleep(0.15)
        assert rang == []
        alarm.arm(0.05, lambda: rang.append("again"))
        await asyncio.sleep(0.15)
        alarm.arm(0.05, lambda: rang.append("after ringing"))
        await asyncio.sleep(0.15)
        assert rang == ["again", "after ringing"]

    _run(main)
