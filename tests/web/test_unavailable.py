"""A move answered ``unavailable`` (cluster mode: its room is changing server)
is sent again after ``retry_after``, as docs/protocol.md asks — and after a few
tries the player is told.  The real server plays; Playwright stands between the
page and it and answers chosen moves ``unavailable`` itself."""

from __future__ import annotations

import json
from typing import Any

from ..server.harness import ServerProcess
from .conftest import _console
from .helpers import DESKTOP, make_move, send_move, shot, start_vs_computer, wait_turn


def test_a_move_answered_unavailable_is_sent_again(browser: Any, server: ServerProcess) -> None:
    ctx = browser.new_context(viewport=DESKTOP, locale="en-US")
    ctx.set_default_timeout(15_000)
    errors: list[str] = []
    moves: list[dict[str, Any]] = []
    refuse = {"next": 1}  # how many moves from now on to answer unavailable

    def route(ws: Any) -> None:
        server_side = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            data = json.loads(message)
            if data.get("type") == "move":
                moves.append(data)
                if refuse["next"] > 0:
                    refuse["next"] -= 1
                    ws.send(json.dumps({
                        "type": "error", "code": "unavailable", "ref": "move",
                        "message": "the room's server cannot be reached just now",
                        "retry_after": 0.2,
                    }))  # fmt: skip
                    return
            server_side.send(message)

        ws.on_message(from_page)

    ctx.route_web_socket("**/ws", route)
    try:
        page = ctx.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda m: _console(m, errors))
        page.goto(server.url + "/")
        start_vs_computer(page)
        assert wait_turn(page) == "turn"
        # The first move is answered unavailable: the page sends the same move
        # again by itself, the server applies it, and nobody sees an error.
        make_move(page, 1)
        assert len(moves) == 2 and moves[0] == moves[1], moves
        assert page.is_hidden("#toast")
        # Unavailable every time: five more tries, then the player is told
        # (and may move again: the table asks the server for the position).
        assert wait_turn(page) == "turn"
        refuse["next"] = 100
        sent = len(moves)
        assert send_move(page, 2) != "none"
        page.wait_for_selector("#toast:not([hidden])", timeout=10_000)
        assert "cannot be reached just now" in page.inner_text("#toast")
        assert len(moves) - sent == 6 and all(m == moves[sent] for m in moves[sent:]), moves
        shot(page, "unavailable-after-retries")
        assert wait_turn(page) == "turn"
    finally:
        ctx.close()
    assert not errors, errors
