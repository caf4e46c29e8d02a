"""Browser tests of the web client: a real ``kozyr serve`` and Debian's Chromium.

One server subprocess (free loopback port, temporary SQLite database, short
bot pacing) and one headless Chromium serve the whole module; each test makes
its own browser contexts (separate storage = separate players). Playwright
drives /usr/bin/chromium directly: nothing is downloaded at run time
(``./setup`` installs the browser). Screenshots of every screen go to
test-artifacts/screenshots/, named in the terminal summary.
"""

from __future__ import annotations

import fcntl
import shutil
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ..server.harness import ServerProcess
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


#: Bots paced so that a person (and a screenshot) can follow them; real move times.
WEB_OPTIONS = (
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
    # Every viewport of the layout audit makes a transfer code from the one address.
    "--transfer-burst",
    "100",
    # Post-game analysis (tests/web/test_analysis_panel.py): a small budget so it
    # takes seconds; one new analysis per player (a second is rate_limited).
    "--analysis-budget",
    "60",
    "--analysis-burst",
    "1",
    "--analyses-per-hour",
    "0.01",
)


@pytest.fixture(scope="package")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("kozyr-web") / "kozyr.db"
    seed_leaderboard(db)
    proc = ServerProcess(db, options=WEB_OPTIONS).start()
    yield proc
    proc.stop()
    assert not proc.events("internal_error"), proc.events("internal_error")


#: Rated players already on the leaderboard when the web tests' server starts
#: (names as wide as a name may be, in the four scripts), so the board's pages
#: are audited and tested with rows, not only empty.
BOARD_NAMES = ("Konstantinos", "Александрина", "王小明王小明王小明", "やまだたろうさん", "Ω" * 12)


def seed_leaderboard(db: Path) -> None:
    """Write the schema and :data:`BOARD_NAMES` with ratings past provisional."""
    from sqlalchemy import insert

    from kozyr.server.storage.migrate import upgrade
    from kozyr.server.storage.schema import players, ratings
    from kozyr.server.storage.store import make_engine

    engine = make_engine(f"sqlite:///{db}")
    upgrade(engine)
    with engine.begin() as conn:
        for i, name in enumerate(BOARD_NAMES):
            key = f"board-player-{i}"
            conn.execute(
                insert(players).values(
                    key=key, name=name, created_at=1.7e9, public_id=f"kzbrdxyzw{'abcdefgh'[i]}"
                )
            )
            for variant in ("podkidnoy", "perevodnoy"):
                conn.execute(
                    insert(ratings).values(
                        player=key, variant=variant, mu=1900.0 - 37.0 * i, sigma=120.0,
                        games=12 + 40 * i, updated_at=1.7e9,
                    )
                )  # fmt: skip
    engine.dispose()


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    """One Chromium for the browser tests, closed when they are done: Playwright's
    sync API keeps an event loop running in this thread while it is open, which
    would break tests that run after these and call ``asyncio.run()``."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    if not CHROMIUM.exists():  # pragma: no cover - ./setup installs it
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium (run ./setup)")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def clean_shots(request: pytest.FixtureRequest) -> None:
    """Start each run with an empty screenshot folder: once per run, also when
    ``./test`` runs the suite on several workers (pytest-xdist), whose first
    browser test empties it under a lock and writes the run's id beside it."""
    workerinput = getattr(request.config, "workerinput", None)
    run = workerinput["testrunuid"] if workerinput else uuid.uuid4().hex
    SHOTS.parent.mkdir(parents=True, exist_ok=True)
    with open(SHOTS.parent / ".screenshots.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        marker = SHOTS / ".run"
        if not (marker.exists() and marker.read_text() == run):
            if SHOTS.exists():
                shutil.rmtree(SHOTS)
            SHOTS.mkdir(parents=True)
            marker.write_text(run)


@pytest.fixture
def open_page(
    browser: Any, server: ServerProcess, clean_shots: None
) -> Iterator[Callable[..., Any]]:
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
        page.goto(f"{server.url}/{path}")
        return page

    yield make
    for ctx in contexts:
        ctx.close()
    assert not errors, errors


def _console(message: Any, errors: list[str]) -> None:
    if message.type == "error" and not message.text.startswith(IGNORED_CONSOLE):
        errors.append(message.text)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    count = len(list(SHOTS.glob("*.png"))) if SHOTS.exists() else 0
    if count:
        terminalreporter.write_line(f"web client screenshots ({count}): {SHOTS}")
    audit = SHOTS / "audit"  # the layout audit's (test_layout_audit.py)
    if audit.exists() and any(audit.iterdir()):
        count = len(list(audit.iterdir()))
        terminalreporter.write_line(f"layout audit screenshots ({count}): {audit}")
