"""The layout audit (issue 14): the table screen on phones, a tablet and a desktop.

For every viewport and scene the page itself is measured (AUDIT below):

* nothing scrolls sideways;
* every visible interactive element (buttons, links, form fields, anything
  focusable) lies wholly inside the viewport and is not covered:
  ``document.elementFromPoint`` at its centre finds it or a descendant. Hand
  cards overlap in a fan by design, so for them the centre is that of the
  largest square of the card that is its own (see below);
* every playable card (lit, selected, or one that may join the selection) and
  every button offers at least 44×44 CSS px of its own: a 44 px square of it
  where ``elementFromPoint`` finds it at every point of a 4 px grid.

Scenes: the table of a real game against one bot (2 players) on your turn; a
drawn 2-player frame where you defend (Take next to the attack card); a drawn
2-player lead with four sevens, all selected (choose cards, then act).
Screenshots: test-artifacts/screenshots/audit/<scene>-<width>x<height>.png.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

import pytest

from .helpers import SHOTS, start_vs_computer, wait_connected, wait_screen, wait_turn
from .test_client import CHOICE_FRAME, CHOICE_ROOM, DRAW_FRAME

VIEWPORTS = {
    "phone-360x740": {"width": 360, "height": 740},
    "phone-390x844": {"width": 390, "height": 844},
    "landscape-844x390": {"width": 844, "height": 390},
    "tablet-768x1024": {"width": 768, "height": 1024},
    "desktop-1280x800": {"width": 1280, "height": 800},
}
AUDIT_SHOTS = SHOTS / "audit"
MIN_TAP = 44

AUDIT = """([minTap, scrolls, root]) => {
    const vw = document.documentElement.clientWidth;
    const vh = window.innerHeight;
    const problems = [];
    const wide = Math.max(document.documentElement.scrollWidth, document.body.scrollWidth);
    if (wide > vw) problems.push(`scrolls sideways: ${wide} px wide in ${vw} px`);
    const name = (el) => {
        const d = el.dataset || {};
        return `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}`
            + `${d.card ? '[card=' + d.card + ']' : ''}`
            + `${d.action ? '[action=' + d.action + ']' : ''}`
            + ` "${(el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 30)}"`;
    };
    const shown = (el) => {
        if (!el.getClientRects().length) return false;
        const r = el.getBoundingClientRect();
        if (r.width < 1 || r.height < 1) return false;
        for (let e = el; e; e = e.parentElement) {
            const s = getComputedStyle(e);
            if (s.visibility === 'hidden' || s.opacity === '0' || e.hidden) return false;
        }
        return true;
    };
    const mine = (el, x, y) => {
        if (x < 0 || y < 0 || x >= vw || y >= vh) return false;
        const hit = document.elementFromPoint(x, y);
        return Boolean(hit && (hit === el || el.contains(hit)));
    };
    // The largest square of ``el`` that is its own (sampled every 4 px): its
    // side and centre.
    const ownSquare = (el) => {
        const r = el.getBoundingClientRect();
        const step = 4;
        const cols = Math.max(1, Math.floor(r.width / step));
        const rows = Math.max(1, Math.floor(r.height / step));
        const size = Array.from({length: rows + 1}, () => new Array(cols + 1).fill(0));
        let best = {side: 0, x: 0, y: 0};
        for (let i = 1; i <= rows; i++) {
            for (let j = 1; j <= cols; j++) {
                const x = r.left + (j - 0.5) * step;
                const y = r.top + (i - 0.5) * step;
                if (!mine(el, x, y)) continue;
                size[i][j] = 1 + Math.min(size[i - 1][j], size[i][j - 1], size[i - 1][j - 1]);
                const side = size[i][j] * step;
                if (side > best.side) {
                    best = {side, x: r.left + j * step - side / 2, y: r.top + i * step - side / 2};
                }
            }
        }
        return best;
    };
    const selector = 'button, a[href], input, select, textarea, summary,'
        + ' [tabindex]:not([tabindex="-1"])';
    // A modal dialog (``root``): only its own controls; what it covers is moot.
    const scope = root ? document.querySelector(root) : document;
    const els = Array.from(scope.querySelectorAll(selector)).filter(shown);
    for (const el of els) {
        const r = el.getBoundingClientRect();
        const label = name(el);
        // A screen that scrolls up and down (start, room): what is above or
        // below the fold is checked only across; the rest as on the table.
        // (Only across: a sticky button and the fold make the rest moot there.)
        if (scrolls) {
            if (r.left < -0.5 || r.right > vw + 0.5) {
                problems.push(`off screen across: ${label} at ${Math.round(r.left)}`
                    + ` ${Math.round(r.width)} wide in ${vw}`);
            }
            continue;
        }
        if (r.left < -0.5 || r.top < -0.5 || r.right > vw + 0.5 || r.bottom > vh + 0.5) {
            problems.push(`off screen: ${label} at ${Math.round(r.left)},${Math.round(r.top)}`
                + ` ${Math.round(r.width)}x${Math.round(r.height)} in ${vw}x${vh}`);
            continue;
        }
        const handCard = el.classList.contains('hcard');
        const lit = ['playable', 'cheatable', 'chosen'].some((c) => el.classList.contains(c));
        const needsTap = el.tagName === 'BUTTON' && (!handCard || lit);
        const own = handCard || needsTap ? ownSquare(el) : null;
        if (handCard) {
            if (own.side === 0) problems.push(`covered: ${label} (no part of it is its own)`);
        } else if (!mine(el, r.left + r.width / 2, r.top + r.height / 2)) {
            const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            problems.push(`covered: ${label} by ${hit ? name(hit) : 'nothing'}`);
        }
        if (needsTap && own.side < minTap) {
            problems.push(`too small to tap: ${label} has ${own.side} px of its own`
                + ` (${Math.round(r.width)}x${Math.round(r.height)})`);
        }
    }
    return problems;
}"""


def audit(
    page: Any, scene: str, key: str, scrolls: bool = False, root: str | None = None
) -> list[str]:
    """The problems of what ``page`` shows now (a screenshot goes to AUDIT_SHOTS);
    ``scrolls``: a screen that may scroll up and down (start, room), checked
    across only; ``root``: a modal dialog, whose controls alone are checked."""
    time.sleep(0.6)  # the cards fly and the fan slides into place
    AUDIT_SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(AUDIT_SHOTS / f"{scene}-{key.split('-', 1)[1]}.png"))
    return [f"{scene}: {p}" for p in page.evaluate(AUDIT, [MIN_TAP, scrolls, root])]


TWO_ROOM: dict[str, Any] = {
    **CHOICE_ROOM,
    "rules": {"players": 2, "variant": "podkidnoy", "teams": "none"},
    "seats": CHOICE_ROOM["seats"][:2],  # type: ignore[index]
}
SEVENS = ["7S", "7H", "7D", "7C"]


def two_player_frame(phase: str, hand: list[str], table: list[Any], legal: list[Any]) -> Any:
    view = {
        **CHOICE_FRAME["view"],  # type: ignore[dict-item]
        "hand": hand,
        "hand_counts": [len(hand), 6],
        "known": [[], []],
        "table": table,
        "phase": phase,
        "attacker": 0 if phase == "lead" else 1,
        "defender": 1 if phase == "lead" else 0,
        "round_attacker": 0 if phase == "lead" else 1,
        "deck": 11,
    }
    return {**CHOICE_FRAME, "view": view, "legal": [{"seat": 0, **a} for a in legal]}


def lead_sevens() -> Any:
    leads = [list(c) for n in range(1, 5) for c in itertools.combinations(SEVENS, n)]
    legal = [{"type": "attack", "cards": c} for c in [*leads, ["9D"], ["KH"]]]
    return two_player_frame("lead", [*SEVENS, "9D", "KH"], [], legal)


def defend_take() -> Any:
    hand = ["6D", "9S", "JH", "QC", "KD", "AH"]
    legal = [{"type": "defend", "card": "9S", "target": "8S"}, {"type": "take"}]
    return two_player_frame("defend", hand, [{"attack": "8S", "defense": None}], legal)


@pytest.mark.parametrize("key", list(VIEWPORTS))
def test_audit_table_of_a_real_game(open_page: Any, key: str) -> None:
    viewport = VIEWPORTS[key]
    page = open_page(viewport)
    start_vs_computer(page, bots=1, deck="36")
    assert wait_turn(page) == "turn"
    problems = audit(page, "table-2-players", key)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("key", list(VIEWPORTS))
def test_audit_defending_with_take(open_page: Any, key: str) -> None:
    viewport = VIEWPORTS[key]
    page = open_page(viewport)
    wait_connected(page)
    page.evaluate(DRAW_FRAME, [defend_take(), TWO_ROOM])
    problems = audit(page, "defend-take", key)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("key", list(VIEWPORTS))
def test_audit_multi_card_lead_selection(open_page: Any, key: str) -> None:
    viewport = VIEWPORTS[key]
    page = open_page(viewport)
    wait_connected(page)
    page.evaluate(DRAW_FRAME, [lead_sevens(), TWO_ROOM])
    # Select three sevens (as taps would; test_client checks the taps themselves).
    for card in SEVENS[:3]:
        page.evaluate("(c) => window.kozyr.table.clickCard(c)", card)
    assert page.get_attribute('#actions [data-action="lead"]', "data-label") == "Lead 7♠ 7♥ 7♦"
    problems = audit(page, "lead-selection", key)
    assert not problems, "\n".join(problems)


PHONES = ["phone-360x740", "phone-390x844"]
LOCALES = {"ru": "ru-RU", "ja": "ja-JP", "en": "en-US"}
GAME_OVER = {
    "type": "game_over",
    "game": 1,
    "result": {"draw": False, "durak": 1},
    "durak": 1,
    "pogony": True,
    "cards_left": [0, 5],
}
SHOW_RESULT = """([over, room]) => {
    const k = window.kozyr;
    k.state.room = room;
    k.fillResult(over);
    document.querySelector('#result').hidden = false;
}"""


@pytest.mark.parametrize("lang", list(LOCALES))
@pytest.mark.parametrize("key", PHONES)
def test_audit_every_screen_on_phones_in_three_languages(
    open_page: Any, key: str, lang: str
) -> None:
    """Issue 14, defect 3: Russian labels are long, Japanese ones short; on a
    phone no screen may scroll sideways or put a control off screen: the start
    screen (each tab), the room, the table, the result and the privacy screen."""
    page = open_page(VIEWPORTS[key], locale=LOCALES[lang])
    wait_screen(page, "start")
    problems: list[str] = []
    for tab in ("computer", "online", "join", "pnp"):
        page.click(f"#tab-{tab}")
        if tab == "online":
            page.check('#panel-online input[value="private"]')  # the longest form
        problems += audit(page, f"{lang}-start-{tab}", key, scrolls=True)
    page.click("#tab-online")
    page.click("#panel-online button[type=submit]")
    wait_screen(page, "room")
    problems += audit(page, f"{lang}-room", key, scrolls=True)
    page.evaluate(DRAW_FRAME, [defend_take(), TWO_ROOM])
    problems += audit(page, f"{lang}-table-defend", key)
    page.evaluate(SHOW_RESULT, [GAME_OVER, TWO_ROOM])
    problems += audit(page, f"{lang}-result", key, root="#result")
    page.evaluate("document.querySelector('#result').hidden = true")
    page.click("#table-leave")
    page.click("#table-leave")
    wait_screen(page, "start")
    page.click("#tab-pnp")
    page.select_option("#pnp-count", "6")
    page.click("#panel-pnp button[type=submit]")
    page.wait_for_selector("#privacy:not([hidden])")
    problems += audit(page, f"{lang}-privacy", key, root="#privacy")
    assert not problems, "\n".join(problems)
