"""Keyboard play and screen readers (issue 14, defects 8 and 9).

* A whole game against the computer played with ``keyboard.press`` only: after
  every step the focus is on a visible control inside the viewport (never the
  page body); the result dialog keeps it; the shortcuts list opens with ?.
* Cover choices have names of their own ("Cover Seven of spades with Eight of
  clubs"), no button sits inside an element marked as an image.
* The live region's sentences, for you and for a named player, in en/ru/zh/ja
  against the exact text expected in each language.
* The page title and the table's landmarks follow the language.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from .helpers import (
    DESKTOP,
    shot,
    version,
    wait_connected,
    wait_new_version,
    wait_screen,
    wait_turn,
)
from .test_client import CHOICE_FRAME, CHOICE_ROOM, DRAW_FRAME

#: What has the focus, if it is a control a person can see: "" when all is
#: well, else what is wrong.
FOCUS_PROBLEM = """() => {
    const el = document.activeElement;
    if (!el || el === document.body || el === document.documentElement) {
        return 'focus on the page body';
    }
    const what = `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}`
        + `${el.dataset.card ? '[card=' + el.dataset.card + ']' : ''}`
        + `${el.dataset.action ? '[action=' + el.dataset.action + ']' : ''}`;
    if (!el.matches('button, a[href], input, select, textarea, [tabindex]')) {
        return `not a control: ${what}`;
    }
    for (let e = el; e; e = e.parentElement) {
        const s = getComputedStyle(e);
        if (e.hidden || s.display === 'none' || s.visibility === 'hidden') return `hidden: ${what}`;
    }
    const r = el.getBoundingClientRect();
    if (r.width < 8 || r.height < 8) return `too small to see: ${what}`;
    if (r.left < -1 || r.top < -1 || r.right > innerWidth + 1 || r.bottom > innerHeight + 1) {
        return `outside the viewport: ${what} at ${Math.round(r.left)},${Math.round(r.top)}`;
    }
    return '';
}"""

#: Interactive things inside an element marked as an image (its content is hidden
#: from screen readers, so they could never be reached).
BUTTONS_IN_IMAGES = """() => Array.from(document.querySelectorAll(
    '[role=img] button, [role=img] a[href], [role=img] [tabindex], [role=img] [onclick]'))
    .map((el) => el.outerHTML.slice(0, 80))"""


def focus_ok(page: Any, step: str) -> None:
    problem = page.evaluate(FOCUS_PROBLEM)
    if problem:
        shot(page, "debug-a11y-focus")
    assert not problem, f"{step}: {problem}"


def focused(page: Any) -> dict[str, Any]:
    return dict(
        page.evaluate(
            """() => { const el = document.activeElement;
            const area = el.closest('#hand') ? 'hand' : el.closest('#actions') ? 'actions'
                : el.closest('#result') ? 'result' : 'other';
            return {card: el.dataset.card || null, action: el.dataset.action || null,
                    id: el.id || null, cls: el.className || '', in: area}; }"""
        )
    )


def keyboard_move(page: Any, n: int) -> str:
    """One move with keys only, from wherever the table put the focus."""

    def page_has(sel: str) -> bool:
        return bool(page.locator(sel).count())

    me = focused(page)
    lit = page.locator("#hand .hcard.playable").count()
    # After a move the focus waits on a playable card or a move button.
    assert me["in"] in ("hand", "actions"), me
    if lit:
        assert "playable" in me["cls"] or me["in"] == "actions", me
    if page_has('#actions [data-action="pass"]') and (n % 3 == 0 or not lit):
        page.keyboard.press("d")
        return "done"
    if not lit:
        assert page_has('#actions [data-action="take"]'), page.inner_html("#actions")
        page.keyboard.press("t")
        return "take"
    for _ in range(6):  # from the buttons, Tab goes on to the hand (one stop)
        if focused(page)["in"] == "hand":
            break
        page.keyboard.press("Tab")
    assert focused(page)["in"] == "hand"
    # Walk to a playable card with the arrows, then Enter.
    for _ in range(40):
        if "playable" in focused(page)["cls"]:
            break
        page.keyboard.press("ArrowRight")
    else:
        raise AssertionError("no playable card reached with the arrows")
    page.keyboard.press("Enter")
    if page.locator("#actions .choice").count():  # a card covering either of two
        focus_ok(page, "a cover choice offered")
        page.keyboard.press("1")
        return "cover choice"
    if page_has('#actions [data-action="lead"]'):  # a card of a rank held twice
        focus_ok(page, "a lead selected")
        page.keyboard.press("l")
        return "lead"
    return "card"


def test_keyboard_only_whole_game(open_page: Any) -> None:
    """Level 1, two players, to the end with key presses only."""
    page = open_page(DESKTOP)
    wait_screen(page, "start")
    # The form's values are set first; everything from here on is keys.
    page.select_option("#cpu-bots", "1")
    page.select_option("#cpu-level", "1")
    for _ in range(40):
        if page.evaluate("document.activeElement.matches('#panel-computer [type=submit]')"):
            break
        page.keyboard.press("Tab")
    else:
        raise AssertionError("Tab never reached Play")
    page.keyboard.press("Enter")
    wait_screen(page, "table")
    page.wait_for_function("() => document.activeElement.closest('#table')")
    focus_ok(page, "the game has started")

    # The shortcuts: a ? opens the list (focus on Close), Escape closes it and
    # the focus goes back to where it was.
    before = focused(page)
    page.keyboard.press("?")
    assert page.is_visible("#keys-help")
    assert focused(page)["id"] == "keys-close"
    assert "Take" in page.inner_text("#keys-list")
    page.keyboard.press("Tab")  # modal: Tab stays inside
    assert focused(page)["id"] == "keys-close"
    page.keyboard.press("Escape")
    assert not page.is_visible("#keys-help")
    assert focused(page)["card"] == before["card"]

    moves: dict[str, int] = {}
    t0 = time.monotonic()
    n = 0
    while time.monotonic() - t0 < 150:
        state = wait_turn(page, timeout=30)
        if state == "over":
            break
        n += 1
        focus_ok(page, f"turn {n}")
        assert not page.evaluate(BUTTONS_IN_IMAGES)
        v = version(page)
        kind = keyboard_move(page, n)
        moves[kind] = moves.get(kind, 0) + 1
        wait_new_version(page, v)
        if not page.is_visible("#result"):
            focus_ok(page, f"after move {n} ({kind})")
    else:
        raise AssertionError(f"the game did not end ({n} moves)")
    assert n >= 5 and moves.get("card", 0) + moves.get("lead", 0) >= 3, moves

    # The result dialog has the focus and keeps it (redraws rebuild its buttons).
    page.wait_for_function("() => document.activeElement.closest('#result')")
    time.sleep(2.0)
    focus_ok(page, "the result")
    assert focused(page)["in"] == "result"
    for _ in range(4):
        page.keyboard.press("Tab")
        assert focused(page)["in"] == "result"
    # What is read out: your outcome and, when you won, who is the durak.
    spoken = page.evaluate("window.kozyr.resultSpoken()")
    page.wait_for_function(
        "(t) => document.querySelector('#announcer').textContent === t", arg=spoken
    )
    assert spoken.startswith(("You are the durak!", "You won! Bot is the durak.", "Draw!")), spoken
    shot(page, "a11y-keyboard-result")


def test_focus_ring_shows_on_cards_and_in_both_themes(open_page: Any) -> None:
    """The focus ring of a card is a dark ring round a light one: it differs from
    a white card face and from the felt, in every look; the hand is one Tab
    stop and Take is one Shift+Tab away from it."""
    page = open_page(DESKTOP)
    wait_connected(page)
    page.evaluate(DRAW_FRAME, [CHOICE_FRAME, CHOICE_ROOM])
    stops = page.eval_on_selector_all("#hand .hcard", "els => els.map(e => e.tabIndex)")
    assert sorted(stops) == [-1, -1, -1, -1, 0], stops
    for theme in ("classic", "candy", "midnight"):  # midnight last: the dialog below
        page.select_option("#theme-select", theme)
        page.locator("#hand .hcard[tabindex='0']").focus()
        page.keyboard.press("ArrowRight")  # a key press: the ring is :focus-visible
        page.keyboard.press("ArrowLeft")
        ring = page.evaluate(
            """() => { const f = getComputedStyle(document.activeElement.querySelector('.face'));
            return {outline: f.outlineColor, width: f.outlineWidth, style: f.outlineStyle,
                    shadow: f.boxShadow}; }"""
        )
        assert ring["style"] == "solid" and ring["width"] == "3px", ring
        dark = [int(x) for x in ring["outline"][4:-1].split(",")[:3]]
        assert sum(dark) < 60, ring  # dark: shows on a white card
        assert ring["shadow"].startswith(("rgb(255, 255, 255)", "rgb(255, 233, 168)")), ring
        time.sleep(0.2)
        shot(page, f"a11y-focus-ring-{theme}")
    page.keyboard.press("Shift+Tab")
    assert focused(page)["in"] == "actions"
    presses = 1
    while focused(page)["action"] != "take":
        page.keyboard.press("Shift+Tab")
        presses += 1
        assert presses <= 3, focused(page)
    assert page.get_attribute('#actions [data-action="take"]', "title") == "Take (key T)"
    assert page.get_attribute('#actions [data-action="take"]', "aria-keyshortcuts") == "T"
    # A button of a dialog (a cream panel) has the dark ring round it too.
    page.keyboard.press("?")
    ring = page.evaluate(
        "(() => { const s = getComputedStyle(document.activeElement);"
        " return [document.activeElement.id, s.outlineColor, s.outlineWidth]; })()"
    )
    assert ring == ["keys-close", "rgb(5, 7, 15)", "3px"], ring
    page.keyboard.press("Escape")


def choice_names(page: Any) -> list[str]:
    return list(
        page.eval_on_selector_all(
            "#actions .choice", "els => els.map(e => e.getAttribute('aria-label'))"
        )
    )


def test_cover_choices_have_names_of_their_own(open_page: Any) -> None:
    """The trump 8C covers either seven: chosen by keyboard, the two choices are
    named by the card they cover and the card that covers it (not "1 cover 7")."""
    page = open_page(DESKTOP)
    wait_connected(page)
    page.evaluate(DRAW_FRAME, [CHOICE_FRAME, CHOICE_ROOM])
    assert not page.evaluate(BUTTONS_IN_IMAGES)
    page.locator("#hand .hcard[tabindex='0']").focus()
    for _ in range(6):
        if focused(page)["card"] == "8C":
            break
        page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    names = choice_names(page)
    assert names == [
        "Cover Seven of spades with Eight of clubs",
        "Cover Seven of hearts with Eight of clubs",
    ]
    for name in names:  # the accessible name the browser computes: the button on the
        # row and the attack card on the table carry the same one
        assert page.get_by_role("button", name=name, exact=True).count() == 2
    assert not page.evaluate(BUTTONS_IN_IMAGES)
    # The round's attack limit is not a bare "2/5": it is an image with words.
    assert page.get_by_role("img", name="2 of at most 5 attack cards").count() == 1
    page.keyboard.press("2")
    assert page.evaluate("window.sent") == [
        [{"seat": 0, "type": "defend", "card": "8C", "target": "7H"}, 7]
    ]
    focus_ok(page, "after the cover")

    # In Russian the cards take the cases the sentence needs.
    page.select_option("#lang-select", "ru")
    page.wait_for_function("document.documentElement.lang === 'ru'")
    page.evaluate(DRAW_FRAME, [CHOICE_FRAME, CHOICE_ROOM])
    page.focus('#hand [data-card="8C"]')
    page.keyboard.press("Enter")
    assert choice_names(page) == [
        "Покрыть семёрку пик восьмёркой треф",
        "Покрыть семёрку червей восьмёркой треф",
    ]


# ---------------------------------------------------------------- announcements
#: Draws ``frame`` and then the same table one version later with ``event``;
#: returns what the live region was given.
ANNOUNCE = """([frame, room, event, defender]) => {
    const k = window.kozyr;
    const said = [];
    k.table.hooks.move = () => {};
    k.table.hooks.announce = (text) => said.push(text);
    k.state.room = room;
    k.show("table");
    k.table.ctx = null;
    k.table.animatedVersion = null;
    const before = {...frame, view: {...frame.view, defender}};
    const at = performance.now();
    k.table.render({frame: before, room, event: null, receivedAt: at, hidden: false});
    const after = {...frame, version: frame.version + 1};
    k.table.render({frame: after, room, event: {...event, type: 'event', version: after.version},
                    receivedAt: performance.now(), hidden: false});
    return said.join(' | ');
}"""

#: The result as it is read out (the title and the lines under it), for a
#: game of three where ``durak`` lost and the others went out in ``places``.
DURAK = """([room, me, durak, places]) => {
    const k = window.kozyr;
    k.state.mode = 'online';
    k.state.room = room;
    k.state.you = {seat: me, host: true, spectator: false};
    const result = {durak, draw: false};
    k.fillResult({game: 1, durak, places, cards_left: [0, 3, 0], pogony: false, result});
    return k.resultSpoken();
}"""

ME, OLEG = 0, 1
EVENTS: dict[str, tuple[dict[str, Any], str | None, int]] = {
    # name: (action without its seat, round end, the defender before it)
    "attack": ({"type": "attack", "cards": ["7S"]}, None, 2),
    "cover": ({"type": "defend", "card": "9S", "target": "7S"}, None, 2),
    "take": ({"type": "take"}, None, 2),
    "transfer": ({"type": "transfer", "cards": ["7D"]}, None, 2),
    "bito": ({"type": "pass"}, "bito", 2),
    "took": ({"type": "pass"}, "took", -1),  # the other one picks up the table
}

#: language -> event -> (said when you did it, said when Oleg did it)
EXPECTED: dict[str, dict[str, tuple[str, str]]] = {
    "en": {
        "attack": ("You attacked with Seven of spades", "Oleg attacked with Seven of spades"),
        "cover": (
            "You covered Seven of spades with Nine of spades",
            "Oleg covered Seven of spades with Nine of spades",
        ),
        "take": ("You take the cards", "Oleg takes the cards"),
        "transfer": (
            "You transferred with Seven of diamonds",
            "Oleg transferred with Seven of diamonds",
        ),
        "bito": (
            "You passed. Bito: the cards go to the discard pile",
            "Oleg passed. Bito: the cards go to the discard pile",
        ),
        "took": ("You passed. Oleg picked up the table", "Oleg passed. You picked up the table"),
        "durak": (
            "You are the durak! Oleg went out first",
            "You won! Oleg is the durak. Your place: 1 of 3",
        ),
    },
    "ru": {
        "attack": ("Вы ходите семёркой пик", "Oleg ходит семёркой пик"),
        "cover": ("Вы кроете семёрку пик девяткой пик", "Oleg кроет семёрку пик девяткой пик"),
        "take": ("Вы берёте карты", "Oleg берёт карты"),
        "transfer": ("Вы переводите семёркой бубен", "Oleg переводит семёркой бубен"),
        "bito": (
            "Вы пасуете. Бито: карты уходят в отбой",
            "Oleg пасует. Бито: карты уходят в отбой",
        ),
        "took": (
            "Вы пасуете. Oleg забирает карты со стола",
            "Oleg пасует. Вы забираете карты со стола",
        ),
        "durak": (
            "Вы — дурак! Первым вышел игрок Oleg",
            "Вы выиграли! Oleg — дурак. Ваше место: 1 из 3",
        ),
    },
    "zh": {
        "attack": ("你用黑桃7进攻", "Oleg 用 黑桃7 进攻"),
        "cover": ("你用黑桃9压住黑桃7", "Oleg 用 黑桃9 压住 黑桃7"),
        "take": ("你收牌", "Oleg 收牌"),
        "transfer": ("你用方块7转移进攻", "Oleg 用 方块7 转移进攻"),
        "bito": ("你跳过。防守成功：牌进入弃牌堆", "Oleg 跳过。防守成功：牌进入弃牌堆"),
        "took": ("你跳过。Oleg 收走了桌上的牌", "Oleg 跳过。你收走了桌上的牌"),
        "durak": (
            "你是杜拉克！Oleg 最先出完",
            "你赢了！Oleg 是杜拉克。你的名次：第 1 名（共 3 人）",
        ),
    },
    "ja": {
        "attack": ("あなたはスペードの7で攻撃しました", "Olegがスペードの7で攻撃しました"),
        "cover": (
            "あなたはスペードの7をスペードの9で返しました",
            "Olegがスペードの7をスペードの9で返しました",
        ),
        "take": ("あなたが引き取ります", "Olegが引き取ります"),
        "transfer": ("あなたはダイヤの7で攻撃を回しました", "Olegがダイヤの7で攻撃を回しました"),
        "bito": (
            "あなたはパスしました。守り切り：カードは捨て札へ",
            "Olegはパスしました。守り切り：カードは捨て札へ",
        ),
        "took": (
            "あなたはパスしました。Olegが場のカードを引き取りました",
            "Olegはパスしました。あなたが場のカードを引き取りました",
        ),
        "durak": (
            "あなたがドゥラークです！Olegが最初に上がり",
            "あなたの勝ち！Olegがドゥラーク。あなたの順位：3人中1位",
        ),
    },
}


@pytest.mark.parametrize("lang", ["en", "ru", "zh", "ja"])
def test_announcements_are_grammatical(open_page: Any, lang: str) -> None:
    """Separate sentences for "you" and for a named player (no "You takes", no
    "Вы берёт"), the cards in the right case, in each of the four languages."""
    page = open_page(DESKTOP)
    wait_connected(page)
    page.select_option("#lang-select", lang)
    page.wait_for_function(f"document.documentElement.lang.startsWith('{lang}')")
    for name, (action, round_end, defender) in EVENTS.items():
        for who, seat in (("you", ME), ("Oleg", OLEG)):
            event = {"seat": seat, "action": {"seat": seat, **action}}
            if round_end:
                event["round_end"] = round_end
            # "took": the one who did not pass picked up the table.
            taker = (OLEG if seat == ME else ME) if defender < 0 else defender
            said = page.evaluate(ANNOUNCE, [CHOICE_FRAME, CHOICE_ROOM, event, taker])
            expected = EXPECTED[lang][name][0 if who == "you" else 1]
            assert said == expected, (lang, name, who)
    # You lost (Oleg went out first), or Oleg lost (you went out first).
    for who, seat, places in (
        ("you", ME, [[OLEG], [2], [ME]]),
        ("Oleg", OLEG, [[ME], [2], [OLEG]]),
    ):
        said = page.evaluate(DURAK, [CHOICE_ROOM, ME, seat, places])
        assert said == EXPECTED[lang]["durak"][0 if who == "you" else 1], (lang, who)


LANDMARKS = {
    "en": (
        "Kozyr — Durak",
        "Game table",
        "Cards in play",
        "Your moves",
        "Your hand",
        "Keyboard shortcuts",
    ),
    "ru": (
        "Козырь — Дурак",
        "Игровой стол",
        "Карты на столе",
        "Ваши ходы",
        "Ваши карты",
        "Управление с клавиатуры",
    ),
    "zh": ("Kozyr — 杜拉克", "牌桌", "桌上的牌", "你的操作", "你的手牌", "键盘快捷键"),
    "ja": (
        "Kozyr — ドゥラーク",
        "ゲームテーブル",
        "場のカード",
        "あなたの操作",
        "あなたの手札",
        "キーボード操作",
    ),
}

LANDMARK_NAMES = """() => [document.title,
    ...['#screen-table', '#battle', '#actions', '#hand', '#keys-open']
        .map((s) => document.querySelector(s).getAttribute('aria-label'))]"""


def test_title_and_landmarks_follow_the_language(open_page: Any) -> None:
    """From the browser's language at start, and after the switch at the top."""
    for lang, locale in (("ru", "ru-RU"), ("ja", "ja-JP")):
        page = open_page(DESKTOP, locale=locale)
        wait_screen(page, "start")
        assert page.evaluate(LANDMARK_NAMES) == list(LANDMARKS[lang])
    page = open_page(DESKTOP)
    wait_connected(page)
    page.evaluate(DRAW_FRAME, [CHOICE_FRAME, CHOICE_ROOM])
    for lang in ("zh", "ru", "en"):
        page.select_option("#lang-select", lang)
        page.wait_for_function(f"document.documentElement.lang.startsWith('{lang}')")
        assert page.evaluate(LANDMARK_NAMES) == list(LANDMARKS[lang])
        # the table's own names and the shortcut list follow too
        page.keyboard.press("?")
        assert page.inner_text("#keys-title") == LANDMARKS[lang][5]
        page.keyboard.press("Escape")
    assert page.get_by_role("group", name="Your hand").count() == 1
