"""Playing the web client like a person: click cards and buttons, wait for the table."""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "screenshots"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

# Hand cards overlap in a fan: click the visible left strip, as a person would.
CARD_SPOT = {"x": 9, "y": 34}


def percent(chance: float) -> str:
    """A chance as the client writes it: JavaScript's Math.round rounds halves
    up (32.5 -> 33), where Python's round() rounds them to even (-> 32)."""
    return f"{math.floor(chance * 100 + 0.5)}\u00a0%"


def shot(page: Any, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def screen(page: Any) -> str:
    return str(page.evaluate("document.body.dataset.screen"))


def wait_screen(page: Any, name: str, timeout: float = 15_000) -> None:
    page.wait_for_selector(f"body[data-screen={name}]", timeout=timeout)


def set_rules(page: Any, prefix: str, **rules: str) -> None:
    """Open the rules section of a start form and pick options (values as strings)."""
    page.locator(f'.rules-slot[data-prefix="{prefix}"] summary').click()
    for name, value in rules.items():
        page.select_option(f"#{prefix}-rule-{name}", value)


def start_vs_computer(
    page: Any, bots: int = 1, deck: str = "24", name: str | None = None, level: str = "1"
) -> None:
    wait_screen(page, "start")
    if name:
        page.fill("#player-name", name)
    page.select_option("#cpu-bots", str(bots))
    page.select_option("#cpu-level", level)
    set_rules(page, "cpu", deck=deck)
    page.click("#panel-computer button[type=submit]")
    wait_screen(page, "table")


def can_act(page: Any) -> bool:
    return bool(page.evaluate("document.querySelector('#table').dataset.canAct === 'true'"))


def version(page: Any) -> int:
    return int(page.evaluate("Number(document.body.dataset.version || -1)"))


def wait_new_version(page: Any, before: int) -> None:
    """Wait for the frame after version ``before`` (or the result)."""
    page.wait_for_function(
        f"() => Number(document.body.dataset.version) !== {before}"
        " || !document.querySelector('#result').hidden",
        timeout=15_000,
    )


def wait_turn(page: Any, timeout: float = 20.0) -> str:
    """Wait until this page may move ("turn"), the result shows ("over") or the
    privacy screen asks for a tap ("privacy")."""
    page.wait_for_function(
        """() => {
            const r = document.querySelector('#result');
            const p = document.querySelector('#privacy');
            return (r && !r.hidden) || (p && !p.hidden)
                || document.querySelector('#table').dataset.canAct === 'true';
        }""",
        timeout=timeout * 1000,
    )
    if page.is_visible("#result"):
        return "over"
    if page.is_visible("#privacy"):
        return "privacy"
    return "turn"


#: A point of the card that is not covered by its neighbours (the fan overlaps
#: and tilts cards), relative to its bounding box: found with elementFromPoint.
VISIBLE_SPOT = """(el) => {
    const r = el.getBoundingClientRect();
    // The middle of the widest run of visible pixels on a few lines (away from
    // edges: a hovered card rises a little).
    let best = null;
    for (const fy of [0.35, 0.5, 0.25]) {
        const y = r.top + r.height * fy;
        let start = null;
        for (let x = r.left + 1; x < r.right + 2; x += 2) {
            const hit = x < r.right ? document.elementFromPoint(x, y) : null;
            const owner = hit && hit.closest('.hcard');
            const mine = owner && owner.dataset.card === el.dataset.card;
            if (mine && start === null) start = x;
            if (!mine && start !== null) {
                if (!best || x - start > best.w) best = {w: x - start, x: (start + x) / 2, y};
                start = null;
            }
        }
        if (best && best.w >= 12) break;
    }
    return best && {x: best.x - r.left, y: best.y - r.top};
}"""


def click_card(page: Any, card: Any) -> None:
    """Click a hand card where a person would: on its visible part."""
    for attempt in range(3):
        time.sleep(0.12)  # the fan slides for a moment after each frame
        spot = card.evaluate(VISIBLE_SPOT)
        if spot is None:
            continue
        try:
            card.click(position=spot, timeout=3000)
            return
        except Exception:
            if attempt == 2:
                shot(page, "debug-click-failed")
                raise
    shot(page, "debug-click-failed")
    box = card.evaluate(
        "el => { const r = el.getBoundingClientRect();"
        " const h = document.elementFromPoint(r.left + r.width / 2, r.top + r.height * 0.35);"
        " return JSON.stringify([el.dataset.card, r, h && h.outerHTML.slice(0, 120)]); }"
    )
    raise AssertionError(f"no visible part of the card to click: {box}")


#: The buttons of a selection in progress: numbered covers, then Lead/Transfer/... .
SELECTION_MOVES = "#actions.choosing .choice, #actions.choosing .go"


def make_move(page: Any, n: int) -> str:
    """One move by clicking: a choice if offered, else a lit card or a button.
    A card that does not play at once is selected: then its first move is pressed.

    Every third turn the player says Done/Pass when allowed, so rounds end."""
    before = version(page)
    kind = send_move(page, n)
    if kind != "none":
        wait_new_version(page, before)
    return kind


def send_move(page: Any, n: int) -> str:
    """The clicks of :func:`make_move`, without waiting for the move to be applied."""
    choices = page.locator(SELECTION_MOVES)
    cards = page.locator("#hand .hcard.playable")
    passing = page.locator('#actions [data-action="pass"]')
    take = page.locator('#actions [data-action="take"]')
    if choices.count():
        choices.first.click()
        kind = "choice"
    elif passing.count() and (n % 3 == 0 or not cards.count()):
        passing.click()
        kind = "pass"
    elif cards.count():
        click_card(page, cards.first)
        if page.locator(SELECTION_MOVES).count():
            page.locator(SELECTION_MOVES).first.click()
        kind = "card"
    elif take.count():
        take.click()
        kind = "take"
    else:
        # A frame may land between wait_turn() and here (pass & play: the device
        # answers a "Then pass" by itself): give the page a moment to show what
        # to click or that it is not this page's turn any more; a table that
        # still says "your turn" with nothing to click after that is stuck.
        try:
            page.wait_for_function(
                """() => document.querySelector('#table').dataset.canAct !== 'true'
                    || document.querySelector('#hand .hcard.playable, #actions button')""",
                timeout=3_000,
            )
        except Exception as stuck:
            actions = page.inner_html("#actions")
            raise AssertionError("my turn, but nothing to click: " + actions) from stuck
        return "none"
    return kind


def play_to_the_end(page: Any, limit_s: float = 90.0, shot_at: dict[int, str] | None = None) -> int:
    """Click through a whole game; returns the number of moves made."""
    moves = 0
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit_s:
        state = wait_turn(page)
        if state == "over":
            return moves
        moves += 1
        if shot_at and moves in shot_at:
            time.sleep(0.5)  # let the cards land
            shot(page, shot_at[moves])
        make_move(page, moves)
    raise AssertionError(f"the game did not end within {limit_s} s ({moves} moves)")


def wait_connected(page: Any) -> None:
    """Before drawing frames by hand: the server's welcome has come (it shows
    the start screen again when it arrives)."""
    wait_screen(page, "start")
    page.wait_for_function("() => window.kozyr.state.conn && window.kozyr.state.conn.ready")


def assert_tappable(page: Any, selector: str, viewport: dict[str, int]) -> None:
    """At least 44 px each way and wholly on screen."""
    assert_box_tappable(page.locator(selector).first.bounding_box(), selector, viewport)


def assert_box_tappable(
    box: dict[str, float] | None, selector: str, viewport: dict[str, int]
) -> None:
    """The box (as Playwright's ``bounding_box`` gives it) is at least 44 px
    each way and wholly on screen."""
    assert box, selector
    assert box["height"] >= 44 and box["width"] >= 44, (selector, box)
    assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], (selector, box)
    assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], (selector, box)
