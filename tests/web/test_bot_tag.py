"""Bot programs in the browser (issue 28, section 1): a bot account's name carries
a BOT tag wherever it shows, and a host invites one by name.  The bot is the
real examples/random_bot.py against a real server."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from ..server.harness import ROOT, ServerProcess, http
from .conftest import WEB_OPTIONS
from .helpers import PHONE, shot, wait_screen
from .test_table_life import online_room, play_until_over, wait_text

EXAMPLE = ROOT / "examples" / "random_bot.py"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("kozyr-bot-tag") / "kozyr.db"
    proc = ServerProcess(db, "--bot-burst", "20", options=WEB_OPTIONS).start()
    yield proc
    proc.stop()
    assert not proc.events("internal_error"), proc.events("internal_error")


def start_bot(server: ServerProcess, name: str, *args: str) -> subprocess.Popen[str]:
    status, body = http("POST", server.url + "/api/bots", {"name": name})
    assert status == 201, body
    return subprocess.Popen(
        [sys.executable, str(EXAMPLE), "--server", server.url, "--token", body["token"], *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def stop(proc: subprocess.Popen[str]) -> str:
    if proc.poll() is None:
        proc.kill()
    out, _err = proc.communicate(timeout=10)
    return out


def test_a_bots_public_room_shows_bot_tags_and_plays_on_a_phone(
    open_page: Any, server: ServerProcess
) -> None:
    bot = start_bot(server, "Robo", "--host", "2", "--games", "1")
    try:
        page = open_page(PHONE)
        wait_screen(page, "start")
        page.fill("#player-name", "Zoya")
        page.click("#tab-join")
        wait_text(page, "#public-rooms", "Robo")
        row = page.locator("#public-rooms li", has_text="Robo")
        assert row.locator(".tag-botacct").inner_text().strip() == "BOT"
        shot(page, "28-lobby-bot-room-phone")
        row.locator("button").click()
        wait_screen(page, "table")  # the bot starts once every seat has a person
        opp = page.locator("#opponents .opp").first
        assert "Robo" in opp.locator(".opp-name").inner_text()
        assert opp.locator(".tag-botacct").is_visible()
        assert "BOT" in (opp.get_attribute("aria-label") or "")
        shot(page, "28-table-bot-phone")
        play_until_over([page], limit_s=300)  # 36 cards (the example's room)
        row = page.locator("#result-rows tr", has_text="Robo")
        assert row.locator(".tag-botacct").is_visible()  # the result names the program too
        bot.wait(30)
        assert bot.returncode == 0
    finally:
        stop(bot)


def challenge_once_online(host: Any, name: str, seconds: float = 30) -> None:
    """Challenge ``name`` for seat 2 until the server takes the challenge: a bot
    program started a moment ago may not be connected yet (the server answers
    "not connected right now"), and, like a person, the test tries again."""
    deadline = time.monotonic() + seconds
    while True:
        host.fill("#challenge-name", name)
        host.click("#challenge-form button[type=submit]")
        try:
            host.wait_for_function(
                "() => { const s = window.kozyr.state.room.seats[1];"
                " return Boolean(s.challenged || s.name); }",
                timeout=2000,
            )
            return
        except PlaywrightTimeout:
            assert time.monotonic() < deadline, f"{name} never came online"
            wait_text(host, "body", "not connected right now")


def test_the_host_invites_a_bot_by_name(open_page: Any, server: ServerProcess) -> None:
    bot = start_bot(server, "Ivy", "--games", "1")
    try:
        host, _invite = online_room(open_page, time_="")
        assert host.is_visible("#challenge-form")
        host.fill("#challenge-name", "NoSuchBot")
        host.click("#challenge-form button[type=submit]")
        wait_text(host, "body", "No bot program has that name")
        challenge_once_online(host, "ivy")  # any case
        # The example accepts at once: seat 2 holds the bot, with its tag.
        seat = host.locator('#seat-list li[data-seat="1"]')
        seat.locator(".seat-who", has_text="Ivy").wait_for()
        assert seat.locator(".tag-botacct").is_visible()
        host.wait_for_function("() => !window.kozyr.state.room.seats[1].challenged")
        assert host.is_hidden("#challenge-form")  # no empty seat left
        shot(host, "28-room-bot-invited")
        host.click("#start-game")
        wait_screen(host, "table")
        play_until_over([host])
    finally:
        stop(bot)
