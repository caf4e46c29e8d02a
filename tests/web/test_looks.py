"""The table's looks (issue 26, section 5): the classic green table and Mocha's
candy table.

* each language starts with its look (classic in English and Russian, candy in
  Chinese and Japanese) until the player picks one; the pick is remembered
  and holds in every language;
* at the candy table the computer's seats are Mocha's (name and portrait);
  the classic table keeps its bots;
* the ranks and suits of the cards stay readable in every look: the contrast
  of their colours against the card face (and a court card's frame), taken
  from the browser's computed styles, is at least 4.5:1.

The layout audit of both looks is in test_layout_audit.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .helpers import DESKTOP, PHONE, shot, start_vs_computer, wait_connected, wait_screen, wait_turn
from .test_client import CHOICE_ROOM, DRAW_FRAME
from .test_layout_audit import frame_of, six_room

LOCALES = {"en": "en-US", "ru": "ru-RU", "zh": "zh-CN", "ja": "ja-JP"}
DEFAULT_LOOK = {"en": "classic", "ru": "classic", "zh": "candy", "ja": "candy"}
LOOKS = ["classic", "midnight", "candy"]
I18N = Path(__file__).resolve().parents[2] / "src" / "kozyr" / "web" / "static" / "i18n"
MIN_CONTRAST = 4.5


def strings(lang: str) -> Any:
    return json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))


def look(page: Any) -> str:
    return str(page.evaluate("document.documentElement.dataset.theme"))


def remembered(page: Any) -> Any:
    return page.evaluate("localStorage.getItem('kozyr.look')")


def switch_language(page: Any, lang: str) -> None:
    page.select_option("#lang-select", lang)
    page.wait_for_function(f"() => document.documentElement.lang.startsWith({lang!r})")


def opponent_names(page: Any) -> list[str]:
    return list(page.eval_on_selector_all(".opp .opp-name", "els => els.map((e) => e.textContent)"))


# ------------------------------------------------------------------ defaults and the choice
@pytest.mark.parametrize("lang", list(LOCALES))
def test_each_language_starts_with_its_look(open_page: Any, lang: str) -> None:
    page = open_page(PHONE, locale=LOCALES[lang])
    wait_screen(page, "start")
    expected = DEFAULT_LOOK[lang]
    assert look(page) == expected
    assert page.input_value("#theme-select") == expected
    assert remembered(page) is None  # a default is not a choice
    # Mocha hosts the candy table's start screen, and only that one.
    host = page.locator("#mocha-host")
    assert host.is_visible() == (expected == "candy")
    if expected == "candy":
        assert host.inner_text() == strings(lang)["candy"]["welcome"]
        loaded = "img => img.complete && img.naturalWidth > 0"
        assert page.eval_on_selector("#mocha-host img", loaded)
    shot(page, f"look-start-{lang}-{expected}")


def test_the_choice_is_remembered_in_every_language(open_page: Any) -> None:
    page = open_page(DESKTOP, locale="zh-CN")
    wait_screen(page, "start")
    assert look(page) == "candy"
    # Never chosen: the look follows the language.
    switch_language(page, "ru")
    assert look(page) == "classic" and page.input_value("#theme-select") == "classic"
    switch_language(page, "ja")
    assert look(page) == "candy"
    # Chosen: it stays, in any language and after a reload.
    page.select_option("#theme-select", "classic")
    assert look(page) == "classic" and remembered(page) == '"classic"'
    switch_language(page, "zh")
    assert look(page) == "classic"
    page.reload()
    wait_screen(page, "start")
    assert look(page) == "classic" and page.input_value("#theme-select") == "classic"
    assert not page.is_visible("#mocha-host")
    # The candy table in English, remembered too.
    switch_language(page, "en")
    page.select_option("#theme-select", "candy")
    page.reload()
    wait_screen(page, "start")
    assert look(page) == "candy" and page.is_visible("#mocha-host")
    assert page.inner_text("#mocha-host") == strings("en")["candy"]["welcome"]
    # The how-to page follows the choice.
    page.goto(page.url.split("?")[0] + "howto/ru.html")
    page.wait_for_function("document.documentElement.dataset.theme === 'candy'")


@pytest.mark.parametrize(("saved", "expected"), [("midnight", "midnight"), ("classic", "candy")])
def test_a_theme_kept_before_the_candy_table(open_page: Any, saved: str, expected: str) -> None:
    """The old "kozyr.theme" was written on every visit: "midnight" there was
    picked and is kept; "classic" may have been a default, so Japanese gets its
    candy table."""
    page = open_page(PHONE, locale="ja-JP")
    wait_screen(page, "start")
    page.evaluate(
        "(v) => { localStorage.clear(); localStorage.setItem('kozyr.theme', JSON.stringify(v)); }",
        saved,
    )
    page.reload()
    wait_screen(page, "start")
    assert look(page) == expected
    assert page.evaluate("localStorage.getItem('kozyr.theme')") is None
    assert remembered(page) == (json.dumps(saved) if saved == "midnight" else None)


# ------------------------------------------------------------------ Mocha in the seats
MOCHA_SEATS = """() => Array.from(document.querySelectorAll('.opp')).map((seat) => {
    const img = seat.querySelector('.avatar.mocha img');
    const box = img ? img.getBoundingClientRect() : null;
    return {
        label: seat.getAttribute('aria-label'),
        mocha: Boolean(img && img.complete && img.naturalWidth > 0 && box.width >= 16),
        robot: Boolean(seat.querySelector('.avatar.bot .icon-robot')),
    };
})"""


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_mocha_plays_the_computer_at_the_candy_table(open_page: Any, size: str) -> None:
    """A real game against three bots in Japanese: the seats are Mocha's
    (named "モカ", "モカ2", "モカ3", with the portrait, on a phone too); the
    classic table, picked during the game, has its bots back."""
    page = open_page(PHONE if size == "phone" else DESKTOP, locale="ja-JP")
    start_vs_computer(page, bots=3, deck="36")
    wait_turn(page)
    ja = strings("ja")
    mochas = [ja["candy"]["mocha"], *(ja["candy"]["mochaN"].format(n=n) for n in (2, 3))]
    assert opponent_names(page) == mochas
    seats = page.evaluate(MOCHA_SEATS)
    assert all(s["mocha"] and not s["robot"] for s in seats), seats
    assert [s["label"].split("、")[0].split(",")[0] for s in seats] == mochas
    # The status line names Mocha too when a bot is to move or takes.
    shot(page, f"look-candy-table-ja-{size}")

    page.select_option("#theme-select", "classic")
    bots = [ja["table"]["botName"].format(n=n) for n in (2, 3, 4)]
    assert opponent_names(page) == bots
    seats = page.evaluate(MOCHA_SEATS)
    shown = page.is_visible(".opp .avatar.bot")
    assert not any(s["mocha"] for s in seats)
    assert all(s["robot"] for s in seats) and shown == (size == "desktop"), seats
    shot(page, f"look-classic-table-ja-{size}")


def test_mocha_in_a_table_with_people_and_in_english(open_page: Any) -> None:
    """Bots among people: only the computer's seats are Mocha's ("Mocha",
    "Mocha 2" in seat order); the people keep their names. The classic table
    names the same seats by their numbers ("Bot 3", "Bot 6")."""
    page = open_page(DESKTOP)
    wait_connected(page)
    page.select_option("#theme-select", "candy")
    room = six_room()  # people in seats 1, 2, 4, 5 of 6; bots in 3 and 6
    view = {
        "hand": ["6D", "8C"],
        "hand_counts": [2, 5, 5, 5, 5, 5],
        "known": [[], [], [], [], [], []],
        "table": [],
        "phase": "lead",
        "attacker": 0,
        "defender": 1,
        "round_attacker": 0,
    }
    frame = frame_of(view, [{"type": "attack", "cards": ["6D"]}])
    page.evaluate(DRAW_FRAME, [frame, room])
    assert opponent_names(page) == ["Konstantinos", "Mocha", "Александрина", "翔太", "Mocha 2"]
    seats = page.evaluate(MOCHA_SEATS)
    assert [s["mocha"] for s in seats] == [False, True, False, False, True], seats
    shot(page, "look-candy-6-players-en")
    page.select_option("#theme-select", "classic")
    page.evaluate(DRAW_FRAME, [frame, room])  # a drawn frame is not the app's: drawn again
    assert opponent_names(page) == ["Konstantinos", "Bot 3", "Александрина", "翔太", "Bot 6"]
    assert not any(s["mocha"] for s in page.evaluate(MOCHA_SEATS))


# ------------------------------------------------------------------ contrast
#: Every face-up card on the table screen and every card chip: the contrast of
#: each rank and suit (its computed fill) against the face it is drawn on (a
#: court card's frame too), and of a chip's text and suit against the chip.
CONTRAST = """() => {
    const rgb = (s) => {
        const m = String(s).match(/rgba?\\(([^)]+)\\)/);
        if (!m) return null;
        const [r, g, b, a] = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
        return {r, g, b, a: a === undefined ? 1 : a};
    };
    const lum = ({r, g, b}) => {
        const lin = (c) => {
            const v = c / 255;
            return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
        };
        return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
    };
    const ratio = (a, b) => {
        const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
        return (hi + 0.05) / (lo + 0.05);
    };
    const results = [];
    const check = (what, fg, bg) => {
        const f = rgb(fg);
        const b = rgb(bg);
        if (!f || !b || f.a < 1 || b.a < 1) {
            results.push({what, ratio: 0, fg, bg});
            return;
        }
        results.push({what, ratio: Math.round(ratio(f, b) * 100) / 100, fg, bg});
    };
    for (const svg of document.querySelectorAll('#screen-table .card-svg:not(.back)')) {
        const suit = Array.from(svg.classList).find((c) => /^suit-[SCDH]$/.test(c)) || 'suit-?';
        const name = svg.querySelector('.idx').textContent + suit.slice(5);
        const backs = [getComputedStyle(svg.querySelector('.card-face')).fill];
        const frame = svg.querySelector('.court-frame');
        if (frame) backs.push(getComputedStyle(frame).fill);
        for (const part of svg.querySelectorAll('.ink text, .ink use')) {
            const kind = part.tagName === 'text' ? 'rank' : 'suit';
            for (const bg of backs) check(`${name} ${kind}`, getComputedStyle(part).fill, bg);
        }
    }
    for (const chip of document.querySelectorAll('#screen-table .card-label')) {
        const css = getComputedStyle(chip);
        check(`chip ${chip.textContent} rank`, css.color, css.backgroundColor);
        const icon = chip.querySelector('.suit-icon');
        if (icon) {
            const fill = getComputedStyle(icon).fill;
            check(`chip ${chip.textContent} suit`, fill, css.backgroundColor);
        }
    }
    return results;
}"""

#: Every suit in every kind of card: pips, aces, court cards, in hand, on the
#: table, as the trump and as known cards (chips) of an opponent.
CONTRAST_VIEW = {
    "hand": ["6H", "TD", "JS", "QC", "KH", "AD", "7S", "9C", "QD", "AS"],
    "hand_counts": [10, 5, 5],
    "known": [[], ["QH", "8S"], ["KC", "JD"]],
    "table": [{"attack": "8H", "defense": "JH"}, {"attack": "KS", "defense": None}],
    "trump": "AC",
    "phase": "defend",
    "attacker": 1,
    "defender": 0,
    "round_attacker": 1,
}


def contrast_problems(page: Any) -> tuple[list[str], int]:
    results = page.evaluate(CONTRAST)
    bad = [
        f"{r['what']}: {r['ratio']}:1 ({r['fg']} on {r['bg']})"
        for r in results
        if r["ratio"] < MIN_CONTRAST
    ]
    return bad, len(results)


def draw_contrast_table(page: Any) -> None:
    legal = [{"type": "take"}, {"type": "defend", "card": "AS", "target": "KS"}]
    page.evaluate(DRAW_FRAME, [frame_of(CONTRAST_VIEW, legal), CHOICE_ROOM])


@pytest.mark.parametrize("look_name", LOOKS)
def test_ranks_and_suits_stay_readable(open_page: Any, look_name: str) -> None:
    page = open_page(DESKTOP)
    wait_connected(page)
    page.select_option("#theme-select", look_name)
    draw_contrast_table(page)
    problems, checked = contrast_problems(page)
    # 13 face-up cards (10 in hand, 3 on the table) + the trump, 2 parts each
    # at least, and 4 chips: the check saw them all.
    assert checked >= 14 * 2 * 2 + 4 * 2, checked
    assert not problems, f"{look_name}:\n" + "\n".join(problems)
    shot(page, f"look-contrast-{look_name}")


def test_the_contrast_check_sees_a_pale_suit(open_page: Any) -> None:
    """Not blind: pale candy hearts and a chip's grey text are reported."""
    page = open_page(DESKTOP)
    wait_connected(page)
    page.select_option("#theme-select", "candy")
    pale = ":root { --suit-H: #ff9ccf !important; } .card-label { color: #bbb !important; }"
    page.add_style_tag(content=pale)
    draw_contrast_table(page)
    problems, _ = contrast_problems(page)
    text = "\n".join(problems)
    assert "KH rank" in text and "6H suit" in text and "chip" in text, text
    assert not any(p.startswith(("JS ", "10D ", "QC ")) for p in problems), text
