"""Learning the game (issue 25, section 8): the guided first game, the in-game
help, the how-to pages with their diagrams and a section for every option, and
a rules box that looks openable.

The guide's tips are checked on drawn frames (one per situation: lead, cover,
take, throw in, done, transfer), on phones and a desktop, with bounding boxes:
a tip never covers the cards or the button it talks about. A real guided game
against the level-1 computer is played to its end on a phone.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from kozyr.engine.rules import Rules

from .helpers import (
    DESKTOP,
    assert_tappable,
    make_move,
    shot,
    wait_connected,
    wait_screen,
    wait_turn,
)
from .test_client import CHOICE_FRAME

STATIC = Path(__file__).resolve().parents[2] / "src" / "kozyr" / "web" / "static"
LANGS = {"en": "en-US", "ru": "ru-RU", "zh": "zh-CN", "ja": "ja-JP"}
PHONE_360 = {"width": 360, "height": 740}
PHONE_390 = {"width": 390, "height": 844}
LANDSCAPE = {"width": 844, "height": 390}
#: Phones and a desktop: where the tips and the help button are checked.
SIZES = {"phone-360": PHONE_360, "phone-390": PHONE_390, "landscape": LANDSCAPE, "desktop": DESKTOP}
#: The options of the rules form (js/rules.js): every one has a how-to section.
FORM_OPTIONS = [name for name in Rules.options() if name != "players"]


def strings(lang: str) -> Any:
    return json.loads((STATIC / "i18n" / f"{lang}.json").read_text())


EN = strings("en")


# ------------------------------------------------------------------ drawn frames
GUIDE_ROOM: dict[str, Any] = {
    "code": "guidetestroom",
    "invite": "",
    "state": "playing",
    "host": 0,
    "host_name": "Vera",
    "rules": {"players": 2, "deck": 36, "variant": "perevodnoy", "teams": "none"},
    "move_time": None,
    "visibility": "private",
    "has_passphrase": False,
    "bot_level": 1,
    "seats": [
        {
            "seat": 0,
            "name": "Vera",
            "bot": None,
            "human": True,
            "connected": True,
            "away": False,
            "host": True,
        },
        {
            "seat": 1,
            "name": None,
            "bot": 1,
            "human": False,
            "connected": False,
            "away": False,
            "host": False,
        },
    ],
    "spectators": [],
    "game": 1,
    "version": 0,
}


def frame(
    version: int,
    phase: str,
    hand: list[str],
    table: list[tuple[str, str | None]],
    legal: list[dict[str, Any]],
    *,
    me_attack: bool,
    taking: bool = False,
    to_move: int = 0,
) -> dict[str, Any]:
    """A `game` frame for seat 0 of GUIDE_ROOM (trump clubs, 18 cards in the deck)."""
    view = {
        **CHOICE_FRAME["view"],
        "hand": hand,
        "hand_counts": [len(hand), 6],
        "known": [[], []],
        "deck": 18,
        "trump": "AC",
        "table": [{"attack": a, "defense": d} for a, d in table],
        "discard": 0,
        "phase": phase,
        "attacker": 0 if me_attack else 1,
        "defender": 1 if me_attack else 0,
        "round_attacker": 0 if me_attack else 1,
        "to_move": to_move,
        "limit": 6,
        "taking": taking,
    }
    return {
        **CHOICE_FRAME,
        "game": 1,
        "version": version,
        "to_move": to_move,
        "view": view,
        "legal": [{"seat": 0, **a} for a in legal] if to_move == 0 else [],
    }


HAND = ["6D", "9S", "JH", "QC", "KD", "AH"]


def lead_frame(v: int) -> Any:
    return frame(
        v, "lead", HAND, [], [{"type": "attack", "cards": [c]} for c in HAND], me_attack=True
    )


def defend_frame(v: int) -> Any:
    """Bot leads 8S: 9S and the trump QC cover it; or take."""
    legal = [
        {"type": "defend", "card": "9S", "target": "8S"},
        {"type": "defend", "card": "QC", "target": "8S"},
        {"type": "take"},
    ]
    return frame(v, "defend", HAND, [("8S", None)], legal, me_attack=False)


def transfer_frame(v: int) -> Any:
    """Bot leads 6S; the 6D in hand may transfer it."""
    legal: list[dict[str, Any]] = [
        {"type": "defend", "card": "9S", "target": "6S"},
        {"type": "defend", "card": "QC", "target": "6S"},
        {"type": "take"},
        {"type": "transfer", "cards": ["6D"]},
    ]
    return frame(v, "defend", HAND, [("6S", None)], legal, me_attack=False)


def throw_frame(v: int, taking: bool = False) -> Any:
    """You led 9S, it was covered with JS: throw in 9-something or JH, or Done."""
    hand = ["6D", "9H", "JH", "QC", "KD"]
    legal: list[dict[str, Any]] = [
        {"type": "throw", "cards": ["9H"]},
        {"type": "throw", "cards": ["JH"]},
        {"type": "pass"},
    ]
    return frame(v, "throw", hand, [("9S", "JS")], legal, me_attack=True, taking=taking)


def waiting_frame(v: int) -> Any:
    """The bot is to lead against you."""
    return frame(v, "lead", HAND, [], [], me_attack=False, to_move=1)


SHOW = """([frame, room]) => {
    const k = window.kozyr;
    k.state.room = room;
    k.show("table");
    k.table.render({frame, room, event: null, receivedAt: performance.now(), hidden: false});
}"""

#: The parts of the table each tip talks about (what it must never cover).
TARGETS = {
    "intro": ["#deck"],
    "attack": ["#hand .hcard.playable"],
    "defend": ["#battle .pair", "#hand .hcard.playable"],
    "take": ["#battle .pair", '#actions [data-action="take"]'],
    # and the cards that can transfer (from the frame: see targets()).
    "transfer": ["#battle .pair", '#actions [data-action="transfer"]'],
    "throw": ["#battle .pair", "#hand .hcard.playable"],
    "pass": ['#actions [data-action="pass"]'],
}

TIP_CHECK = """(selectors) => {
    const tip = document.querySelector('#guide-tip');
    if (!tip || tip.hidden) return {shown: false};
    const t = tip.getBoundingClientRect();
    const vw = document.documentElement.clientWidth, vh = window.innerHeight;
    const problems = [];
    if (t.left < -0.5 || t.top < -0.5 || t.right > vw + 0.5 || t.bottom > vh + 0.5) {
        problems.push(`tip off screen: ${[t.left, t.top, t.right, t.bottom].map(Math.round)}`);
    }
    let count = 0;
    for (const sel of selectors) {
        const els = Array.from(document.querySelectorAll(sel))
            .filter((e) => e.getClientRects().length);
        if (!els.length) problems.push(`no ${sel} on the table`);
        for (const el of els) {
            count += 1;
            const r = el.getBoundingClientRect();
            const w = Math.min(r.right, t.right) - Math.max(r.left, t.left);
            const h = Math.min(r.bottom, t.bottom) - Math.max(r.top, t.top);
            const what = el.dataset.card || el.dataset.action || '';
            if (w > 0.5 && h > 0.5) {
                problems.push(`tip covers ${sel} (${what}) by ${Math.round(w)}x${Math.round(h)}`);
            }
        }
    }
    return {shown: true, kind: tip.dataset.kind, problems, count,
            text: tip.querySelector('.guide-text').textContent};
}"""


def tip(page: Any) -> Any:
    page.evaluate(
        "() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)))"
    )
    kind = page.evaluate(
        "(() => { const t = document.querySelector('#guide-tip');"
        " return t && !t.hidden ? t.dataset.kind : null; })()"
    )
    if kind is None:
        return {"shown": False}
    return page.evaluate(TIP_CHECK, targets(page, kind))


def targets(page: Any, kind: str) -> list[str]:
    """What the tip of ``kind`` must not cover, on the table shown now."""
    found = list(TARGETS[kind])
    if kind == "transfer":
        legal = page.evaluate("window.kozyr.table.ctx.frame.legal")
        cards = {c for a in legal if a["type"] == "transfer" for c in a["cards"]}
        found += [f'#hand [data-card="{c}"]' for c in sorted(cards)]
    return found


def expect_tip(page: Any, kind: str, name: str) -> None:
    info = tip(page)
    assert info["shown"], f"no tip; expected {kind}"
    assert info["kind"] == kind, (info["kind"], kind)
    assert not info["problems"], (name, info["problems"])
    assert info["text"].strip()
    shot(page, f"learn-tip-{name}")


def got_it(page: Any) -> None:
    page.click("#guide-tip [data-action=guide-ok]")


def follow_guide(page: Any) -> None:
    """As if this page had just created GUIDE_ROOM as a guided game."""
    page.evaluate("(code) => window.kozyr.guide.follow(code)", GUIDE_ROOM["code"])


# ------------------------------------------------------------------ the guided game: tips
@pytest.mark.parametrize("size", list(SIZES))
def test_guide_tips_each_situation_once_never_covering_their_cards(
    open_page: Any, size: str
) -> None:
    page = open_page(SIZES[size])
    page.emulate_media(reduced_motion="reduce")
    wait_connected(page)
    follow_guide(page)
    v = 10
    # The first frame: the intro (aim, trumps: points at the deck), then the lead.
    page.evaluate(SHOW, [lead_frame(v), GUIDE_ROOM])
    expect_tip(page, "intro", f"intro-{size}")
    got_it(page)
    expect_tip(page, "attack", f"attack-{size}")
    got_it(page)
    assert not tip(page)["shown"]
    # While the bot moves there is nothing to say.
    v += 1
    page.evaluate(SHOW, [waiting_frame(v), GUIDE_ROOM])
    assert not tip(page)["shown"]
    # Defending: cover, then take (both new in this situation).
    v += 1
    page.evaluate(SHOW, [defend_frame(v), GUIDE_ROOM])
    expect_tip(page, "defend", f"defend-{size}")
    got_it(page)
    expect_tip(page, "take", f"take-{size}")
    got_it(page)
    assert not tip(page)["shown"]
    # A card of the attack's rank: the transfer.
    v += 1
    page.evaluate(SHOW, [transfer_frame(v), GUIDE_ROOM])
    expect_tip(page, "transfer", f"transfer-{size}")
    # A move takes the tip away, without "Got it".
    v += 1
    page.evaluate(SHOW, [throw_frame(v), GUIDE_ROOM])
    expect_tip(page, "throw", f"throw-{size}")
    got_it(page)
    expect_tip(page, "pass", f"done-{size}")
    assert page.locator("#guide-tip").inner_text().count(EN["table"]["done"]) >= 1
    got_it(page)
    # Each situation is explained once.
    for make in (lead_frame, defend_frame, transfer_frame, throw_frame):
        v += 1
        page.evaluate(SHOW, [make(v), GUIDE_ROOM])
        assert not tip(page)["shown"], make.__name__
    # The guide remembers what it showed (a reload does not repeat it).
    seen = page.evaluate("JSON.parse(localStorage.getItem('kozyr.guideGame')).seen")
    assert set(seen) == {"intro", "attack", "defend", "take", "transfer", "throw", "pass"}


def test_no_tips_outside_the_guided_game(open_page: Any) -> None:
    page = open_page(PHONE_390)
    wait_connected(page)
    page.evaluate(SHOW, [lead_frame(3), GUIDE_ROOM])  # not followed: an ordinary game
    assert not tip(page)["shown"]


@pytest.mark.parametrize("lang", ["ru", "ja"])
def test_tips_in_other_languages_fit_a_small_phone(open_page: Any, lang: str) -> None:
    page = open_page(PHONE_360, locale=LANGS[lang])
    page.emulate_media(reduced_motion="reduce")
    wait_connected(page)
    follow_guide(page)
    page.evaluate(SHOW, [defend_frame(5), GUIDE_ROOM])
    expect_tip(page, "intro", f"intro-{lang}-360")
    got_it(page)
    expect_tip(page, "defend", f"defend-{lang}-360")
    text = page.inner_text("#guide-tip")
    assert strings(lang)["guide"]["skip"] in text
    got_it(page)
    expect_tip(page, "take", f"take-{lang}-360")
    assert strings(lang)["table"]["take"] in page.inner_text("#guide-tip")


# ------------------------------------------------------------------ offered, skipped, replayed
def test_first_visit_offers_the_guided_game_and_no_thanks_is_remembered(open_page: Any) -> None:
    page = open_page(PHONE_390)
    wait_screen(page, "start")
    offer = page.locator("#guide-offer")
    assert offer.is_visible()
    assert EN["guide"]["offerPlay"] in offer.inner_text()
    shot(page, "learn-offer-390")
    page.click("#guide-offer [data-action=guide-no]")
    assert not offer.is_visible()
    assert page.evaluate("localStorage.getItem('kozyr.guide')") == '"skipped"'
    page.reload()
    wait_screen(page, "start")
    assert not page.locator("#guide-offer").is_visible()
    # It can still be played: the link beside How to play.
    assert page.locator("#guide-link").is_visible()


def test_a_real_guided_game_on_a_phone(open_page: Any) -> None:
    """The offer starts a game against one level-1 computer (perevodnoy, so that
    a transfer can come up); tips come as situations do; at the end the guide is
    done and is not offered again."""
    page = open_page(PHONE_390)
    wait_screen(page, "start")
    page.click("#guide-offer [data-action=guide-play]")
    wait_screen(page, "table")
    room = page.evaluate("window.kozyr.state.room")
    assert [s["bot"] for s in room["seats"]] == [None, 1]
    assert room["rules"]["variant"] == "perevodnoy" and room["move_time"] is None
    assert room["rules"]["deck"] == 36
    shown: list[str] = []
    moves = 0
    t0 = time.monotonic()
    while time.monotonic() - t0 < 150:
        state = wait_turn(page, timeout=30)
        if state == "over":
            break
        time.sleep(0.6)  # a tip waits for the last move's cards to land
        while True:  # every tip of this moment, read and checked, then dismissed
            info = tip(page)
            if not info["shown"]:
                break
            assert not info["problems"], (info["kind"], info["problems"])
            legal = {a["type"] for a in page.evaluate("window.kozyr.table.ctx.frame.legal")}
            kind = info["kind"]
            assert kind == "intro" or kind in legal, (kind, legal)
            if kind not in shown:
                shot(page, f"learn-real-{len(shown):02d}-{kind}")
            shown.append(kind)
            got_it(page)
        moves += 1
        make_move(page, moves)
    else:
        raise AssertionError(f"the guided game did not end ({moves} moves, tips {shown})")
    print("guided game:", moves, "moves; tips", shown)
    assert shown[0] == "intro" and len(shown) == len(set(shown)), shown
    assert {"attack", "defend"} <= set(shown), shown
    assert page.evaluate("localStorage.getItem('kozyr.guide')") == '"done"'
    page.click("#result [data-action=leave]")
    wait_screen(page, "start")
    assert not page.locator("#guide-offer").is_visible()


def test_skip_the_guide_then_replay_it_from_help(open_page: Any) -> None:
    page = open_page(PHONE_360)
    wait_screen(page, "start")
    page.click("#guide-link")
    wait_screen(page, "table")
    page.wait_for_selector("#guide-tip:not([hidden])")
    assert EN["guide"]["skip"] in page.inner_text("#guide-tip")
    page.click("#guide-tip [data-action=guide-skip]")
    assert not page.is_visible("#guide-tip")
    assert page.evaluate("localStorage.getItem('kozyr.guide')") == '"skipped"'
    code = page.evaluate("window.kozyr.state.room.code")
    # The game goes on without tips, a reload too.
    for n in range(1, 4):
        if wait_turn(page) != "turn":
            break
        make_move(page, n)
        assert not page.is_visible("#guide-tip")
    page.reload()
    wait_screen(page, "table")
    time.sleep(0.5)
    assert not page.is_visible("#guide-tip")
    # Help: replay the guided game (the game in progress is left: two taps).
    page.click("#help-open")
    replay = page.locator("#help [data-action=guide-replay]")
    assert replay.is_visible()
    replay.click()
    assert page.evaluate("window.kozyr.state.room.code") == code  # asked first
    assert EN["help"]["replayConfirm"] in replay.inner_text()
    replay.click()
    page.wait_for_function(
        "(c) => window.kozyr.state.room && window.kozyr.state.room.code !== c", arg=code
    )
    wait_screen(page, "table")
    page.wait_for_selector("#guide-tip:not([hidden])")
    assert page.locator("#guide-tip").get_attribute("data-kind") == "intro"
    shot(page, "learn-replayed-360")


def test_the_howto_page_starts_the_guided_game(open_page: Any) -> None:
    page = open_page(PHONE_390, path="howto/en.html")
    page.click("a.howto-guide")
    wait_screen(page, "table")
    page.wait_for_selector("#guide-tip:not([hidden])")
    assert "guide=" not in page.url  # a reload does not start another one


# ------------------------------------------------------------------ in-game help
def open_help(page: Any) -> None:
    page.click("#help-open")
    page.wait_for_selector("#help:not([hidden])")


@pytest.mark.parametrize("size", ["phone-360", "landscape", "desktop"])
def test_help_button_says_the_phase_what_you_may_do_and_the_rules(
    open_page: Any, size: str
) -> None:
    page = open_page(SIZES[size])
    wait_connected(page)
    page.evaluate(SHOW, [transfer_frame(4), GUIDE_ROOM])
    button = page.locator("#help-open")
    assert button.is_visible()
    assert_tappable(page, "#help-open", SIZES[size])
    # On a phone the keyboard list gives way to the help (it is inside the help).
    assert page.is_visible("#keys-open") == (size == "desktop")
    open_help(page)
    h = EN["help"]
    assert page.inner_text("#help-phase") == h["now"]["defendYou"].format(attacker="Bot")
    kinds = page.eval_on_selector_all("#help-moves li", "els => els.map((e) => e.dataset.kind)")
    assert kinds == ["defend", "take", "transfer"], kinds
    moves = page.inner_text("#help-moves")
    assert EN["table"]["take"] in moves and EN["table"]["transfer"] in moves
    rules = page.inner_text("#help-rules")
    assert EN["rules"]["values"]["variant"]["perevodnoy"] in rules
    assert page.get_attribute("#help a.help-howto", "href").endswith("howto/en.html")
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]
    dialog = page.locator("#help .dialog").bounding_box()
    assert (
        dialog
        and dialog["y"] >= 0
        and dialog["y"] + dialog["height"] <= SIZES[size]["height"] + 0.5
    )
    shot(page, f"learn-help-{size}")
    # It follows the game: the bot to move.
    page.evaluate(SHOW, [waiting_frame(5), GUIDE_ROOM])
    assert page.inner_text("#help-phase") == h["now"]["leadAtYou"].format(attacker="Bot")
    assert page.inner_text("#help-moves") == h["nothing"].format(name="Bot")
    # Escape closes it; the focus goes back to the button.
    page.keyboard.press("Escape")
    assert not page.is_visible("#help")
    assert page.evaluate("document.activeElement.id") == "help-open"
    # Throwing in, the moves named as the buttons are.
    page.evaluate(SHOW, [throw_frame(6), GUIDE_ROOM])
    open_help(page)
    assert page.inner_text("#help-phase") == h["now"]["throwYou"]
    kinds = page.eval_on_selector_all("#help-moves li", "els => els.map((e) => e.dataset.kind)")
    assert kinds == ["throw", "pass"], kinds
    assert EN["table"]["done"] in page.inner_text("#help-moves")
    page.click("#help [data-action=help-close]")
    assert not page.is_visible("#help")


def test_help_keyboard_shortcuts_are_inside_it(open_page: Any) -> None:
    page = open_page(PHONE_390)
    wait_connected(page)
    page.evaluate(SHOW, [defend_frame(4), GUIDE_ROOM])
    open_help(page)
    page.click("#help [data-action=help-keys]")
    assert page.is_visible("#keys-help") and not page.is_visible("#help")


@pytest.mark.parametrize("lang", ["ru", "zh"])
def test_help_in_other_languages(open_page: Any, lang: str) -> None:
    page = open_page(PHONE_360, locale=LANGS[lang])
    wait_connected(page)
    page.evaluate(SHOW, [defend_frame(4), GUIDE_ROOM])
    open_help(page)
    s = strings(lang)
    # Chinese starts at the candy table, where the computer is Mocha (issue 26).
    bot = s["candy"]["mocha"] if lang == "zh" else s["table"]["botOnly"]
    assert page.inner_text("#help-phase") == s["help"]["now"]["defendYou"].format(attacker=bot)
    assert s["table"]["take"] in page.inner_text("#help-moves")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    shot(page, f"learn-help-{lang}-360")


# ------------------------------------------------------------------ the rules box
@pytest.mark.parametrize("size", ["phone-360", "desktop"])
def test_the_rules_box_looks_openable_and_links_its_options(open_page: Any, size: str) -> None:
    page = open_page(SIZES[size])
    wait_screen(page, "start")
    summary = page.locator('.rules-slot[data-prefix="cpu"] summary')
    opener = summary.locator(".rules-open")
    assert opener.is_visible()
    assert EN["rules"]["change"] in opener.inner_text()
    chevron = summary.locator(".rules-chevron")
    assert chevron.is_visible()
    summary.scroll_into_view_if_needed()
    assert_tappable(page, '.rules-slot[data-prefix="cpu"] summary', SIZES[size])
    closed = chevron.evaluate("(el) => getComputedStyle(el).transform")
    shot(page, f"learn-rules-closed-{size}")
    summary.click()
    page.wait_for_timeout(400)
    opened = chevron.evaluate("(el) => getComputedStyle(el).transform")
    assert opened != closed, (opened, closed)
    # Every option links to its section of the how-to page; no rule numbers.
    slot = page.locator('.rules-slot[data-prefix="cpu"]')
    links = slot.locator("a.rule-about")
    hrefs = links.evaluate_all("(els) => els.map((a) => a.getAttribute('href'))")
    assert sorted(h.split("#")[1] for h in hrefs) == sorted(f"opt-{n}" for n in FORM_OPTIONS)
    assert all(h.startswith("howto/en.html#") for h in hrefs)
    assert links.first.get_attribute("target") == "_blank"
    text = slot.inner_text()
    assert not re.search(r"rule\s*\d", text, re.I), text
    shot(page, f"learn-rules-open-{size}")


@pytest.mark.parametrize("lang", list(LANGS))
def test_no_rule_numbers_in_the_rules_form(lang: str) -> None:
    rules = strings(lang)["rules"]
    flat = json.dumps(rules, ensure_ascii=False)
    assert not re.search(r"(rule|правил[оа]|规则|ルール)\s*\d", flat, re.I), flat


# ------------------------------------------------------------------ the how-to pages
@pytest.mark.parametrize("lang", list(LANGS))
def test_howto_explains_every_option_with_pictures(open_page: Any, lang: str) -> None:
    page = open_page(PHONE_360, locale=LANGS[lang], path=f"howto/{lang}.html")
    s = strings(lang)
    for name in FORM_OPTIONS:
        section = page.locator(f"#opt-{name}")
        assert section.count() == 1, (lang, name)
        heading = section.inner_text()
        label = s["rules"][name]
        assert label in heading, (lang, name, heading, label)
        body = page.evaluate(
            """(id) => { const h = document.getElementById(id); let text = '';
                for (let e = h.nextElementSibling; e && !/^H[23]$/.test(e.tagName);
                     e = e.nextElementSibling)
                    text += e.textContent; return text; }""",
            f"opt-{name}",
        )
        assert len(body) > 40, (lang, name, body)
    text = page.inner_text("article")
    assert not re.search(r"(rule|правил[оа]|规则|ルール)\s*\d", text, re.I)
    # The pictures: our own SVG files, loaded, described, and within a phone's width.
    page.wait_for_function("() => Array.from(document.images).every((i) => i.complete)")
    images = page.eval_on_selector_all(
        "article img",
        """(els) => els.map((img) => ({src: img.getAttribute('src'), alt: img.alt,
            loaded: img.naturalWidth > 0, right: img.getBoundingClientRect().right}))""",
    )
    assert len(images) >= 10, images
    for img in images:
        assert img["src"].endswith(".svg") and "/img/" in img["src"], img
        assert img["loaded"] and img["alt"].strip(), img
        assert img["right"] <= 360, img
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    # The guided game and the help are explained too.
    assert page.locator("a.howto-guide").count() == 1
    assert s["help"]["title"] in page.inner_text("h2#help")
    page.evaluate("window.scrollTo(0, document.getElementById('opt-teams').offsetTop - 10)")
    shot(page, f"learn-howto-{lang}-teams-360")


def test_every_form_link_has_its_section() -> None:
    """The links of the rules form land on a section in each language."""
    for lang in LANGS:
        html = (STATIC / "howto" / f"{lang}.html").read_text()
        for name in FORM_OPTIONS:
            assert f'id="opt-{name}"' in html, (lang, name)


def test_the_diagrams_are_language_neutral() -> None:
    """Cards and arrows: the only text in a diagram is a card's rank."""
    files = sorted((STATIC / "howto" / "img").glob("*.svg"))
    assert len(files) >= 10
    for path in files:
        svg = path.read_text()
        assert svg.lstrip().startswith("<svg") and "viewBox" in svg, path.name
        for text in re.findall(r"<text[^>]*>([^<]*)</text>", svg):
            assert re.fullmatch(r"(10|[2-9JQKA])?", text.strip()), (path.name, text)
        assert "<script" not in svg and 'href="http' not in svg, path.name
