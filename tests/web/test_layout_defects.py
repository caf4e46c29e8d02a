"""The layout defects seen by people who tried the client (issue 25, section 7),
each checked where it was seen: on a phone and on a desktop, in the languages
where it is a matter of text.

Screenshots: test-artifacts/screenshots/defects-*.png.
"""

from __future__ import annotations

from typing import Any

import pytest

from .helpers import DESKTOP, PHONE, shot, wait_connected, wait_screen, wait_turn
from .test_cheating import drawn_frame
from .test_client import CHOICE_FRAME, CHOICE_ROOM, DRAW_FRAME
from .test_layout_audit import (
    FULL_PAIRS,
    HAND_CARD_W,
    NEXT_FRAMES,
    TWO_ROOM,
    pairs_on_table,
    six_players,
    six_room,
)

VIEWPORTS = {"desktop": DESKTOP, "phone": PHONE}
SMALL_PHONE = {"width": 360, "height": 740}
LANGS = {"en": "en-US", "ru": "ru-RU", "zh": "zh-CN", "ja": "ja-JP"}


def drawn_page(open_page: Any, viewport: dict[str, int], locale: str = "en-US") -> Any:
    page = open_page(viewport, locale=locale)
    page.emulate_media(reduced_motion="reduce")  # the cards stand still at once
    wait_connected(page)
    return page


def draw(page: Any, frame: Any, room: Any) -> None:
    page.evaluate(DRAW_FRAME, [frame, room])
    page.evaluate(NEXT_FRAMES)


# ------------------------------------------------------------ the hand's size
@pytest.mark.parametrize("key", ["desktop", "phone", "small-phone"])
def test_the_hand_keeps_its_size_all_round(open_page: Any, key: str) -> None:
    """Seen at 1280x800: the hand dropped from 120 to 54 px wide as soon as one
    covered pair lay on the table (the cover, turned, ran 3 px out of the
    table and the layout fell back to its smallest hand), and grew back when
    the round ended; the phone did the same (76 and 56 px). Now the hand is
    laid out for a full table from the start: the same width with 0 to 6
    covered pairs, and (but on a small phone, where two rows of pairs take
    the height) not narrower than the cards on the table."""
    viewport = {"desktop": DESKTOP, "phone": PHONE, "small-phone": SMALL_PHONE}[key]
    page = drawn_page(open_page, viewport)
    widths = []
    for n in range(len(FULL_PAIRS) + 1):
        draw(page, pairs_on_table(n), TWO_ROOM)
        widths.append(page.evaluate(HAND_CARD_W))
        if n in (0, 1, len(FULL_PAIRS)):
            shot(page, f"defects-hand-{key}-{n}-pairs")
    assert max(widths) <= 1.1 * min(widths), f"hand card widths with 0..6 pairs: {widths}"
    if key != "small-phone":  # 360x740: two rows of pairs leave the hand less height
        table_w = page.evaluate("document.querySelector('#battle .tcard').offsetWidth")
        assert min(widths) >= 0.9 * table_w, f"hand {widths} px, table cards {table_w} px"
    # Nothing of the full table lies on anything else (the deck, the hand).
    problems = page.evaluate(
        """() => {
            const box = (el) => el.getBoundingClientRect();
            const felt = box(document.querySelector('#felt'));
            const battle = box(document.querySelector('#battle'));
            const me = box(document.querySelector('#me'));
            const out = [];
            for (const pair of document.querySelectorAll('#battle .pair')) {
                const r = box(pair);
                const out_of_felt = r.top < felt.top - 1 || r.bottom > me.top + 1;
                if (out_of_felt) out.push(`pair ${pair.dataset.index}`);
            }
            for (const el of document.querySelectorAll('#deck, #discard')) {
                const r = box(el);
                const w = Math.min(r.right, battle.right) - Math.max(r.left, battle.left);
                const h = Math.min(r.bottom, battle.bottom) - Math.max(r.top, battle.top);
                if (w > 1 && h > 1) out.push(`${el.id} on the cards in play`);
            }
            return out;
        }"""
    )
    assert not problems, problems


# ------------------------------------------------------------ opponents' known cards
@pytest.mark.parametrize("key", ["desktop", "phone", "small-phone"])
def test_opponents_known_cards_are_readable(open_page: Any, key: str) -> None:
    """Seen on a phone: the cards an opponent is known to hold (they took
    them) were card faces about 10 px wide. Now each is a chip with its rank
    and suit in text, at least 24 px wide, inside its seat: with six players
    (compact seats in rows) and with three."""
    viewport = {"desktop": DESKTOP, "phone": PHONE, "small-phone": SMALL_PHONE}[key]
    page = drawn_page(open_page, viewport)
    for name, frame, room in (
        ("six", six_players(), six_room()),
        ("three", CHOICE_FRAME, CHOICE_ROOM),
    ):
        draw(page, frame, room)
        shot(page, f"defects-known-{key}-{name}")
        known = page.evaluate(
            """() => Array.from(document.querySelectorAll('.opp .known [data-card]'), (el) => {
                const r = el.getBoundingClientRect();
                const seat = el.closest('.opp').getBoundingClientRect();
                return {card: el.dataset.card, w: r.width, h: r.height,
                        text: el.textContent, font: parseFloat(getComputedStyle(el).fontSize),
                        inside: r.left >= seat.left - 0.5 && r.right <= seat.right + 0.5
                            && r.top >= seat.top - 0.5 && r.bottom <= seat.bottom + 0.5};
            })"""
        )
        cards = [k["card"] for k in known]
        expected = [c for seat in frame["view"]["known"][1:] for c in seat]
        assert sorted(cards) == sorted(expected), known
        for k in known:
            assert k["w"] >= 24, k
            assert k["text"] and k["font"] >= 11, k  # the rank in text, not a tiny drawing
            assert k["inside"], k


# ------------------------------------------------------------ the result on a phone
#: Names as long as a name may be (12 characters): the names' column is wide.
RESULT_ROOM: dict[str, Any] = {
    **TWO_ROOM,
    "state": "over",
    "seats": [
        {**TWO_ROOM["seats"][0], "name": "Konstantinos"},
        {**TWO_ROOM["seats"][1], "name": "Александрина"},
    ],
}
RESULT_OVER = {
    "type": "game_over",
    "game": 1,
    "result": {"draw": False, "durak": 1},
    "durak": 1,
    "pogony": False,
    "cards_left": [0, 5],
}
SHOW_RESULT_AS = """([over, room, you]) => {
    const k = window.kozyr;
    k.state.mode = 'online';
    k.state.room = room;
    k.state.you = you;
    k.show('table');
    k.fillResult(over);
    document.querySelector('#result').hidden = false;
}"""
#: How many lines the text of each header of the result's table takes.
HEADER_LINES = """() => Array.from(document.querySelectorAll('#result thead th'), (th) => {
    const range = document.createRange();
    range.selectNodeContents(th);
    const tops = new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top)));
    return [th.textContent, tops.size];
})"""


@pytest.mark.parametrize("lang", ["en", "ru", "zh", "ja"])
def test_result_headers_stay_on_one_line_on_a_phone(open_page: Any, lang: str) -> None:
    """Seen on a phone: in Chinese the "名次" header stacked one character a
    line, in English "Cards left" wrapped. Every header is on one line, on
    both phones, and the dialog still fits."""
    for name, viewport in (("phone", PHONE), ("small-phone", SMALL_PHONE)):
        page = drawn_page(open_page, viewport, locale=LANGS[lang])
        page.evaluate(SHOW_RESULT_AS, [RESULT_OVER, RESULT_ROOM, {"seat": 0, "host": True}])
        shot(page, f"defects-result-{lang}-{name}")
        lines = page.evaluate(HEADER_LINES)
        assert all(n == 1 for _, n in lines), f"{lang} {name}: {lines}"
        width = page.evaluate("document.querySelector('#result .dialog').scrollWidth")
        assert width <= viewport["width"], width


def confetti_on_the_result(page: Any) -> list[str]:
    """Confetti painted within the result's panel, at a few moments of its fall
    (the pieces are made hit-testable for the check: the topmost element at a
    piece's centre is the piece itself where it is drawn over what lies there)."""
    return list(
        page.evaluate(
            """() => {
                const dlg = document.querySelector('#result .dialog').getBoundingClientRect();
                const pieces = Array.from(document.querySelectorAll('#result-confetti i'));
                const anims = document.getAnimations()
                    .filter((a) => pieces.includes(a.effect.target));
                for (const p of pieces) p.style.pointerEvents = 'auto';
                document.querySelector('#result-confetti').style.pointerEvents = 'auto';
                const seen = [];
                for (const t of [300, 700, 1100, 1500, 1900, 2300]) {
                    for (const a of anims) { a.pause(); a.currentTime = t; }
                    for (const p of pieces) {
                        const r = p.getBoundingClientRect();
                        const x = r.left + r.width / 2;
                        const y = r.top + r.height / 2;
                        const inside = x > dlg.left && x < dlg.right
                            && y > dlg.top && y < dlg.bottom;
                        if (inside && document.elementFromPoint(x, y) === p) {
                            seen.push(`${t} ms: a piece at ${Math.round(x)},${Math.round(y)}`);
                        }
                    }
                }
                for (const p of pieces) p.style.pointerEvents = '';
                document.querySelector('#result-confetti').style.pointerEvents = '';
                for (const a of anims) a.play();
                return seen;
            }"""
        )
    )


CONFETTI = "document.querySelectorAll('#result-confetti i').length"


@pytest.mark.parametrize("key", ["desktop", "phone"])
def test_confetti_never_falls_on_the_result(open_page: Any, key: str) -> None:
    """Seen: confetti fell across the result's text. A winner's confetti falls
    around the result's panel, behind it."""
    page = open_page(VIEWPORTS[key])  # with motion: confetti is an animation
    wait_connected(page)
    page.evaluate(SHOW_RESULT_AS, [RESULT_OVER, RESULT_ROOM, {"seat": 0, "host": True}])
    page.wait_for_timeout(900)
    shot(page, f"defects-confetti-{key}")
    assert page.evaluate(CONFETTI) > 0  # a winner
    assert confetti_on_the_result(page) == []


def test_confetti_for_winners_not_for_spectators(open_page: Any) -> None:
    """Seen: spectators got confetti. A winner does; the durak and a spectator
    do not."""
    page = open_page(PHONE)
    wait_connected(page)
    page.evaluate(SHOW_RESULT_AS, [RESULT_OVER, RESULT_ROOM, {"seat": 0, "host": True}])
    assert page.evaluate(CONFETTI) > 0  # the winner
    page.evaluate(SHOW_RESULT_AS, [RESULT_OVER, RESULT_ROOM, {"seat": 1, "host": False}])
    assert page.evaluate(CONFETTI) == 0  # the durak
    spectator = {"seat": None, "host": False, "spectator": True}
    page.evaluate(SHOW_RESULT_AS, [RESULT_OVER, RESULT_ROOM, spectator])
    assert page.inner_text("#result-title") == "Александрина is the durak"
    assert page.evaluate(CONFETTI) == 0  # a spectator


# ------------------------------------------------------------ the start screen


@pytest.mark.parametrize("lang", list(LANGS))
def test_start_tabs_stay_in_one_row_on_a_phone(open_page: Any, lang: str) -> None:
    """Seen on a phone: "Pass & play" wrapped onto a row of its own, like a
    heading. The four tabs share one row on both phones, each label whole
    (a long one on two lines) and each tab a 44 px target."""
    for name, viewport in (("phone", PHONE), ("small-phone", SMALL_PHONE)):
        page = open_page(viewport, locale=LANGS[lang])
        wait_connected(page)
        shot(page, f"defects-tabs-{lang}-{name}")
        tabs = page.evaluate(
            """() => Array.from(document.querySelectorAll('.tabs [role=tab]'), (el) => {
                const r = el.getBoundingClientRect();
                const cut = el.scrollWidth > el.clientWidth + 1
                    || el.scrollHeight > el.clientHeight + 1;
                const out = r.left < 0 || r.right > document.documentElement.clientWidth;
                return {text: el.textContent, top: Math.round(r.top), h: r.height, w: r.width,
                        cut, out};
            })"""
        )
        assert len({t["top"] for t in tabs}) == 1, f"{lang} {name}: {tabs}"
        for tab in tabs:
            assert not tab["cut"] and not tab["out"], f"{lang} {name}: {tab}"
            assert tab["h"] >= 44 and tab["w"] >= 44, f"{lang} {name}: {tab}"


def test_joining_is_not_logging_in_in_russian(open_page: Any) -> None:
    """Seen: the Russian "Войти" for joining a room reads as "Log in". The Join
    tab, its title and its button use words for joining a table or a room."""
    page = open_page(PHONE, locale="ru-RU")
    wait_connected(page)
    page.click("#tab-join")
    words = [
        page.inner_text("#tab-join"),
        page.inner_text("#panel-join h2"),
        page.inner_text("#panel-join button[type=submit]"),
    ]
    shot(page, "defects-join-ru")
    assert not any("Войти" in w or "войти" in w for w in words), words
    assert words == ["Подсесть", "Присоединиться к комнате", "Присоединиться"], words


# ------------------------------------------------------------ the last call
def last_call_frame() -> Any:
    """A cheating table's last call for seat 0: two covered pairs, five seconds left."""
    table = [{"attack": "7S", "defense": "9S"}, {"attack": "7H", "defense": "KH"}]
    frame = drawn_frame("last_call", ["6D", "8C", "QS"], table, [{"type": "pass"}])
    frame["view"].update(pending=[0, 1], attacker=2, defender=1)
    frame["view"]["plays"] = [
        {"card": "7S", "seat": 2, "cover": False},
        {"card": "9S", "seat": 1, "cover": True},
        {"card": "7H", "seat": 2, "cover": False},
        {"card": "KH", "seat": 1, "cover": True},
    ]
    frame["legal"] += [{"seat": 0, "type": "accuse", "card": c} for c in ("7S", "9S", "KH")]
    return {**frame, "deadline": 5_000, "time_left": 5_000}


LAST_CALL_ROOM: dict[str, Any] = {**CHOICE_ROOM, "rules": {"players": 3, "cheating": True}}


@pytest.mark.parametrize("lang", list(LANGS))
def test_last_call_prompt_says_it_once_in_a_row(open_page: Any, lang: str) -> None:
    """Seen: the last call's prompt repeated the status line word for word,
    and on a phone took three lines, every round. The status line says it;
    the prompt says how to call a card out, counts down and offers Continue,
    at most two buttons high (one row on a desktop), in every language."""
    for name, viewport in (("phone", PHONE), ("small-phone", SMALL_PHONE), ("desktop", DESKTOP)):
        page = drawn_page(open_page, viewport, locale=LANGS[lang])
        draw(page, last_call_frame(), LAST_CALL_ROOM)
        shot(page, f"defects-last-call-{lang}-{name}")
        seen = page.evaluate(
            """() => {
                const prompt = document.querySelector('#lastcall');
                const button = prompt.querySelector('[data-action="pass"]').getBoundingClientRect();
                return {status: document.querySelector('#status').textContent,
                        prompt: prompt.innerText, height: prompt.getBoundingClientRect().height,
                        button: button.height, timer: Boolean(prompt.querySelector('.timer'))};
            }"""
        )
        status, prompt = seen["status"], seen["prompt"]
        assert status and status not in prompt, seen  # it was the prompt's first line
        assert seen["timer"], seen
        rows = 1 if name == "desktop" else 2
        assert seen["height"] <= rows * seen["button"] + 16, f"{lang} {name}: {seen}"


# ------------------------------------------------------------ "Then pass"
def start_pass_and_play(page: Any) -> None:
    wait_screen(page, "start")
    page.click("#tab-pnp")
    page.select_option("#pnp-count", "2")
    page.click("#panel-pnp button[type=submit]")
    page.wait_for_selector("#privacy:not([hidden])")
    page.click("#privacy-reveal")
    page.wait_for_selector('#actions [data-action="then-pass"]')


@pytest.mark.parametrize("key", ["desktop", "phone"])
def test_then_pass_is_a_switch_that_says_what_it_does(open_page: Any, key: str) -> None:
    """Seen in pass & play: "Then pass", when on, looked like the main action
    button, and what it does was only in a tooltip, which touch users never
    see. It is a switch (a knob that moves over), never filled like a move's
    button, on or off, and says what it does on the table."""
    page = open_page(VIEWPORTS[key])
    page.emulate_media(reduced_motion="reduce")
    start_pass_and_play(page)
    toggle = page.locator('#actions [data-action="then-pass"]')
    moves = '#actions [data-action="lead"], #actions .go, #actions .act'

    def looks() -> dict[str, Any]:
        return dict(
            page.evaluate(
                """(moves) => {
                    const t = document.querySelector('#actions [data-action="then-pass"]');
                    const hint = document.getElementById(t.getAttribute('aria-describedby'));
                    const r = t.getBoundingClientRect();
                    const knob = t.querySelector('.switch-knob');
                    const shown = hint && hint.checkVisibility() && t.contains(hint);
                    return {
                        background: getComputedStyle(t).backgroundColor,
                        moves: Array.from(document.querySelectorAll(moves),
                            (b) => getComputedStyle(b).backgroundColor),
                        hint: shown ? hint.innerText : null,
                        knob: knob ? knob.getBoundingClientRect().left - r.left : null,
                        inside: r.left >= 0 && r.right <= innerWidth && r.bottom <= innerHeight,
                    };
                }""",
                moves,
            )
        )

    off = looks()
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true"
    on = looks()
    shot(page, f"defects-then-pass-on-{key}")
    hint = "After this move, pass for me until the round ends"
    for state in (off, on):
        assert state["hint"] == hint, state
        assert state["inside"], state
        assert state["background"] not in state["moves"], state  # never like a move's button
        rgba = state["background"]
        alpha = float(rgba[:-1].split(",")[3]) if rgba.startswith("rgba") else 1.0
        assert alpha < 0.5, state  # see-through, on or off
    assert on["knob"] is not None and off["knob"] is not None and on["knob"] > off["knob"] + 8
    assert page.get_attribute('#actions [data-action="then-pass"]', "title") is None


# ------------------------------------------------------------ focus rings
RING = """() => {
    const el = document.activeElement;
    const face = el && el.querySelector('.face');
    const s = getComputedStyle(el);
    const f = face && getComputedStyle(face);
    return {
        el: el ? `${el.tagName} ${el.className} ${el.dataset.card || ''}` : null,
        ring: s.outlineStyle !== 'none' || (f !== null && f.outlineStyle !== 'none'),
        raised: f !== null && f.translate !== 'none' && f.translate !== '0px',
    };
}"""


def touch_page(browser: Any, server: Any) -> tuple[Any, Any]:
    ctx = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    ctx.set_default_timeout(15_000)
    page = ctx.new_page()
    page.goto(f"{server.url}/")
    return ctx, page


def test_no_focus_ring_for_touch_until_a_key_is_pressed(browser: Any, server: Any) -> None:
    """Seen: focus rings showed for touch users who never used a keyboard (the
    table places the focus on a card, as keyboard users need; Chromium's
    :focus-visible shows a ring for a focus a script placed before any input,
    as when a reload resumes the game). A touch screen shows no ring until a
    key is pressed; a key brings the ring back."""
    ctx, page = touch_page(browser, server)
    try:
        wait_screen(page, "start")
        page.tap("#panel-computer button[type=submit]")
        wait_screen(page, "table")
        assert wait_turn(page) == "turn"
        page.reload()  # the game resumes: the table takes the focus, no input yet
        wait_screen(page, "table")
        page.wait_for_function("() => document.activeElement.closest('#table')")
        page.wait_for_timeout(300)
        shot(page, "defects-focus-touch-reload")
        seen = page.evaluate(RING)
        assert not seen["ring"] and not seen["raised"], seen
        page.tap("#help-open")  # a dialog takes the focus too (Help: a phone has no key list)
        seen = page.evaluate(RING)
        closer = "document.activeElement.dataset.action"
        assert page.evaluate(closer) == "help-close" and not seen["ring"], seen
        page.tap('#help [data-action="help-close"]')
        page.keyboard.press("Tab")  # a keyboard after all: rings again
        seen = page.evaluate(RING)
        assert seen["ring"], seen
        shot(page, "defects-focus-touch-then-key")
    finally:
        ctx.close()
