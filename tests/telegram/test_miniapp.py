"""Two Telegram users open the Mini App (the browser client with Telegram's launch
parameters in the URL, signed with the test bot's token) in a real browser, sit
at a table the bot opened, and play it to the end."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest

from ..web.conftest import CHROMIUM, CHROMIUM_ARGS
from ..web.helpers import PHONE, can_act, make_move, shot, wait_screen
from .conftest import TelegramServer, init_data
from .fake_api import FakeBotAPI, user

DARK = {
    "bg_color": "#17212b",
    "section_bg_color": "#232e3c",
    "secondary_bg_color": "#232e3c",
    "text_color": "#f5f5f5",
    "hint_color": "#708499",
    "button_color": "#5288c1",
    "button_text_color": "#ffffff",
}
LIGHT = {
    "bg_color": "#ffffff",
    "section_bg_color": "#ffffff",
    "secondary_bg_color": "#efeff3",
    "text_color": "#000000",
    "hint_color": "#999999",
    "button_color": "#2481cc",
    "button_text_color": "#ffffff",
}

#: What Telegram's app provides before the page loads: the postEvent bridge
#: (recorded here so the test sees what the page asked of Telegram).
BRIDGE = """
window.__tgEvents = [];
window.TelegramWebviewProxy = {
  postEvent(type, data) { window.__tgEvents.push([type, JSON.parse(data || "{}")]); },
};
"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    if not CHROMIUM.exists():  # pragma: no cover - ./setup installs it
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium (run ./setup)")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


def mini_app_url(base: str, who: dict[str, Any], theme: dict[str, str], start: str = "") -> str:
    """The URL Telegram opens: launch parameters in the hash."""
    hash_params = {
        "tgWebAppData": init_data(who, start_param=start) if start else init_data(who),
        "tgWebAppVersion": "8.0",
        "tgWebAppPlatform": "tdesktop",
        "tgWebAppThemeParams": json.dumps(theme),
    }
    if start:
        hash_params["tgWebAppStartParam"] = start
    return base + "#" + "&".join(f"{k}={quote(v, safe='')}" for k, v in hash_params.items())


def phone_in_telegram(browser: Any) -> tuple[Any, Any, list[str]]:
    """(context, page, the page's errors): a phone with Telegram's bridge."""
    ctx = browser.new_context(viewport=PHONE, locale="en-US")
    ctx.set_default_timeout(20_000)
    ctx.add_init_script(BRIDGE)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return ctx, page, errors


def events(page: Any, kind: str) -> list[Any]:
    return [d for t, d in page.evaluate("window.__tgEvents") if t == kind]


def test_two_telegram_players_play_to_the_end(
    tg_server: TelegramServer, fake_api: FakeBotAPI, browser: Any
) -> None:
    anna, boris = user(7001, "Анна", "ru"), user(7002, "Boris", "en")
    # Anna asks the bot for a table for two; its invite names the room.
    chat = {"message_id": 1, "date": 0, "chat": {"id": 7001, "type": "private"}}
    fake_api.callback(anna, "new:2", chat)
    ready = fake_api.wait_sent(7001, "Ваш стол готов")
    code = ready["reply_markup"]["inline_keyboard"][1][0]["switch_inline_query"]

    errors: list[str] = []
    pages = []
    # Anna opens the room from the bot's button; Boris from the deep link (start parameter).
    for url in (
        mini_app_url(f"{tg_server.url}/?room={code}", anna, DARK),
        mini_app_url(f"{tg_server.url}/", boris, LIGHT, start=code),
    ):
        ctx = browser.new_context(viewport=PHONE, locale="en-US")
        ctx.set_default_timeout(20_000)
        ctx.add_init_script(BRIDGE)
        page = ctx.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(url)
        pages.append(page)
    a, b = pages
    for page in pages:
        page.wait_for_function("() => ['room', 'table'].includes(document.body.dataset.screen)")
    tg_server.wait_event("game_started", room=code)
    for page in pages:
        wait_screen(page, "table", 30_000)
    # Logged in as their Telegram selves, in their own language and theme.
    assert a.evaluate("document.documentElement.lang") == "ru"
    assert b.evaluate("document.documentElement.lang") == "en"
    assert a.evaluate("localStorage.getItem('kozyr.name')") == '"Анна"'
    table_text = b.inner_text("#screen-table")
    assert "Анна" in table_text and "Boris" in table_text
    assert a.evaluate("document.documentElement.dataset.theme") == "midnight"
    assert b.evaluate("document.documentElement.dataset.theme") == "classic"
    panel = "getComputedStyle(document.documentElement).getPropertyValue('--panel').trim()"
    assert a.evaluate(panel) == DARK["section_bg_color"]
    assert b.evaluate(panel) == LIGHT["section_bg_color"]
    # Telegram's header takes the colour of the client's top bar (midnight / classic).
    assert events(a, "web_app_set_header_color")[-1] == {"color": "#090e1c"}
    assert events(b, "web_app_set_header_color")[-1] == {"color": "#0a3a1e"}
    for page in pages:
        assert events(page, "web_app_ready") and events(page, "web_app_expand")
        # During the game there is nowhere to go back to: Telegram's Back button is hidden.
        assert events(page, "web_app_setup_back_button")[-1] == {"is_visible": False}
    shot(a, "telegram-mini-app-table")

    # Both play legal moves by clicking, as people would, until the game ends.
    moves, t0 = 0, time.monotonic()
    while not all(p.is_visible("#result") for p in pages):
        assert time.monotonic() - t0 < 300, f"no end after {moves} moves"
        acted = False
        for page in pages:
            if not page.is_visible("#result") and can_act(page):
                moves += 1
                make_move(page, moves)
                acted = True
        if not acted:
            time.sleep(0.1)
    assert moves > 10
    tg_server.wait_event("game_over", room=code)
    shot(b, "telegram-mini-app-result")
    # After the game Telegram's Back button leaves the room.
    b.wait_for_function(
        "() => window.__tgEvents.filter(e => e[0] === 'web_app_setup_back_button').pop()[1]"
        ".is_visible === true"
    )
    b.evaluate("window.Telegram.WebView.receiveEvent('back_button_pressed', {})")
    wait_screen(b, "start")
    assert not errors, errors
    for page in pages:
        page.context.close()


def test_leave_a_friends_game_in_telegram_and_come_back_to_the_seat(
    tg_server: TelegramServer, fake_api: FakeBotAPI, browser: Any
) -> None:
    """In the Mini App: Boris leaves the friends' game (the computer plays his
    seat), opens the room again from the bot's link, is back in his own seat,
    and the two finish the game (issue 25)."""
    anna, boris = user(7011, "Анна", "ru"), user(7012, "Boris", "en")
    chat = {"message_id": 1, "date": 0, "chat": {"id": 7011, "type": "private"}}
    fake_api.callback(anna, "new:2", chat)
    ready = fake_api.wait_sent(7011, "Ваш стол готов")
    code = ready["reply_markup"]["inline_keyboard"][1][0]["switch_inline_query"]
    errors: list[str] = []
    pages = []
    for url in (
        mini_app_url(f"{tg_server.url}/?room={code}", anna, DARK),
        mini_app_url(f"{tg_server.url}/", boris, LIGHT, start=code),
    ):
        ctx = browser.new_context(viewport=PHONE, locale="en-US")
        ctx.set_default_timeout(20_000)
        ctx.add_init_script(BRIDGE)
        page = ctx.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(url)
        pages.append(page)
    b = pages[1]
    for page in pages:
        wait_screen(page, "table", 30_000)
    seat = b.evaluate("window.kozyr.state.you.seat")
    b.click("#table-leave")
    b.click("#table-leave")
    wait_screen(b, "start")
    # Back through the bot's deep link: straight into the same seat (Telegram names him).
    b.goto("about:blank")  # Telegram closes the Mini App; the link opens it afresh
    b.goto(mini_app_url(f"{tg_server.url}/", boris, LIGHT, start=code))
    wait_screen(b, "table", 30_000)
    assert b.evaluate("window.kozyr.state.you.seat") == seat
    moves, t0 = 0, time.monotonic()
    while not all(p.is_visible("#result") for p in pages):
        assert time.monotonic() - t0 < 300, f"no end after {moves} moves"
        acted = False
        for page in pages:
            if not page.is_visible("#result") and can_act(page):
                moves += 1
                make_move(page, moves)
                acted = True
        if not acted:
            time.sleep(0.1)
    tg_server.wait_event("game_over", room=code)
    assert not errors, errors
    for page in pages:
        page.context.close()


def test_a_shared_game_opens_in_the_viewer_inside_the_mini_app(
    tg_server: TelegramServer, browser: Any
) -> None:
    """A link with the start parameter ``game_ID_STEP`` opens the finished game's
    viewer at that step in the Mini App, in the Telegram user's language; the
    step follows in the URL; Analyse works there; Telegram's Back button goes home."""
    from concurrent.futures import ThreadPoolExecutor

    from ..server.harness import Client, http, play_out, run

    async def scenario() -> int:
        c = Client(tg_server.ws_url, "lena")
        await c.create_room(seats=2, rules={"deck": 24}, bot_level=1, move_time=None,
                            visibility="private")  # fmt: skip
        await c.send({"type": "start"})
        await c.expect("game")
        await play_out([c], random.Random(5))
        return int(c.over[-1]["game_id"])

    with ThreadPoolExecutor(1) as pool:  # Playwright's loop runs in this thread
        game_id = pool.submit(lambda: run(scenario())).result()
    status, steps = http("GET", f"{tg_server.url}/api/games/{game_id}/steps")
    assert status == 200
    total = len(steps["steps"]) - 1
    ctx, page, errors = phone_in_telegram(browser)
    olga = user(7021, "Ольга", "ru")
    page.goto(mini_app_url(f"{tg_server.url}/", olga, DARK, start=f"game_{game_id}_4"))
    wait_screen(page, "viewer", 30_000)
    page.wait_for_selector('#screen-viewer[data-step="4"]')
    assert f"/game/{game_id}?step=4" in page.url
    assert page.evaluate("document.documentElement.lang") == "ru"
    assert page.inner_text("#viewer-count") == f"Ход 4 из {total}"
    assert page.locator("#viewer-seats .vseat").count() == 2
    assert events(page, "web_app_setup_back_button")[-1] == {"is_visible": True}
    page.click("#viewer-next")
    page.wait_for_selector('#screen-viewer[data-state="ready"][data-step="5"]')
    assert f"/game/{game_id}?step=5" in page.url
    shot(page, "telegram-mini-app-viewer")
    # Analyse inside the Mini App (issue 27): Olga's token is her Telegram login's;
    # lena's seat (the one person at the table) is chosen; the panel speaks Russian.
    page.wait_for_selector('#viewer-analysis[data-state="idle"]')
    assert page.input_value("#analysis-seat") == "0"
    page.click("#analysis-start")
    page.wait_for_selector('#viewer-analysis[data-state="done"]', timeout=90_000)
    status, stored = http("GET", f"{tg_server.url}/api/games/{game_id}/analysis?seat=0")
    assert status == 200 and stored["status"] == "done"
    decisions = stored["result"]["seats"]["0"]["decisions"]
    assert page.locator("#analysis-graph circle.an-dot").count() == len(decisions)
    marked = [d for d in decisions if d["label"] in ("inaccuracy", "mistake", "blunder")]
    assert page.locator("#viewer-marks .vmark").count() == len(marked)
    assert "Разбор" in page.inner_text("#viewer-analysis")
    shot(page, "telegram-mini-app-analysis")
    page.evaluate("window.Telegram.WebView.receiveEvent('back_button_pressed', {})")
    wait_screen(page, "start")
    assert "/game/" not in page.url
    assert not errors, errors
    ctx.close()


def test_the_puzzle_of_the_day_in_the_mini_app(tg_server: TelegramServer, browser: Any) -> None:
    """The bot's /puzzle opens the Mini App with ``startapp=puzzles``: the
    puzzle of the day, in the user's language, answered with their Telegram
    login's token, so the solved count is their profile's; ``puzzles_ID``
    opens one puzzle."""
    from kozyr.bots import puzzles

    from ..server.harness import http
    from ..web.test_puzzles import click_action, solution

    ctx, page, errors = phone_in_telegram(browser)
    pavel = user(7031, "Павел", "ru")
    page.goto(mini_app_url(f"{tg_server.url}/", pavel, DARK, start="puzzles"))
    wait_screen(page, "puzzles", 30_000)
    page.wait_for_selector("#puzzle-board .puzzle-move")
    assert page.evaluate("document.documentElement.lang") == "ru"
    assert "/puzzles" in page.url
    status, daily = http("GET", f"{tg_server.url}/api/puzzles/daily")
    assert status == 200
    pid = page.evaluate("new URL(location.href).searchParams.get('id')") or daily["id"]
    p = puzzles.by_id(pid)
    assert p is not None and pid == daily["id"]
    for n, action in enumerate(solution(p)):
        click_action(page, action)
        done = n == len(solution(p)) - 1
        page.wait_for_selector(f'#puzzle-feedback[data-result="{"solved" if done else "right"}"]')
    token = page.evaluate("JSON.parse(localStorage.getItem('kozyr.token'))")
    status, mine = http("GET", f"{tg_server.url}/api/me/puzzles",
                        headers={"authorization": f"Bearer {token}"})  # fmt: skip
    assert status == 200 and mine["ids"] == [pid] and mine["solved"] == 1
    shot(page, "telegram-mini-app-puzzle")
    # A shared puzzle: puzzles_ID opens that one.
    other = next(q for q in puzzles.shipped() if q.id != pid)
    page.goto(mini_app_url(f"{tg_server.url}/", pavel, DARK, start=f"puzzles_{other.id}"))
    wait_screen(page, "puzzles", 30_000)
    page.wait_for_function(
        "(id) => new URL(location.href).searchParams.get('id') === id", arg=other.id
    )
    page.wait_for_selector("#puzzle-board .puzzle-move")
    assert not errors, errors
    ctx.close()


def test_a_hint_at_a_table_against_the_computer_in_the_mini_app(
    tg_server: TelegramServer, browser: Any
) -> None:
    """``startapp=computer`` opens the computer's tab; a game against level 1 on
    a phone; Hint (issue 27 §4) lights the best move and says its chance, in
    the Telegram user's language."""
    from ..web.helpers import start_vs_computer, wait_turn

    ctx, page, errors = phone_in_telegram(browser)
    page.goto(mini_app_url(f"{tg_server.url}/", user(7041, "Kenji", "ja"), DARK, "computer"))
    start_vs_computer(page, bots=1, deck="24", level="1")
    assert page.evaluate("document.documentElement.lang") == "ja"
    assert wait_turn(page) == "turn"
    page.click('#actions [data-action="hint"]')
    note = page.locator("#actions .hint-note")
    note.wait_for(state="visible")
    assert "%" in note.inner_text()
    lit = page.locator("#hand button.hinted, #actions .hinted").count()
    assert lit >= 1
    shot(page, "telegram-mini-app-hint")
    assert not errors, errors
    ctx.close()
