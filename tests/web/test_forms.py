"""The start forms: names (issue 14, defect 7) and errors that belong to their screen."""

from __future__ import annotations

import time
from typing import Any

import pytest

from kozyr.server import protocol as p
from kozyr.server.tables.lobby import check_name

from .helpers import PHONE, play_to_the_end, shot, start_vs_computer, wait_screen

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"

#: Names the browser and the server must judge alike (docs/protocol.md, "Names").
NAMES = [
    "小明",
    "翔太",
    "A",
    " Ли ",
    "Zoe\u0308",
    "山田 花子さんです。ね",
    FAMILY * 12,
    "\U0001f1f7\U0001f1fa\U0001f1ef\U0001f1f5",
    "e\u0301" * 12,
    "",
    "   ",
    "\u3000\u00a0",
    "bell\x07",
    "a\u202eb",
    "\u200b",
    "\u0301",
    "x" * 13,
    "名" * 13,
    FAMILY * 13,
]


def _server_verdict(name: str) -> str | None:
    try:
        return check_name(name)
    except p.ProtocolError:
        return None


def test_short_cjk_names_play_and_bad_names_are_explained(open_page: Any) -> None:
    page = open_page(PHONE, locale="ja-JP")
    wait_screen(page, "start")
    # The browser's rule is the server's, name by name.
    verdicts = page.evaluate("(names) => names.map((n) => window.kozyr.checkName(n).name)", NAMES)
    assert verdicts == [_server_verdict(n) for n in NAMES]
    assert page.inner_text("#player-name-hint") == "1〜12文字"
    assert page.inner_text("#panel-computer button[type=submit]") == "プレイ"  # not "start.play"

    name = page.locator("#player-name")
    # Only spaces: refused when the form is sent, with the reason under the field.
    name.fill("   ")
    page.click("#panel-computer button[type=submit]")
    error = page.locator("#player-name-error")
    assert error.inner_text() == "名前を入力してください（空白だけは使えません）。"
    assert name.get_attribute("aria-invalid") == "true"
    assert "player-name-error" in (name.get_attribute("aria-describedby") or "")
    assert page.evaluate("document.activeElement.id") == "player-name"
    assert page.evaluate("document.body.dataset.screen") == "start"
    # Too long or a control character: said while typing; corrected: gone.
    name.fill("名" * 13)
    assert error.inner_text() == "名前は12文字までです。"
    name.fill("ab\x07c")
    assert error.inner_text() == "名前に制御文字や見えない文字は使えません。"
    shot(page, "forms-name-error-ja-phone")
    name.fill("翔太")
    assert page.locator("#player-name-error").count() == 0
    assert name.get_attribute("aria-invalid") is None

    # A two-character name plays a whole game.
    start_vs_computer(page, bots=1, name="  翔太 ")
    assert "翔太" in page.inner_text("#me-info")
    t0 = time.monotonic()
    play_to_the_end(page, limit_s=120)
    page.wait_for_selector("#result:not([hidden])")
    assert "翔太" in page.inner_text("#result-rows")
    assert page.evaluate("window.kozyr.state.conn.name") == "翔太"
    assert time.monotonic() - t0 < 120


@pytest.mark.parametrize("names", [("小明", "翔太")])
def test_pass_and_play_with_two_character_names(open_page: Any, names: tuple[str, str]) -> None:
    page = open_page(PHONE, locale="zh-CN")
    wait_screen(page, "start")
    page.click("#tab-pnp")
    page.select_option("#pnp-count", "2")
    page.fill("#pnp-name-0", " ")
    page.click("#panel-pnp button[type=submit]")
    assert page.inner_text("#pnp-name-0-error") == "请输入名字：不能为空或只有空格。"
    assert page.evaluate("document.activeElement.id") == "pnp-name-0"
    page.fill("#pnp-name-0", names[0])
    assert page.locator("#pnp-name-0-error").count() == 0
    page.fill("#pnp-name-1", names[1])
    page.click("#panel-pnp button[type=submit]")
    page.wait_for_selector("#privacy:not([hidden])")
    assert page.inner_text("#privacy-title") in names


def test_errors_belong_to_their_screen_and_field(open_page: Any) -> None:
    """Issue 14, defect 6: "Wrong passphrase." under the passphrase until it is
    retyped, never after the right one worked; a start-screen message never
    floats over the table."""
    host = open_page()
    wait_screen(host, "start")
    host.fill("#player-name", "Host")
    host.click("#tab-online")
    host.check('#panel-online input[value="private"]')
    host.fill("#on-pass", "sesame")
    host.click("#panel-online button[type=submit]")
    wait_screen(host, "room")
    code = host.input_value("#invite-link").split("room=")[1]

    guest = open_page(PHONE, locale="ru-RU")
    wait_screen(guest, "start")
    guest.fill("#player-name", "Гость")
    guest.click("#tab-join")
    guest.fill("#join-code", "no such code!")
    guest.click("#panel-join button[type=submit]")
    assert guest.inner_text("#join-code-error") == "Такой комнаты нет или она закрыта."
    guest.fill("#join-code", code)
    assert guest.locator("#join-code-error").count() == 0
    guest.fill("#join-pass", "wrong")
    guest.click("#panel-join button[type=submit]")
    error = guest.locator("#join-pass-error")
    error.wait_for()
    assert error.inner_text() == "Неверный пароль."
    assert guest.get_attribute("#join-pass", "aria-invalid") == "true"
    assert guest.is_hidden("#toast")
    shot(guest, "forms-wrong-passphrase-ru-phone")
    # Retyping it clears the message; the right passphrase opens the room, clean.
    guest.fill("#join-pass", "sesam")
    assert error.count() == 0
    guest.fill("#join-pass", "sesame")
    time.sleep(1.1)  # the server's back-off after a wrong passphrase (1 s)
    guest.click("#panel-join button[type=submit]")
    wait_screen(guest, "room")
    assert guest.is_hidden("#toast")
    assert guest.locator(".field-error").count() == 0
    assert guest.evaluate("document.querySelectorAll('[aria-invalid]').length") == 0
    # Back on the start screen nothing of the old errors is left.
    guest.click("#leave-room")
    wait_screen(guest, "start")
    assert guest.locator(".field-error").count() == 0 and guest.is_hidden("#toast")

    # A start-screen toast goes when a field is edited, and never reaches the table.
    guest.click("#tab-pnp")
    guest.select_option("#pnp-count", "2")
    guest.fill("#pnp-name-0", "Аня")
    guest.fill("#pnp-name-1", "Аня")
    guest.click("#panel-pnp button[type=submit]")
    assert guest.inner_text("#toast") == "Дайте игрокам разные имена."
    guest.fill("#pnp-name-1", "Аня ")
    assert guest.is_hidden("#toast")
    guest.click("#panel-pnp button[type=submit]")
    assert guest.is_visible("#toast")
    guest.click("#tab-computer")
    assert guest.is_hidden("#toast")
    guest.select_option("#cpu-bots", "1")
    guest.click("#tab-pnp")
    guest.click("#panel-pnp button[type=submit]")
    assert guest.is_visible("#toast")
    # The game starts while the message still shows (its 4.5 s are not over).
    guest.evaluate("document.querySelector('#panel-computer').requestSubmit()")
    wait_screen(guest, "table")
    assert guest.is_hidden("#toast")
    shot(guest, "forms-table-without-stale-errors-ru-phone")


def test_a_late_welcome_leaves_a_name_being_typed_alone(browser: Any, server: Any) -> None:
    """The server's ``welcome`` (with the name it knows) may come after the
    player started to edit the name field, e.g. cleared it to type another: the
    field keeps what the player typed (it used to be refilled whenever it held
    no valid name, and then an empty-name error never showed)."""
    ctx = browser.new_context(viewport=PHONE, locale="en-US")
    ctx.set_default_timeout(15_000)
    held: list[str | bytes] = []
    sockets: list[Any] = []

    def route(ws: Any) -> None:
        sockets.append(ws)

        def hold(message: str | bytes) -> None:  # until released below
            held.append(message)

        ws.connect_to_server().on_message(hold)

    ctx.route_web_socket("**/ws", route)
    try:
        page = ctx.new_page()
        page.goto(server.url + "/")
        wait_screen(page, "start")
        name = page.locator("#player-name")
        name.fill("")  # cleared, about to type another name
        deadline = time.monotonic() + 15
        while not any('"welcome"' in str(m) for m in held) and time.monotonic() < deadline:
            page.wait_for_timeout(50)
        assert sockets and held, "the page never got its welcome"
        for message in held:
            sockets[0].send(message)
        page.wait_for_function("() => localStorage.getItem('kozyr.token') !== null")
        assert name.input_value() == ""
        page.click("#panel-computer button[type=submit]")
        error = page.inner_text("#player-name-error")
        assert error == "Type a name: it cannot be empty or only spaces."
    finally:
        ctx.close()
