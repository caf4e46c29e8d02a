"""Telegram tests: a fake Bot API on loopback (fake_api.py) and a real
``kozyr telegram`` (game server + bot in one process) that talks to it."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kozyr.telegram.initdata import sign_init_data

from ..server.harness import ServerProcess, http
from ..web.conftest import WEB_OPTIONS
from .fake_api import FakeBotAPI

TOKEN = "7000001:TEST-token-for-the-fake-api"

#: Quick bots and takeovers as in the browser tests; a real 30 s move clock
#: (nudges wait for it).
OPTIONS = (*WEB_OPTIONS, "--poll", "0.2")


class TelegramServer(ServerProcess):
    """``kozyr telegram`` on a free port, its Bot API at ``api_root``."""

    def __init__(
        self,
        db: Path,
        api_root: str,
        *extra: str,
        env: dict[str, str] | None = None,
        db_url: str | None = None,
    ):
        super().__init__(db, *extra, options=OPTIONS, db_url=db_url)
        self.env = {
            "KOZYR_TELEGRAM_TOKEN": TOKEN,
            "KOZYR_TELEGRAM_API": api_root,
            "PYTHONWARNINGS": "ignore",
            **(env or {}),
        }

    def command(self) -> list[str]:
        cmd = [sys.executable, "-m", "kozyr.cli.main", "telegram", "--port", "0"]
        return [*cmd, "--db", self.db_url, *self.extra]

    def environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("KOZYR_")}
        return {**env, **self.env}

    def wait_event(self, name: str, timeout: float = 30.0, **match: Any) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.events(name):
                if all(line.get(k) == v for k, v in match.items()):
                    return line
            time.sleep(0.05)
        raise AssertionError(f"no {name} {match} in the log:\n{self.log_text()}")


@pytest.fixture(scope="package")
def fake_api() -> Iterator[FakeBotAPI]:
    api = FakeBotAPI(TOKEN).up()
    yield api
    api.down()


@pytest.fixture(scope="package")
def tg_server(
    tmp_path_factory: pytest.TempPathFactory, fake_api: FakeBotAPI
) -> Iterator[TelegramServer]:
    pytest.importorskip("aiogram", reason="the bot needs the telegram extra: run ./setup")
    db = tmp_path_factory.mktemp("kozyr-tg") / "kozyr.db"
    proc = TelegramServer(db, fake_api.root).start()
    proc.wait_event("telegram_started")
    yield proc
    proc.stop()
    assert not proc.events("internal_error"), proc.events("internal_error")
    assert not proc.events("telegram_watch_failed"), proc.events("telegram_watch_failed")


def init_data(user: dict[str, Any], token: str = TOKEN, age: float = 0, **extra: Any) -> str:
    """Launch data as Telegram signs it for ``user`` (made ``age`` seconds ago)."""
    fields = {"auth_date": str(int(time.time() - age)), "query_id": "AAE-test", "user": user}
    return sign_init_data({**fields, **extra}, token)


def login(server: ServerProcess, data: str) -> tuple[int, Any]:
    return http("POST", f"{server.url}/api/telegram/login", {"init_data": data})
