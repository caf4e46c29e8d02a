"""The online table as people use it (issue 25, sections 1-6), in Chromium:
coming back to your seat, sitting down and standing up between games, kicks,
the lobby's connected counts, quick match, the connection banner, notices,
names before joining, sharing and the QR code, quick phrases and reactions.

Each test drives real pages against a real server; several run on a phone
viewport (the client is phone first)."""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from ..server.harness import ServerProcess
from .conftest import WEB_OPTIONS
from .helpers import (
    DESKTOP,
    PHONE,
    can_act,
    make_move,
    set_rules,
    shot,
    start_vs_computer,
    wait_screen,
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server of this module's own: move clocks run 20 times faster (a 30 s
    clock is 1.5 s), so the clock playing for you is seen quickly."""
    db = tmp_path_factory.mktemp("kozyr-life") / "kozyr.db"
    proc = ServerProcess(db, "--move-time-scale", "0.05", options=WEB_OPTIONS).start()
    yield proc
    proc.stop()
    assert not proc.events("internal_error"), proc.events("internal_error")


def online_room(
    open_page: Any, seats: str = "2", viewport: Any = DESKTOP, time_: str | None = None
) -> tuple[Any, str]:
    """A host's page in a new online room (24 cards, public unless no clock); its invite."""
    host = open_page(viewport)
    wait_screen(host, "start")
    host.fill("#player-name", "Hostess")
    host.click("#tab-online")
    host.select_option("#on-seats", seats)
    if time_ == "":
        host.check('#panel-online input[value="private"]')
    if time_ is not None:
        host.select_option("#on-time", time_)
    set_rules(host, "on", deck="24")
    host.click("#panel-online button[type=submit]")
    wait_screen(host, "room")
    return host, host.input_value("#invite-link")


def join_by_link(
    open_page: Any,
    invite: str,
    name: str,
    viewport: Any = PHONE,
    locale: str = "en-US",
    screen: str = "room",
) -> Any:
    page = open_page(viewport, locale=locale, path=invite.split("/", 3)[3])
    wait_screen(page, "invite")
    page.fill("#invite-name", name)
    page.click("#invite-join")
    wait_screen(page, screen)
    return page


def seat_text(page: Any) -> str:
    return str(page.inner_text("#seat-list"))


def wait_text(page: Any, selector: str, text: str, timeout: float = 15_000) -> None:
    page.wait_for_function(
        "([sel, text]) => [...document.querySelectorAll(sel)]"
        ".some((e) => e.innerText.includes(text))",
        arg=[selector, text],
        timeout=timeout,
    )


def play_until_over(pages: list[Any], limit_s: float = 90.0) -> None:
    """Click moves on every page whose turn it is until the result shows.  With
    a bot at the table the turn often moves on under a click: short waits, so a
    click that missed costs two seconds, not fifteen."""
    for p in pages:
        p.set_default_timeout(2_000)
    deadline = time.monotonic() + limit_s
    n = 0
    while time.monotonic() < deadline:
        if all(p.is_visible("#result") for p in pages):
            break
        for p in pages:
            if can_act(p) and not p.is_visible("#result"):
                n += 1
                # The table may move on under the click (a bot was quicker): look again.
                with contextlib.suppress(PlaywrightTimeout, AssertionError):
                    make_move(p, n)
        time.sleep(0.05)
    else:
        for i, p in enumerate(pages):
            shot(p, f"25-stuck-{i}")
        raise AssertionError("the game did not end")
    for p in pages:
        p.set_default_timeout(15_000)


# ------------------------------------------------------------------ 1. seats
def test_leave_then_take_the_seat_back_from_the_bot_on_a_phone(open_page: Any) -> None:
    host, invite = online_room(open_page, time_="")
    guest = join_by_link(open_page, invite, "Petya")
    host.click("#start-game")
    wait_screen(guest, "table")
    # The leave confirmation says you can come back.
    guest.click("#table-leave")
    wait_text(guest, "#notices", "come back")
    shot(guest, "25-leave-confirm-phone")
    guest.click("#table-leave")
    wait_screen(guest, "start")
    wait_text(host, "#notices", "Petya left")
    # Opening the link again gives the seat back, at once (no bot in it).
    guest.goto(invite)
    wait_screen(guest, "invite")
    assert guest.input_value("#invite-name") == "Petya"  # remembered
    guest.click("#invite-join")
    wait_screen(guest, "table")
    guest.wait_for_function("() => window.kozyr.state.you && window.kozyr.state.you.seat === 1")
    wait_text(host, "#notices", "Petya is back")


def test_between_games_sit_stand_ready_and_kick(open_page: Any) -> None:
    host, invite = online_room(open_page, seats="2", time_="")
    guest = join_by_link(open_page, invite, "Gleb", viewport=DESKTOP)
    host.click("#start-game")
    wait_screen(host, "table")
    watcher = join_by_link(open_page, invite, "Vera", viewport=PHONE, screen="table")  # watches
    wait_text(host, "#notices", "Vera is watching")
    play_until_over([host, guest])
    watcher.wait_for_selector("#result:not([hidden])")
    # A spectator: no confetti, and "Back to room" to watch the next game.
    assert watcher.eval_on_selector("#result-confetti", "e => e.childElementCount") == 0
    watcher.click('#result-actions [data-action="back"]')
    wait_screen(watcher, "room")
    host.click('#result-actions [data-action="back"]')
    wait_screen(host, "room")
    # Back to room seated nobody who did not ask.
    watcher.wait_for_function("() => window.kozyr.state.room.state === 'lobby'")
    assert watcher.evaluate("window.kozyr.state.you.spectator")
    # Gleb stands up; Vera sits down where he sat.
    if not guest.is_visible("#screen-room"):
        guest.click('#result-actions [data-action="back"]')
    wait_screen(guest, "room")
    guest.click("#stand-up")
    watcher.wait_for_selector('#seat-list [data-action="sit"]')
    watcher.click('#seat-list li[data-seat="1"] [data-action="sit"]')
    watcher.wait_for_function("() => window.kozyr.state.you.seat === 1")
    watcher.click("#ready-toggle")
    host.wait_for_selector('#seat-list li[data-seat="1"] .tag-ready')
    shot(host, "25-room-ready-kick")
    # The host sends Gleb (now watching) out: two taps; he may not come back for a while.
    kick = host.locator("#spectator-list .kick")
    kick.click()
    kick.click()
    wait_screen(guest, "start")
    wait_text(guest, "#toast", "sent you out")


def test_a_tap_across_a_redraw_of_the_seats_still_counts(open_page: Any) -> None:
    """The seat list is redrawn on every room message (every second in a quick
    match's countdown): a press on "Add a bot" released after a redraw is still
    a tap, and a seat nothing changed about stays the same node."""
    host, _ = online_room(open_page, seats="3", time_="")
    seat = '#seat-list li[data-seat="{}"]'
    host.eval_on_selector(seat.format(2), "li => { li.dataset.probe = 'same node'; }")
    box = host.locator(seat.format(1) + " .seat-controls button").bounding_box()
    assert box is not None
    host.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    host.mouse.down()
    host.evaluate("window.kozyr.renderRoom()")
    host.mouse.up()
    host.wait_for_selector(seat.format(1) + ".bot", timeout=5_000)
    # The seat that changed was drawn anew; the one that did not was kept.
    assert "Remove" in host.inner_text(seat.format(1))
    assert host.get_attribute(seat.format(2), "data-probe") == "same node"


# ------------------------------------------------------------------ 2. lobby and quick match
def test_the_lobby_shows_who_is_here_and_quick_match_pairs_strangers(open_page: Any) -> None:
    _host, invite = online_room(open_page, seats="4")
    code = invite.split("room=")[1]
    other = open_page(PHONE)
    wait_screen(other, "start")
    other.click("#tab-join")
    wait_text(other, "#public-rooms", "Hostess")
    row = other.locator("#public-rooms li", has_text="Hostess")
    assert "1 here" in row.inner_text()
    assert re.fullmatch(r"[2-9A-HJKMNP-Z]{16}", code)  # no punctuation, no lookalikes
    # Quick match: two strangers tap "Find a game" and meet at one table.
    pages = []
    for name in ("Ann", "Bob"):
        page = open_page(PHONE)
        wait_screen(page, "start")
        page.fill("#player-name", name)
        page.click("#tab-join")
        page.select_option("#quick-seats", "2")
        page.click("#quick-go")
        pages.append(page)
    for page in pages:
        wait_screen(page, "table")
    codes = {p.evaluate("window.kozyr.state.room.code") for p in pages}
    assert len(codes) == 1


def test_quick_match_shows_its_countdown(open_page: Any) -> None:
    page = open_page(PHONE)
    wait_screen(page, "start")
    page.click("#tab-join")
    page.select_option("#quick-variant", "perevodnoy")
    page.select_option("#quick-seats", "5")
    page.click("#quick-go")
    wait_screen(page, "room")
    wait_text(page, "#room-wait", "Quick match: starting in")
    shot(page, "25-quick-match-phone")


# ------------------------------------------------------------------ 3. connection
def test_a_banner_within_two_seconds_of_losing_the_network(open_page: Any) -> None:
    page = open_page(PHONE)
    start_vs_computer(page, bots=1)
    page.context.set_offline(True)
    lost = time.monotonic()
    page.wait_for_selector("#conn-banner:not([hidden])", timeout=2000)
    assert time.monotonic() - lost < 2.0
    shot(page, "25-offline-banner-phone")
    page.context.set_offline(False)
    page.wait_for_selector("#conn-banner", state="hidden", timeout=15_000)
    page.wait_for_function("() => window.kozyr.state.conn.ready")


# ------------------------------------------------------------------ 4. notices
def test_the_clock_playing_for_you_is_said(open_page: Any) -> None:
    page = open_page(DESKTOP)
    wait_screen(page, "start")
    page.select_option("#cpu-time", "30")  # 1.5 s on this server
    start_vs_computer(page, bots=1)
    wait_text(page, "#notices", "Time ran out", timeout=30_000)


def test_verdicts_stack_above_the_cards_and_a_false_accusation_is_a_setback(open_page: Any) -> None:
    page = open_page(PHONE)
    start_vs_computer(page, bots=1)
    page.wait_for_function("() => document.querySelector('#battle')")
    page.evaluate(
        """() => {
            const t = window.kozyr.table;
            t.showCallout('9♠ caught!', 'caught', '9S', 'caught');
            t.showCallout('You called out a fair card', 'fair', 'TD', 'fairYou');
        }"""
    )
    items = page.locator("#callout .callout-item")
    assert items.count() == 2  # both shown, the second did not replace the first
    setback = page.locator('#callout .callout-item[data-kind="fairYou"]')
    assert "callout-setback" in (setback.get_attribute("class") or "")
    colour = setback.evaluate("e => getComputedStyle(e).backgroundColor")
    assert colour != "rgb(232, 255, 233)"  # not the green of a fair card
    battle = page.locator("#battle").bounding_box()
    hand = page.locator("#hand").bounding_box()
    for i in range(items.count()):
        box = items.nth(i).bounding_box()
        assert box is not None and battle is not None and hand is not None
        assert box["y"] + box["height"] <= battle["y"] + 1, (box, battle)  # above the cards in play
    shot(page, "25-verdicts-phone")


# ------------------------------------------------------------------ 5. names and sharing
def test_rename_in_the_room_share_copy_and_qr(open_page: Any) -> None:
    host, invite = online_room(open_page, seats="3")
    assert host.locator("#invite-qr").is_visible()  # desktop: the QR code for a phone
    # The picture loads on its own time (a loaded machine: after the room is drawn).
    host.wait_for_function(
        "() => { const img = document.querySelector('#invite-qr');"
        " return img.complete && img.naturalWidth > 100; }"
    )
    host.fill("#rename-name", "Hostina")
    host.click("#rename-form button[type=submit]")
    wait_text(host, "#seat-list", "Hostina")
    phone = open_page(PHONE)
    phone.add_init_script("navigator.share = async (data) => { window.__shared = data; };")
    phone.goto(invite)
    wait_screen(phone, "invite")
    assert "Hostina" in phone.inner_text("#invite-title")
    phone.click("#invite-join")
    wait_screen(phone, "room")
    assert not phone.locator("#invite-qr").is_visible()  # a phone: no QR code
    phone.click("#share-invite")
    phone.wait_for_function("() => window.__shared")
    assert phone.evaluate("window.__shared.url") == invite


# ------------------------------------------------------------------ 6. phrases and reactions
def test_quick_phrases_in_each_readers_language_and_mute(open_page: Any) -> None:
    host, invite = online_room(open_page, time_="")
    guest = join_by_link(open_page, invite, "Дима", locale="ru-RU")
    host.click("#start-game")
    wait_screen(host, "table")
    wait_screen(guest, "table")
    host.click("#chat-open")
    host.click('#chat-panel [data-phrase="good_luck"]')
    guest.wait_for_selector(".bubble")
    assert "Удачи" in guest.inner_text(".bubble")
    shot(guest, "25-phrase-bubble-phone")
    # The guest mutes the host: no more bubbles from them here.
    guest.click("#chat-open")
    guest.check("#chat-panel .chat-mute input")
    guest.click("#chat-open")
    guest.wait_for_selector(".bubble", state="detached", timeout=10_000)
    host.click("#chat-open")
    host.click('#chat-panel [data-reaction="clap"]')
    host.wait_for_selector(".bubble-reaction")
    time.sleep(0.5)
    assert guest.locator(".bubble").count() == 0


def test_pass_and_play_has_no_phrases(open_page: Any) -> None:
    page = open_page(DESKTOP)
    wait_screen(page, "start")
    page.click("#tab-pnp")
    page.select_option("#pnp-count", "2")
    page.fill("#pnp-name-0", "Anna")
    page.fill("#pnp-name-1", "Boris")
    page.click("#panel-pnp button[type=submit]")
    wait_screen(page, "table")
    assert not page.is_visible("#chat-open")
