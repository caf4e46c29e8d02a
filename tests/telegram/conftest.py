"""Telegram tests: a fake Bot API on loopback (fake_api.py) and a real
``kozyr telegram`` (game server + bot in one process) that talks to it."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kozyr.telegram.initdata import sign_init_data

from ..server.harness import ServerProcess, http
from .fake_api import FakeBotAPI

TOKEN = "7000001:TEST-token-for-the-fake-api"

#: Quick bots and takeovers; a real 30 s move clock (nudges wait for it).
OPTIONS = (
    "--bot-delay",
    "0.05",
    "--grace",
    "3",
    "--bot-workers",
    "1",
    "--rate",
    "100",
    "--burst",
    "200",
    "--poll",
    "0.2",
)


class TelegramServer(ServerProcess):
    """``kozyr telegram`` on a free port, its Bot API at ``api_root``."""

    def __init__(self, db: Path, api_root: str, *extra: str, env: dict[str, str] | None = None):
        super().__init__(db, *extra, options=OPTIONS)
        self.env = {
            "KOZYR_TELEGRAM_TOKEN": TOKEN,
            "KOZYR_TELEGRAM_API": api_root,
            "PYTHONWARNINGS": "ignore",
            **(env or {}),
        }

    def start(self, timeout: float = 60.0) -> TelegramServer:
        self._ready.clear()
        cmd = [sys.executable, "-m", "kozyr.cli.main", "telegram", "--port", "0"]
        cmd += ["--db", self.db_url, *self.extra]
        env = {k: v for k, v in os.environ.items() if not k.startswith("KOZYR_")}
        self.proc = subprocess.Popen(
            cmd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            cwd=self.db.parent,
            env={**env, **self.env},
        )
        self._reader = threading.Thread(target=self._read, args=(self.proc,), daemon=True)
        self._reader.start()
        if not self._ready.wait(timeout):
            self.stop()
            raise RuntimeError("server did not start:\n" + self.log_text())
        return self

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
