"""The Hint button at a table against the computer (issue 27, section 4): on a
phone, it asks the server, lights the best move's cards (or its button) and says
its chance; the result screen counts the hints used."""

from __future__ import annotations

import json
import re
from typing import Any

from .helpers import PHONE, percent, play_to_the_end, shot, start_vs_computer, wait_turn


def test_the_hint_lights_the_best_move_with_its_chance(open_page: Any) -> None:
    page = open_page(viewport=PHONE)
    answers: list[dict[str, Any]] = []

    def on_socket(ws: Any) -> None:
        def received(payload: Any) -> None:
            if isinstance(payload, str) and '"type":"hint"' in payload.replace(" ", ""):
                answers.append(json.loads(payload))

        ws.on("framereceived", received)

    page.on("websocket", on_socket)
    start_vs_computer(page, bots=1, deck="24", level="1")
    assert wait_turn(page) == "turn"
    button = page.locator('#actions [data-action="hint"]')
    button.wait_for(state="visible")
    assert button.is_enabled()
    button.click()
    note = page.locator("#actions .hint-note")
    note.wait_for(state="visible")
    assert len(answers) == 1
    answer = answers[0]
    text = note.inner_text()
    assert re.search(rf"(?<!\d){percent(answer['chance'])}", text), (text, answer)
    assert page.locator('#actions [data-action="hint"]').is_disabled()  # shown: nothing to ask
    action = answer["action"]
    cards = action.get("cards") or ([action["card"]] if "card" in action else [])
    lit_hand = page.eval_on_selector_all(
        "#hand button.hinted", "els => els.map(e => e.dataset.card)"
    )
    if cards:
        assert sorted(lit_hand) == sorted(cards)
    else:  # take or pass: its button glows
        assert page.locator(f'#actions [data-action="{action["type"]}"].hinted').count() == 1
    shot(page, "hint-phone")

    # Finish the game: the result counts the one hint.
    play_to_the_end(page, limit_s=150)
    hints = page.locator("#result-hints")
    hints.wait_for(state="visible")
    assert "1" in hints.inner_text()
