"""Issue 14, defect 10 ("Smaller"): labels that fit, language-following default
names, bot names, a lock icon without an emoji font, the attack limit explained."""

from __future__ import annotations

from typing import Any

import pytest

from .helpers import wait_screen
from .test_client import CHOICE_FRAME, CHOICE_ROOM, DRAW_FRAME
from .test_layout_audit import LOCALES, PHONES, TWO_ROOM, VIEWPORTS, audit, defend_take

#: Every choice of every visible select, measured in the select's own font: its
#: text must fit between the paddings and the arrow (about 20 px in Chromium).
SELECTS_FIT = """() => {
    const out = [];
    const ctx = document.createElement('canvas').getContext('2d');
    for (const s of document.querySelectorAll('select')) {
        if (!s.getClientRects().length) continue;
        const cs = getComputedStyle(s);
        ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
        const room = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 20;
        for (const o of s.options) {
            const w = ctx.measureText(o.textContent).width;
            if (w > room) {
                const text = `"${o.textContent}" is ${Math.round(w)} px`;
                out.push(`#${s.id}: ${text} in ${Math.round(room)}`);
            }
        }
    }
    return out;
}"""


@pytest.mark.parametrize("lang", list(LOCALES))
@pytest.mark.parametrize("key", PHONES)
def test_no_select_cuts_its_text_on_phones(open_page: Any, key: str, lang: str) -> None:
    """The choices "Auto (now level 3)", "Everyone for themselves" and the others of
    the start forms and the top bar are shown whole on a phone."""
    page = open_page(VIEWPORTS[key], locale=LOCALES[lang])
    wait_screen(page, "start")
    problems: list[str] = []
    for tab in ("computer", "online", "pnp"):
        page.click(f"#tab-{tab}")
        page.evaluate("document.querySelectorAll('details.rules').forEach((d) => (d.open = true))")
        if tab == "online":
            page.check('#panel-online input[value="private"]')
        problems += [f"{tab}: {p}" for p in page.evaluate(SELECTS_FIT)]
        problems += audit(page, f"{lang}-selects-{tab}", key, scrolls=True)
    assert not problems, "\n".join(problems)


BADGES = """() => {
    const size = (sel) => {
        const r = document.querySelector(sel).getBoundingClientRect();
        return {text: document.querySelector(sel).textContent, height: Math.round(r.height)};
    };
    return {deck: size('.deck-count'), discard: size('.discard-count')};
}"""


@pytest.mark.parametrize("lang", list(LOCALES))
def test_empty_deck_badge_is_one_line(open_page: Any, lang: str) -> None:
    """The Japanese "なし" (empty deck) broke into two lines on a phone: the
    badge is as tall as the one-line discard badge beside it."""
    page = open_page(VIEWPORTS["phone-360x740"], locale=LOCALES[lang])
    wait_screen(page, "start")
    frame = defend_take()
    frame["view"]["deck"] = 0
    page.evaluate(DRAW_FRAME, [frame, TWO_ROOM])
    badges = page.evaluate(BADGES)
    assert badges["deck"]["text"] == {"en": "empty", "ru": "пусто", "ja": "なし"}[lang]
    assert abs(badges["deck"]["height"] - badges["discard"]["height"]) <= 4, badges
    assert not audit(page, f"{lang}-empty-deck", "phone-360x740")


def test_attack_limit_is_explained(open_page: Any) -> None:
    """The bare "1 / 6" by the table is the round's attack limit: it says so,
    in words, in a tooltip and to a screen reader."""
    page = open_page(VIEWPORTS["phone-360x740"], locale="ru-RU")
    wait_screen(page, "start")
    page.evaluate(DRAW_FRAME, [defend_take(), TWO_ROOM])
    limit = page.locator("#battle .limit")
    assert limit.text_content() == "Атак 1/5"
    assert limit.get_attribute("title") == "1 из не более чем 5 карт атаки"
    assert limit.get_attribute("aria-label") == limit.get_attribute("title")


#: Emoji and pictographs a browser without an emoji font shows as boxes (the
#: card suits ♠♥♦♣ are ordinary text).
NO_EMOJI = """() => Array.from(document.body.innerText)
    .filter((c) => /\\p{Extended_Pictographic}/u.test(c) && !'♠♥♦♣'.includes(c))"""


def test_passphrase_lock_is_an_icon_not_an_emoji(open_page: Any) -> None:
    """The room's "🔒 passphrase" showed a box without an emoji font: the lock
    is an inline SVG, and no emoji is left on the start or room screen."""
    page = open_page(VIEWPORTS["phone-360x740"], locale="ja-JP")
    wait_screen(page, "start")
    assert page.evaluate(NO_EMOJI) == []
    page.click("#tab-online")
    page.check('#panel-online input[value="private"]')
    page.fill("#on-pass", "sesame")
    page.click("#panel-online button[type=submit]")
    wait_screen(page, "room")
    sub = page.locator("#room-sub")
    assert sub.locator("svg.lock-icon").count() == 1
    assert (sub.text_content() or "").endswith(" · 合言葉あり")
    assert page.evaluate(NO_EMOJI) == []
    assert not audit(page, "ja-room-passphrase", "phone-360x740", scrolls=True)


def test_made_up_names_follow_the_language(open_page: Any) -> None:
    """ "Guest1234" and "Player 1" are made up by the client: they follow the
    language (the number stays); a name the user typed never changes."""
    page = open_page(VIEWPORTS["phone-390x844"], locale="en-US")
    wait_screen(page, "start")
    guest = page.input_value("#player-name")
    assert guest.startswith("Guest") and guest[5:].isdigit()
    page.click("#tab-pnp")
    page.select_option("#pnp-count", "3")
    page.fill("#pnp-name-1", "Masha")
    page.select_option("#lang-select", "ru")
    page.wait_for_function("document.documentElement.lang === 'ru'")
    assert page.input_value("#player-name") == f"Гость{guest[5:]}"
    names = [page.input_value(f"#pnp-name-{i}") for i in range(3)]
    assert names == ["Игрок 1", "Masha", "Игрок 3"]
    # Reloaded in Russian, the made-up name is still made up.
    page.reload()
    wait_screen(page, "start")
    assert page.input_value("#player-name") == f"Гость{guest[5:]}"
    page.fill("#player-name", "Vera")
    page.dispatch_event("#player-name", "change")
    page.select_option("#lang-select", "ja")
    page.wait_for_function("document.documentElement.lang === 'ja'")
    assert page.input_value("#player-name") == "Vera"
    page.reload()
    wait_screen(page, "start")
    assert page.input_value("#player-name") == "Vera"
    assert page.input_value("#pnp-name-0") == "プレイヤー1"


def opponent_names(page: Any, frame: Any, room: Any) -> list[str]:
    page.evaluate(DRAW_FRAME, [frame, room])
    return list(page.eval_on_selector_all(".opp .opp-name", "els => els.map(e => e.textContent)"))


def test_a_single_bot_is_called_bot(open_page: Any) -> None:
    """With one bot it was called "Bot 2" (its seat): now "Bot" ("Бот"); with
    several they keep their seat numbers. (The server names no bot: the client does.)"""
    page = open_page(VIEWPORTS["phone-390x844"], locale="ru-RU")
    wait_screen(page, "start")
    vera, _, bot = CHOICE_ROOM["seats"]
    one_bot = {**TWO_ROOM, "seats": [vera, {**bot, "seat": 1}]}
    assert opponent_names(page, defend_take(), one_bot) == ["Бот"]
    two_bots = {**CHOICE_ROOM, "seats": [vera, {**bot, "seat": 1}, bot]}
    assert opponent_names(page, CHOICE_FRAME, two_bots) == ["Бот 2", "Бот 3"]
