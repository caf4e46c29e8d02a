"""The game viewer at /game/{id} in a real browser: a finished game of this
server, step by step (buttons, keys, slider, swipe, ?step=N), every hand face
up and matching the engine's replay; a running game refused; the result
screen's "Open this game"; 4 languages; phone and desktop."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from ..server.harness import Client, ServerProcess, http, play_out, run
from .helpers import DESKTOP, PHONE, play_to_the_end, shot, start_vs_computer, wait_screen

I18N = Path(__file__).resolve().parents[2] / "src" / "kozyr" / "web" / "static" / "i18n"
LOCALES = {"en": "en-US", "ru": "ru-RU", "zh": "zh-CN", "ja": "ja-JP"}


def in_thread(fn: Callable[[], Any]) -> Any:
    """Run ``fn`` in another thread: Playwright's sync API keeps an event loop
    running in this one, so a socket scenario (asyncio.run) cannot run here."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(fn).result()


def finished_game(
    server: ServerProcess,
    seed: int,
    name: str = "anna",
    seats: int = 2,
    deck: int = 24,
    token: str | None = None,
) -> dict[str, Any]:
    """A game played to the end over a socket (random moves against level-1
    bots in the other seats): the server's steps of it, and the player's token."""
    tokens: list[str] = []

    async def scenario() -> int:
        c = Client(server.ws_url, name)
        c.token = token
        await c.create_room(
            seats=seats, rules={"deck": deck}, bot_level=1, move_time=None, visibility="private"
        )
        await c.send({"type": "start"})
        await c.expect("game")
        await play_out([c], random.Random(seed))
        tokens.append(str(c.token))
        game_id = int(c.over[-1]["game_id"])
        # Out of the room: the player's next game (same token) gets a room of its own.
        await c.send({"type": "leave"})
        await c.expect("left")
        await c.close()
        return game_id

    game_id = in_thread(lambda: run(scenario()))
    status, steps = http("GET", f"{server.url}/api/games/{game_id}/steps")
    assert status == 200, steps
    return {**steps, "token": tokens[0]}


@pytest.fixture(scope="module")
def game(server: ServerProcess) -> dict[str, Any]:
    return finished_game(server, 11)


def text(lang: str, key: str, **params: Any) -> str:
    value: Any = json.loads((I18N / f"{lang}.json").read_text())
    for part in key.split("."):
        value = value[part]
    out = str(value)
    for k, v in params.items():
        out = out.replace("{" + k + "}", str(v))
    return out


def short(card: str) -> str:
    """A card as the English client writes it in text ("10♦")."""
    return ("10" if card[0] == "T" else card[0]) + {"S": "♠", "C": "♣", "D": "♦", "H": "♥"}[card[1]]


def wait_step(page: Any, n: int) -> None:
    page.wait_for_selector(f'#screen-viewer[data-step="{n}"]')


def shown_state(page: Any) -> dict[str, Any]:
    """What the viewer shows: each seat's cards, the pairs, the deck count."""
    shown: dict[str, Any] = page.evaluate(
        """() => ({
            hands: [...document.querySelectorAll('#viewer-seats .vseat')].map((s) =>
                [...s.querySelectorAll('.vcard')].map((c) => c.dataset.card)),
            table: [...document.querySelectorAll('#viewer-battle .vpair')].map((p) => ({
                attack: p.querySelector('.attack').dataset.card,
                defense: p.querySelector('.cover')?.dataset.card ?? null})),
            deck: Number(document.querySelector('#viewer-deck').dataset.count),
            discard: Number(document.querySelector('#viewer-discard').dataset.count),
        })"""
    )
    return shown


def assert_matches(page: Any, game: dict[str, Any], n: int) -> None:
    state = game["steps"][n]["state"]
    shown = shown_state(page)
    assert [sorted(h) for h in shown["hands"]] == [sorted(h) for h in state["hands"]], n
    assert shown["table"] == state["table"], n
    assert shown["deck"] == state["deck"] and shown["discard"] == state["discard"], n


def test_step_through_a_finished_game_on_a_desktop(open_page: Any, game: dict[str, Any]) -> None:
    last = len(game["steps"]) - 1
    page = open_page(DESKTOP, path=f"game/{game['game_id']}")
    wait_screen(page, "viewer")
    wait_step(page, 0)
    # The deal: six cards in every hand, face up, and the deck.
    assert_matches(page, game, 0)
    assert page.locator("#viewer-seats .vseat").count() == 2
    assert "anna" in page.inner_text("#viewer-title")
    assert page.is_disabled("#viewer-prev") and not page.is_disabled("#viewer-next")
    # Next, Previous, the keys, the slider: every step is the engine's state.
    page.click("#viewer-next")
    wait_step(page, 1)
    assert page.url.endswith("?step=1")
    first = game["steps"][1]["action"]
    assert first["type"] == "attack"
    who = "anna" if first["seat"] == 0 else text("en", "viewer.bot", n=1)
    cards = " ".join(short(c) for c in first["cards"])
    assert page.inner_text("#viewer-move") == text("en", "viewer.ev.attack", who=who, cards=cards)
    assert_matches(page, game, 1)
    page.keyboard.press("ArrowRight")
    wait_step(page, 2)
    assert_matches(page, game, 2)
    page.keyboard.press("ArrowLeft")
    wait_step(page, 1)
    page.keyboard.press("End")
    wait_step(page, last)
    assert page.is_disabled("#viewer-next")
    # The end: the durak is marked, every hand still face up.
    durak = game["result"].get("durak")
    if durak is not None:
        seat = page.locator(f'#viewer-seats .vseat[data-seat="{durak}"]')
        assert seat.locator(".tag-durak").count() == 1
    assert_matches(page, game, last)
    page.keyboard.press("Home")
    wait_step(page, 0)
    middle = last // 2
    page.locator("#viewer-slider").fill(str(middle))
    wait_step(page, middle)
    assert page.url.endswith(f"?step={middle}")
    assert_matches(page, game, middle)
    # Every step, one after the other, is what the engine replayed.
    for n in range(middle + 1, min(last, middle + 12) + 1):
        page.click("#viewer-next")
        wait_step(page, n)
        assert_matches(page, game, n)
    # Play steps on by itself (from the deal: far from the end, where it stops by
    # itself and a second press would start it again), and Pause stops it.
    page.keyboard.press("Home")
    wait_step(page, 0)
    page.click("#viewer-play")
    page.wait_for_function(
        "() => Number(document.querySelector('#screen-viewer').dataset.step) > 0"
    )
    page.click("#viewer-play")
    assert page.get_attribute("#viewer-play", "aria-pressed") == "false"
    shot(page, "viewer-desktop")


def test_a_link_opens_a_step_and_a_phone_swipes(open_page: Any, game: dict[str, Any]) -> None:
    page = open_page(PHONE, path=f"game/{game['game_id']}?step=5")
    wait_screen(page, "viewer")
    wait_step(page, 5)
    assert_matches(page, game, 5)
    # A swipe to the left across the table: the next step; to the right: back.
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})
    box = page.locator("#viewer-seats").bounding_box()
    y = box["y"] + 20

    def swipe(x0: float, x1: float) -> None:
        cdp.send(
            "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y}]}
        )
        for i in range(1, 6):
            x = x0 + (x1 - x0) * i / 5
            cdp.send(
                "Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]}
            )
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})

    swipe(320, 80)
    wait_step(page, 6)
    swipe(80, 320)
    wait_step(page, 5)
    swipe(80, 300)
    wait_step(page, 4)
    assert page.url.endswith("?step=4")
    # Nothing sideways on a phone.
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(page, "viewer-phone")
    # Out of range: the nearest step.
    page.goto(f"{page.url.split('?')[0]}?step=99999")
    wait_step(page, len(game["steps"]) - 1)


def test_a_running_game_is_refused(open_page: Any, server: ServerProcess) -> None:
    async def scenario() -> tuple[int, list[str]]:
        c = Client(server.ws_url, "vera")
        code = await c.create_room(seats=2, bot_level=1, move_time=None, visibility="private")
        await c.send({"type": "start"})
        frame = await c.expect("game")
        started: list[dict[str, Any]] = []
        for _ in range(100):  # the log line may come a moment after the frame
            started = [e for e in server.events("game_started") if e.get("room") == code]
            if started:
                break
            await asyncio.sleep(0.05)
        return int(started[-1]["game_id"]), list(frame["view"]["hand"])

    game_id, hand = in_thread(lambda: run(scenario()))
    page = open_page(PHONE, path=f"game/{game_id}")
    page.wait_for_selector("#viewer-error:not([hidden])")
    assert page.inner_text("#viewer-error") == text("en", "viewer.error.game_not_finished")
    assert page.locator(".vcard").count() == 0
    assert not any(f'"{c}"' in page.content() for c in hand)
    page.goto(page.url.rsplit("/", 1)[0] + "/987654")
    page.wait_for_selector("#viewer-error:not([hidden])")
    assert page.inner_text("#viewer-error") == text("en", "viewer.error.no_such_game")


@pytest.mark.parametrize("lang", list(LOCALES))
def test_the_viewer_speaks_four_languages(open_page: Any, game: dict[str, Any], lang: str) -> None:
    last = len(game["steps"]) - 1
    page = open_page(PHONE, locale=LOCALES[lang], path=f"game/{game['game_id']}?step=2")
    wait_step(page, 2)
    assert page.inner_text("#viewer-count") == text(lang, "viewer.stepOf", n=2, total=last)
    assert page.inner_text("#viewer-back") == text(lang, "viewer.back")
    assert page.get_attribute("#viewer-next", "aria-label") == text(lang, "viewer.next")
    assert text(lang, "viewer.bot", n=1) in page.inner_text("#viewer-title")
    page.keyboard.press("End")
    wait_step(page, last)
    res = game["result"]
    if res.get("durak") is not None:
        name = "anna" if res["durak"] == 0 else text(lang, "viewer.bot", n=1)
        assert text(lang, "viewer.resultDurak", name=name) in page.inner_text("#viewer-move")
    shot(page, f"viewer-{lang}")


def test_open_this_game_from_the_result_and_come_back(open_page: Any) -> None:
    """A real game against the computer, played by clicking: the result offers
    "Open this game"; the viewer shows the end of that very game; Back returns
    to the result."""
    page = open_page(PHONE)
    start_vs_computer(page, bots=1, deck="24", name="Oleg")
    play_to_the_end(page, limit_s=240)
    page.wait_for_selector('#result-actions [data-action="open-game"]')
    game_id = page.evaluate("window.kozyr.state.over.game_id")
    page.click('#result-actions [data-action="open-game"]')
    wait_screen(page, "viewer")
    try:
        page.wait_for_selector('#screen-viewer[data-state="ready"]')
    except Exception:
        state = page.evaluate(
            "() => ({...document.querySelector('#screen-viewer').dataset, url: location.href,"
            " error: document.querySelector('#viewer-error').textContent,"
            " id: window.kozyr.viewer.gameId, screen: document.body.dataset.screen})"
        )
        raise AssertionError(f"the viewer is not ready: {state}") from None
    status, steps = http("GET", page.url.split("/game/")[0] + f"/api/games/{game_id}/steps")
    assert status == 200
    last = len(steps["steps"]) - 1
    wait_step(page, last)
    assert page.url.endswith(f"/game/{game_id}?step={last}")
    assert_matches(page, steps, last)
    assert "Oleg" in page.inner_text("#viewer-title")
    page.click("#viewer-back")
    wait_screen(page, "table")
    page.wait_for_selector("#result:not([hidden])")
    assert "/game/" not in page.url
