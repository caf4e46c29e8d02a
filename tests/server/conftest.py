"""Fixtures: one shared server subprocess for most tests (starting one costs
about a second), and fresh ones for tests that kill or reconfigure it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .harness import ServerProcess


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    # Test players move at machine speed: a looser flood limit than people need.
    db = tmp_path_factory.mktemp("kozyr-server") / "kozyr.db"
    proc = ServerProcess(db, "--rate", "200", "--burst", "200").start()
    yield proc
    proc.stop()
    assert not proc.events("internal_error"), proc.events("internal_error")
    assert not proc.events("task_failed"), proc.events("task_failed")
