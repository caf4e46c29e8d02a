"""Browser tests of the web client: a real ``kozyr serve`` and Debian's Chromium.

One server subprocess (free loopback port, temporary SQLite database, short
bot pacing) and one headless Chromium serve the whole module; each test makes
its own browser contexts (separate storage = separate players). Playwright
drives /usr/bin/chromium directly: nothing is downloaded at run time
(``./setup`` installs the browser). Screenshots of every screen go to
test-artifacts/screenshots/, named in the terminal summary.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from .helpers import DESKTOP, SHOTS

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

#: Console noise that is not a client bug (a 404 answer is logged by the browser).
IGNORED_CONSOLE = ("Failed to load resource", "WebSocket is closed before")


class Server:
    """``kozyr serve`` on a free port of 127.0.0.1 with a throw-away database."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.port = 0
        self.lines: list[dict[str, Any]] = []
        self._ready = threading.Event()
        self.proc: subprocess.Popen[str] | None = None
        self._reader = threading.Thread()

    def start(self) -> Server:
        cmd = [
            sys.executable,
            "-m",
            "kozyr.cli.main",
            "serve",
            "--port",
            "0",
            "--db",
            f"sqlite:///{self.workdir / 'kozyr.db'}",
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
        ]
        self.proc = subprocess.Popen(
            cmd,
            cwd=self.workdir,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(os.environ, PYTHONWARNINGS="ignore"),
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        if not self._ready.wait(60):
            self.stop()
            raise RuntimeError(
                "kozyr serve did not start:\n" + "\n".join(map(str, self.lines[-20:]))
            )
        return self

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        for line in self.proc.stderr:
            try:
                data = json.loads(line)
            except json.JSONDecodeError:
                data = {"event": "raw", "message": line.rstrip()}
            self.lines.append(data)
            if data.get("event") == "listening":
                self.port = int(data["port"])
                self._ready.set()
        self.proc.stderr.close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def events(self, name: str) -> list[dict[str, Any]]:
        return [line for line in self.lines if line.get("event") == name]

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        self._reader.join(10)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    proc = Server(tmp_path_factory.mktemp("kozyr-web")).start()
    yield proc
    proc.stop()
    assert not proc.events("internal_error"), proc.events("internal_error")


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    if not CHROMIUM.exists():  # pragma: no cover - ./setup installs it
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium (run ./setup)")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def clean_shots() -> None:
    """Start each run with an empty screenshot folder."""
    if SHOTS.exists():
        shutil.rmtree(SHOTS)
    SHOTS.mkdir(parents=True)


@pytest.fixture
def open_page(browser: Any, server: Server, clean_shots: None) -> Iterator[Callable[..., Any]]:
    """open_page(viewport=DESKTOP, locale="en-US", path="") -> a Page in a new context.

    Every JavaScript error on any page fails the test."""
    contexts: list[Any] = []
    errors: list[str] = []

    def make(viewport: dict[str, int] | None = None, locale: str = "en-US", path: str = "") -> Any:
        ctx = browser.new_context(viewport=viewport or DESKTOP, locale=locale)
        ctx.set_default_timeout(15_000)
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda m: _console(m, errors))
        page.goto(server.url + path)
        return page

    yield make
    for ctx in contexts:
        ctx.close()
    assert not errors, errors


def _console(message: Any, errors: list[str]) -> None:
    if message.type == "error" and not message.text.startswith(IGNORED_CONSOLE):
        errors.append(message.text)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if SHOTS.exists() and any(SHOTS.iterdir()):
        count = len(list(SHOTS.glob("*.png")))
        terminalreporter.write_line(f"web client screenshots ({count}): {SHOTS}")
