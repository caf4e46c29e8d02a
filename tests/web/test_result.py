"""The result screen and pass & play's hand-offs (issue 14, defects 10 and 11).

* The result leads with *your* outcome (you won / you are the durak / draw; in
  pass & play the durak is named), then the finishing order from the server's
  ``places`` with the cards left, pogony with the last sixes, the Auto level's
  step, and confetti for a win (none with reduced motion): drawn ``game_over``
  frames in four languages and on a 360×740 phone, and a real game against an
  Auto bot.
* Pass & play: whole 2- and 3-player games played by a script (seeded choices,
  the server's random deal) through the privacy screen. They count the
  hand-offs against what the client did before (a hand-off whenever the seat to
  move changed), assert the bound of src/kozyr/web/README.md ("Pass and play:
  hand-offs") and check every "what happened" line against the game's record.
"""

from __future__ import annotations

import json
import random
import re
import time
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from .helpers import (
    DESKTOP,
    can_act,
    make_move,
    play_to_the_end,
    set_rules,
    shot,
    start_vs_computer,
    version,
    wait_connected,
    wait_screen,
    wait_turn,
)

PHONE_SMALL = {"width": 360, "height": 740}


def seat(n: int, name: str, **extra: Any) -> dict[str, Any]:
    return {
        "seat": n,
        "name": name,
        "bot": None,
        "human": True,
        "connected": True,
        "away": False,
        "host": n == 0,
        **extra,
    }


ROOM = {
    "code": "resultroom01",
    "invite": "",
    "state": "over",
    "host": 0,
    "host_name": "Anna",
    "rules": {"players": 3, "variant": "podkidnoy", "teams": "none"},
    "move_time": None,
    "visibility": "private",
    "has_passphrase": False,
    "bot_level": 3,
    "seats": [seat(0, "Anna"), seat(1, "Boris"), seat(2, "Vera")],
    "spectators": [],
    "game": 1,
    "version": 80,
}

#: Vera went out first, Anna second, Boris is the durak with five cards,
#: finished off with two sixes.
OVER = {
    "type": "game_over",
    "game": 1,
    "version": 80,
    "game_id": None,
    "result": {"durak": 1, "pogony": True},
    "durak": 1,
    "durak_name": "Boris",
    "pogony": True,
    "cards_left": [0, 5, 0],
    "places": [[2], [0], [1]],
    "record": None,
}
LAST_PLAY = {
    "type": "event",
    "game": 1,
    "version": 79,
    "seat": 0,
    "action": {"seat": 0, "type": "throw", "cards": ["6S", "6H"]},
    "by": "player",
    "round_end": None,
    "draws": None,
    "deck": 0,
    "accusation": None,
}

SHOW = """([over, room, you, mode, lastPlay, auto]) => {
    const k = window.kozyr;
    k.state.mode = mode;
    k.state.room = room;
    k.state.you = you;
    k.state.events.clear();
    k.state.log = [];
    if (lastPlay) { k.state.events.set(lastPlay.version, lastPlay); k.state.log.push(lastPlay); }
    localStorage.setItem('kozyr.autoLast', JSON.stringify(auto));
    k.show('table');
    k.fillResult(over);
    document.querySelector('#result').hidden = false;
}"""

READ = """() => ({
    title: document.querySelector('#result-title').textContent,
    sub: document.querySelector('#result-sub').textContent,
    pogony: document.querySelector('#result-pogony').hidden ? null
        : document.querySelector('#result-pogony .pogony-text').textContent,
    epaulettes: document.querySelectorAll('#result-pogony .epaulette').length,
    auto: document.querySelector('#result-auto').hidden ? null
        : document.querySelector('#result-auto').textContent,
    rows: Array.from(document.querySelectorAll('#result-rows tr')).map((tr) =>
        Array.from(tr.cells).map((td) => td.textContent)),
    confetti: document.querySelectorAll('#result-confetti i').length,
})"""

#: Nothing sideways, the dialog and its buttons inside the viewport and on top.
FITS = """() => {
    const bad = [];
    if (document.documentElement.scrollWidth > innerWidth) bad.push('page scrolls sideways');
    const d = document.querySelector('#result .dialog').getBoundingClientRect();
    const out = d.left < 0 || d.right > innerWidth || d.top < 0 || d.bottom > innerHeight;
    if (out) bad.push('dialog');
    for (const b of document.querySelectorAll('#result button')) {
        const r = b.getBoundingClientRect();
        if (r.left < 0 || r.right > innerWidth || r.bottom > innerHeight) bad.push(b.textContent);
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        if (!b.contains(hit)) bad.push('covered: ' + b.textContent);
        if (r.height < 44) bad.push('small: ' + b.textContent);
    }
    return bad;
}"""


def show(page: Any, you: int | None, mode: str = "online", **changes: Any) -> dict[str, Any]:
    over = {**OVER, **changes}
    auto = {"key": f"{ROOM['code']}:1", "from": 3, "to": 4}
    me = None if you is None else {"seat": you, "host": you == 0, "spectator": False}
    page.evaluate(SHOW, [over, ROOM, me, mode, LAST_PLAY, auto])
    result: dict[str, Any] = page.evaluate(READ)
    return result


def test_result_screen_outcome_first_order_pogony_auto_and_confetti(open_page: Any) -> None:
    page = open_page(PHONE_SMALL)
    wait_connected(page)

    # A win (Anna went out second of three): your outcome first, then the order.
    won = show(page, 0)
    shot(page, "result-win-360")
    assert won["title"] == "You won!"
    assert won["sub"] == "Boris is the durak · Your place: 2 of 3"
    assert won["rows"] == [["1", "Vera", "0"], ["2", "AnnaYou", "0"], ["—", "Borisdurak", "5"]]
    assert won["auto"] == "Auto: level 3 → 4"
    assert won["pogony"] == "Pogony! Boris was finished off with sixes (6♠\u00a06♥)"
    assert won["epaulettes"] == 2
    assert won["confetti"] > 0  # a small celebration
    assert page.evaluate(FITS) == []

    # A loss: you are the durak, wearing the pogony; who went out first is said.
    lost = show(page, 1)
    shot(page, "result-loss-360")
    assert lost["title"] == "You are the durak!"
    assert lost["sub"] == "Vera went out first"
    assert lost["pogony"] == "Pogony! You were finished off with sixes (6♠\u00a06♥)"
    assert lost["rows"][-1] == ["—", "BorisYoudurak", "5"]
    assert lost["confetti"] == 0
    assert page.evaluate(FITS) == []

    # A draw: the last two went out together and share a place.
    draw = show(
        page,
        2,
        result={"draw": True},
        durak=None,
        pogony=False,
        cards_left=[0, 0, 0],
        places=[[0], [1, 2]],
    )
    shot(page, "result-draw-360")
    assert draw["title"] == "Draw! Nobody is the durak."
    assert draw["rows"] == [["1", "Anna", "0"], ["2", "Boris", "0"], ["2", "VeraYou", "0"]]
    assert draw["pogony"] is None and draw["confetti"] == 0

    # Pass and play (nobody is "you"): the durak is named, then who went out first.
    shared = show(page, None, mode="pnp", places=[[0, 2], [1]], pogony=False)
    assert shared["title"] == "Boris is the durak"
    assert shared["sub"] == "Anna, Vera went out first together"
    assert [r[0] for r in shared["rows"]] == ["1", "1", "—"]
    assert shared["auto"] == "Auto: level 3 → 4"  # the key is this room's game

    # Four languages, on the small phone.
    for lang, title, place, auto in (
        ("ru", "Вы выиграли!", "Ваше место: 2 из 3", "Авто: уровень 3 → 4"),
        ("zh", "你赢了！", "你的名次：第 2 名（共 3 人）", "自动：等级 3 → 4"),
        ("ja", "あなたの勝ち！", "あなたの順位：3人中2位", "オート：レベル 3 → 4"),
    ):
        page.select_option("#lang-select", lang)
        page.wait_for_function(f"() => document.documentElement.lang.startsWith('{lang}')")
        seen = show(page, 0)
        assert seen["title"] == title and place in seen["sub"] and seen["auto"] == auto, seen
        assert seen["pogony"] and "Boris" in seen["pogony"]
        assert page.evaluate(FITS) == [], lang
        shot(page, f"result-win-360-{lang}")
    page.select_option("#lang-select", "en")

    # Reduced motion: no confetti.
    page.emulate_media(reduced_motion="reduce")
    assert show(page, 0)["confetti"] == 0


def test_a_real_game_against_auto_ends_on_the_result_with_the_ladder_step(
    open_page: Any,
) -> None:
    """A whole game against one Auto bot (a new player meets level 3): the
    result says the outcome first, the order with the cards left, and the
    Auto step that follows from the outcome; the focus is on its first button."""
    page = open_page(DESKTOP)
    start_vs_computer(page, bots=1, deck="24", level="auto")
    play_to_the_end(page, limit_s=240)
    page.wait_for_selector("#result:not([hidden])")
    time.sleep(1.2)
    shot(page, "result-real-auto")
    seen = page.evaluate(READ)
    over = page.evaluate("window.kozyr.state.over")
    step = {
        "You won!": "Auto: level 3 → 4",
        "You are the durak!": "Auto: level 3 → 2",
        "Draw! Nobody is the durak.": "Auto: level 3 stays",
    }
    assert seen["title"] in step, seen
    assert seen["auto"] == step[seen["title"]]
    assert len(seen["rows"]) == 2
    assert [int(r[2]) for r in seen["rows"]] == [
        over["cards_left"][s] for g in over["places"] for s in g
    ]
    if over["durak"] is not None:
        assert seen["rows"][0][0] == "1" and seen["rows"][0][2] == "0"
        assert seen["rows"][1][0] == "—" and "durak" in seen["rows"][1][1]
        me = page.evaluate("window.kozyr.state.you.seat")
        assert (seen["title"] == "You won!") == (over["durak"] != me)
    assert page.evaluate(
        "document.activeElement === document.querySelector('#result-actions button')"
    )


# ---------------------------------------------------------------- pass and play
CARD_TOKEN = re.compile(r"(10|[2-9JQKA])([♠♣♦♥])")
SUIT_OF = {"♠": "S", "♣": "C", "♦": "D", "♥": "H"}


def tokens_of(action: dict[str, Any]) -> list[str]:
    """The cards an action puts in running text, in the order the line names them."""
    cards = action.get("cards") or ([action["card"]] if action.get("card") else [])
    if action["type"] == "defend":
        return [action["target"], *cards]
    if action["type"] in ("attack", "throw", "transfer", "show_trump"):
        return list(cards)
    return []


def line_tokens(line: str) -> list[str]:
    return [("T" if r == "10" else r) + SUIT_OF[s] for r, s in CARD_TOKEN.findall(line)]


OLD_HANDOFFS = """() => {
    // The client before: a hand-off whenever the seat to move changed.
    const k = window.kozyr.state;
    const versions = Array.from(k.viewAt.keys()).sort((a, b) => a - b);
    let count = 0, last = null;
    for (const v of versions) {
        const m = k.viewAt.get(v).toMove;
        if (m !== null && m !== undefined && m !== last) { count++; last = m; }
    }
    return count;
}"""


def play_pnp(page: Any, names: list[str], seed: int, then_pass: float) -> dict[str, Any]:
    """Start a pass-and-play table and play it to the end by clicking. When a
    player may lead or throw in, they say "Then pass" with probability ``then_pass``."""
    rng = random.Random(seed)
    wait_screen(page, "start")
    page.click("#tab-pnp")
    page.select_option("#pnp-count", str(len(names)))
    for i, name in enumerate(names):
        page.fill(f"#pnp-name-{i}", name)
    set_rules(page, "pnp", deck="24")
    page.click("#panel-pnp button[type=submit]")
    wait_screen(page, "table")
    lines: list[tuple[str, int, str]] = []  # (who, version, what happened)
    toggles = 0
    t0 = time.monotonic()
    n = 0
    while True:
        assert time.monotonic() - t0 < 300, "the game did not end in 300 s"
        state = wait_turn(page, timeout=30)
        if state == "over":
            break
        if state == "privacy":
            who = page.inner_text("#privacy-title")
            line = page.inner_text("#privacy-last") if page.is_visible("#privacy-last") else ""
            lines.append((who, version(page), line))
            if len(lines) == 2:
                shot(page, "pnp-handoff-what-happened")
            page.click("#privacy-reveal")
            continue
        n += 1
        toggle = page.locator('#actions [data-action="then-pass"]')
        offered = toggle.count() and toggle.get_attribute("aria-pressed") == "false"
        if offered and rng.random() < then_pass:
            before = version(page)
            try:
                toggle.click(timeout=5_000)
            except PlaywrightTimeoutError:
                # A frame may land between wait_turn() and the click (the device
                # answers a "Then pass" by itself, as make_move knows): the bar
                # was redrawn for another turn. Only that is forgiven: a toggle
                # that cannot be clicked on a turn that stays is a defect.
                covered = page.is_visible("#privacy") or page.is_visible("#result")
                if version(page) == before and can_act(page) and not covered:
                    raise
                continue
            assert toggle.get_attribute("aria-pressed") == "true"
            toggles += 1
        make_move(page, n)
    page.wait_for_selector("#result:not([hidden])")
    over = page.evaluate("window.kozyr.state.over")
    stats = page.evaluate(
        """() => {
            const log = window.kozyr.state.log;
            return {
                after: window.kozyr.state.handoffs,
                moves: log.length,
                bito: log.filter((e) => e.round_end === 'bito').length,
                took: log.filter((e) => e.round_end === 'took').length,
            };
        }"""
    )
    before = page.evaluate(OLD_HANDOFFS)
    return {"lines": lines, "over": over, "before": before, "toggles": toggles, **stats}


def check_lines(page: Any, server_url: str, run: dict[str, Any], names: list[str]) -> int:
    """Every hand-off line names the moves just before it, as the record has them."""
    record = json.loads(
        page.evaluate(f"fetch('{server_url}{run['over']['record']}').then((r) => r.text())")
    )
    actions = record["actions"]
    base = record["meta"]["base_version"]
    filled = 0
    for i, (who, at, line) in enumerate(run["lines"]):
        played = actions[: at - base]
        if not played:
            assert line == "", line  # nothing happened yet
            continue
        assert line, f"hand-off {i} to {who} says nothing"
        filled += 1
        for part in line.split("; "):
            assert part == "…" or part == "bito" or any(part.startswith(nm) for nm in names), part
        # The cards named are the last cards played, in order (none invented,
        # none hidden: every one of them was put on the table).
        expected = [c for a in played for c in tokens_of(a)]
        named = line_tokens(line)
        assert named == expected[len(expected) - len(named) :], (line, expected[-12:])
        # The last move before the hand-off is named with its player.
        assert names[played[-1]["seat"]] in line, (line, played[-1])
    return filled


def report(run: dict[str, Any], players: int) -> None:
    print(
        f"\npass & play, {players} players: {run['moves']} moves, {run['bito']} bito +"
        f" {run['took']} taken rounds; hand-offs {run['before']} before -> {run['after']} now"
        f" ({run['toggles']} 'Then pass')"
    )
    for who, v, line in run["lines"]:
        print(f"  v{v} -> {who}: {line}")


def test_pass_and_play_two_players_fewer_handoffs(open_page: Any, server: Any) -> None:
    """Two players who say "Then pass" whenever they may: the device changes
    hands once per round, twice when the defender takes (the attacker leads
    again), never for a Pass (README, "Pass and play: hand-offs")."""
    page = open_page(DESKTOP)
    names = ["Anna", "Boris"]
    run = play_pnp(page, names, seed=14, then_pass=1.0)
    shot(page, "pnp-2-result")
    report(run, 2)
    assert run["after"] == len(run["lines"])
    assert run["after"] <= 1 + run["bito"] + 2 * run["took"], run
    assert run["after"] < run["before"], run
    assert check_lines(page, server.url, run, names) >= run["after"] - 1


def test_pass_and_play_three_players_fewer_handoffs(open_page: Any, server: Any) -> None:
    """Three players, "Then pass" most of the time: fewer hand-offs than before
    (every Pass the device makes saves at least one: the seat before and the
    seat after it follow each other without it; the deal is the server's, so
    how many is not fixed); every hand-off says what happened."""
    page = open_page(DESKTOP)
    names = ["Anna", "Boris", "Vera"]
    run = play_pnp(page, names, seed=3, then_pass=0.8)
    shot(page, "pnp-3-result")
    report(run, 3)
    assert run["toggles"] > 0, run
    assert run["after"] == len(run["lines"])
    assert run["after"] < run["before"], run
    assert check_lines(page, server.url, run, names) >= run["after"] - 1
