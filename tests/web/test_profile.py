"""The players' pages of issue 26 in a real browser, against the real server:
the candy balance in the top bar, the profile (name, avatar, transfer code and
claim, delete with confirmation), My games (opening the viewer), a player's
public page and the leaderboard; phone and desktop, 4 languages."""

from __future__ import annotations

import time
from typing import Any

import pytest

from ..server.harness import ServerProcess, http
from .conftest import BOARD_NAMES
from .helpers import DESKTOP, PHONE, shot, wait_screen
from .test_viewer import LOCALES, finished_game, text

AVATARS_PY = "kozyr.server.players.ids"
# The API of these pages is built on branch `players` (issue 26): until it is
# merged here, there is nothing real to test them against.
pytest.importorskip("kozyr.server.players", reason="the players API (branch players) is not merged")


def with_token(page: Any, server: ServerProcess, token: str, path: str) -> None:
    """Open ``path`` as the player of ``token``, with that player's name (both
    kept where the client keeps them: its hello says the name it stores)."""
    name = me(server, token)["name"]
    # Written where no client runs (an SVG of the same origin): the page opened
    # before would otherwise store its own welcome's token and name over these.
    page.goto(f"{server.url}/favicon.svg")
    page.evaluate(
        "([t, n]) => { localStorage.setItem('kozyr.token', JSON.stringify(t));"
        " localStorage.setItem('kozyr.name', JSON.stringify(n));"
        " localStorage.setItem('kozyr.nameAuto', 'false'); }",
        [token, name],
    )
    page.goto(f"{server.url}/{path}")


def me(server: ServerProcess, token: str) -> dict[str, Any]:
    status, body = http("GET", f"{server.url}/api/me", headers={"authorization": f"Bearer {token}"})
    assert status == 200 and isinstance(body, dict), body
    return body


@pytest.fixture(scope="module")
def player(server: ServerProcess) -> dict[str, Any]:
    """A player with two finished games (socket clients, random moves)."""
    game = finished_game(server, 21, "Mila")
    token = game["token"]
    second = finished_game(server, 22, "Mila", token=token)
    return {"token": token, "games": [game["game_id"], second["game_id"]]}


def test_the_avatars_are_the_servers(open_page: Any) -> None:
    avatars = pytest.importorskip(AVATARS_PY).AVATARS
    page = open_page(PHONE)
    assert page.evaluate("import('./js/profile.js').then((m) => m.AVATARS)") == list(avatars)
    for name in avatars:
        status, svg = http("GET", f"{page.url.rstrip('/')}/avatars/{name}.svg")
        assert status == 200 and "<svg" in svg


def test_profile_shows_candies_and_edits_name_and_avatar(
    open_page: Any, server: ServerProcess, player: dict[str, Any]
) -> None:
    page = open_page(PHONE)
    with_token(page, server, player["token"], "me")
    wait_screen(page, "profile")
    page.wait_for_selector("#profile-body:not([hidden])")
    mine = me(server, player["token"])
    assert page.inner_text("#profile-name") == mine["name"]
    # The balance in the top bar is the server's.
    page.wait_for_selector("#candy-link:not([hidden])")
    assert page.inner_text("#candy-balance") == str(mine["candies"]["balance"])
    assert page.get_attribute("#profile-public", "href").endswith(f"/player/{mine['public_id']}")
    # A new name and another avatar, saved on the server.
    page.fill("#profile-name-input", "Milena")
    page.click("#profile-name-form button[type=submit]")
    page.wait_for_function("() => document.querySelector('#profile-name').textContent === 'Milena'")
    offered = page.eval_on_selector_all(".avatar-option", "els => els.map(b => b.dataset.avatar)")
    other = next(a for a in offered if a != mine["avatar"])
    page.click(f'.avatar-option[data-avatar="{other}"]')
    page.wait_for_selector(f'.avatar-option[data-avatar="{other}"][aria-pressed="true"]')
    after = me(server, player["token"])
    assert after["name"] == "Milena" and after["avatar"] == other
    # The connection says the new name from now on: a reconnect keeps it.
    hellos = len(server.events("hello"))
    page.evaluate("window.kozyr.state.conn.ws.close()")
    deadline = time.monotonic() + 15
    while len(server.events("hello")) == hellos:
        assert time.monotonic() < deadline, "the client did not connect again"
        time.sleep(0.05)
    assert server.events("hello")[-1]["player"] == "Milena"
    assert me(server, player["token"])["name"] == "Milena"
    shot(page, "profile-phone")


def test_my_games_open_in_the_viewer(
    open_page: Any, server: ServerProcess, player: dict[str, Any]
) -> None:
    page = open_page(DESKTOP)
    with_token(page, server, player["token"], "me/games")
    wait_screen(page, "games")
    page.wait_for_selector("#games-list .game-item")
    shown = [
        int(x)
        for x in page.eval_on_selector_all(
            "#games-list .game-item", "els => els.map(e => e.dataset.game)"
        )
    ]
    assert shown[:2] == sorted(player["games"], reverse=True)  # newest first
    page.click(f'#games-list .game-item[data-game="{player["games"][0]}"] a')
    wait_screen(page, "viewer")
    page.wait_for_selector('#screen-viewer[data-state="ready"]')
    assert f"/game/{player['games'][0]}" in page.url
    page.click("#viewer-back")
    wait_screen(page, "games")
    shot(page, "my-games-desktop")


def test_transfer_code_moves_the_profile_and_delete_asks_first(
    open_page: Any, server: ServerProcess
) -> None:
    game = finished_game(server, 23, "Timur")
    old = open_page(PHONE)
    with_token(old, server, game["token"], "me")
    old.wait_for_selector("#profile-body:not([hidden])")
    old.click("#transfer-make")
    old.wait_for_selector("#transfer-code:not([hidden])")
    code = old.inner_text("#transfer-code")
    assert len(code) == 8
    # Another browser claims it and is the same player.
    new = open_page(PHONE, path="me")
    new.wait_for_selector("#claim-form")
    new.fill("#claim-code", code)
    new.click("#claim-form button[type=submit]")
    new.wait_for_selector("#profile-body:not([hidden])")
    assert new.evaluate("JSON.parse(localStorage.getItem('kozyr.token'))") == game["token"]
    # A used code is refused with its reason.
    third = open_page(PHONE, path="me")
    third.fill("#claim-code", code)
    third.click("#claim-form button[type=submit]")
    third.wait_for_function(
        "(t) => document.querySelector('#claim-status').textContent === t",
        arg=text("en", "profile.error.code_used"),
    )
    # Delete asks first; Keep it changes nothing.
    new.click("#delete-ask")
    assert new.is_visible("#delete-yes") and new.is_visible("#delete-no")
    new.click("#delete-no")
    assert me(server, game["token"])["name"] == "Timur"
    new.click("#delete-ask")
    new.click("#delete-yes")
    wait_screen(new, "start")
    status, _ = http(
        "GET", f"{server.url}/api/me", headers={"authorization": f"Bearer {game['token']}"}
    )
    assert status == 404


def test_public_page_and_leaderboard(
    open_page: Any, server: ServerProcess, player: dict[str, Any]
) -> None:
    mine = me(server, player["token"])
    page = open_page(PHONE, path=f"player/{mine['public_id']}")
    wait_screen(page, "player")
    page.wait_for_selector("#player-body:not([hidden])")
    assert page.inner_text("#public-name") == mine["name"]
    assert page.locator("#player-games .game-item").count() >= 2
    # Nothing private: no token anywhere on the page.
    assert player["token"] not in page.content()
    page.goto(f"{server.url}/player/nobody00")
    page.wait_for_selector("#screen-player .page-error:not([hidden])")
    page.goto(f"{server.url}/leaderboard")
    wait_screen(page, "leaderboard")
    page.wait_for_function(
        "() => document.querySelector('#board-list').childElementCount"
        " || !document.querySelector('#board-empty').hidden"
    )
    status, board = http("GET", f"{server.url}/api/leaderboard?variant=podkidnoy&limit=50")
    assert status == 200 and len(board["players"]) >= len(BOARD_NAMES)  # seeded rows
    assert page.locator("#board-list .board-row").count() == len(board["players"])
    # Profile pictures show on a phone too (only the seats' avatars give way there).
    assert page.locator("#board-list .board-row .avatar").first.is_visible()
    assert page.locator("#board-list .board-row .avatar").first.bounding_box()["width"] >= 32


@pytest.mark.parametrize("lang", list(LOCALES))
def test_profile_pages_speak_four_languages(
    open_page: Any, server: ServerProcess, player: dict[str, Any], lang: str
) -> None:
    page = open_page(PHONE, locale=LOCALES[lang])
    with_token(page, server, player["token"], "me")
    page.wait_for_selector("#profile-body:not([hidden])")
    assert page.inner_text("#profile-title") == text(lang, "profile.title")
    assert page.inner_text("#transfer-make") == text(lang, "profile.transferMake")
    page.goto(f"{server.url}/me/games")
    page.wait_for_selector("#games-list .game-item")
    assert page.inner_text("#games-title") == text(lang, "profile.myGames")
