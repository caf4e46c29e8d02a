"""The web client in a real browser against a real server.

Each test plays as a person would: it fills the start screen, clicks cards and
buttons, and reads what the page shows; screenshots of every screen land in
test-artifacts/screenshots/.
"""

from __future__ import annotations

import itertools
import re
import time
from typing import Any

from kozyr.engine.rules import Rules

from .helpers import (
    DESKTOP,
    PHONE,
    SELECTION_MOVES,
    VISIBLE_SPOT,
    assert_tappable,
    can_act,
    click_card,
    make_move,
    play_to_the_end,
    screen,
    set_rules,
    shot,
    start_vs_computer,
    version,
    wait_connected,
    wait_screen,
    wait_turn,
)


def hand_lit(page: Any) -> list[str]:
    """The hand's lit cards (playable, or while selecting: may join the selection)."""
    return list(
        page.eval_on_selector_all("#hand .hcard.playable", "els => els.map(e => e.dataset.card)")
    )


def go_labels(page: Any) -> list[str]:
    """What the move buttons say, cards in text ("Lead 7♠ 7♥"; the buttons draw suit icons)."""
    return list(page.eval_on_selector_all("#actions .go", "els => els.map(e => e.dataset.label)"))


def hand_cards(page: Any) -> list[str]:
    return list(page.eval_on_selector_all("#hand .hcard", "els => els.map(e => e.dataset.card)"))


def test_start_screens_desktop_and_phone(open_page: Any) -> None:
    page = open_page(DESKTOP)
    wait_screen(page, "start")
    assert page.locator("#start-title").inner_text() == "Durak"
    shot(page, "01-start-desktop")
    page.click("#tab-online")
    page.check('#panel-online input[value="private"]')
    assert page.is_visible("#on-pass")
    shot(page, "02-start-online-room")
    page.click("#tab-pnp")
    set_rules(page, "pnp", variant="perevodnoy")
    shot(page, "03-start-pass-and-play-rules")
    # Keyboard: tabs move with the arrow keys
    page.focus("#tab-pnp")
    page.keyboard.press("ArrowLeft")
    assert page.is_visible("#panel-join")

    phone = open_page(PHONE)
    wait_screen(phone, "start")
    shot(phone, "04-start-phone")
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_whole_game_against_bots_by_clicking(open_page: Any) -> None:
    page = open_page(DESKTOP)
    start_vs_computer(page, bots=1, deck="24", name="Tester")
    assert wait_turn(page) in ("turn", "over")
    # Lit cards are raised, outlined, marked and announced as playable.
    lit = page.locator("#hand .hcard.playable")
    if lit.count():
        label = lit.first.get_attribute("aria-label") or ""
        assert label.endswith(", playable"), label
        assert lit.first.locator(".play-mark").count() == 1
    dim = page.locator("#hand .hcard.dim")
    if dim.count():
        assert "playable" not in (dim.first.get_attribute("aria-label") or "")
    # Opponent: name, face-down count, role tags
    opp = page.locator(".opp").first
    assert re.search(r"Bot, \d+ cards", opp.get_attribute("aria-label") or "")
    assert page.locator("#deck").get_attribute("aria-label", timeout=2000)

    # The first move with the keyboard: focus a lit card (or button), press Enter.
    before = version(page)
    # (not the Hint button: it asks for a hint, which is no move)
    target = page.locator('#hand .hcard.playable, #actions button:not([data-action="hint"])').first
    target.focus()
    page.keyboard.press("Enter")
    if page.locator("#actions .choice").count():
        page.keyboard.press("1")  # a numbered cover
    elif page.locator('#actions [data-action="lead"]').count():
        page.keyboard.press("l")  # a card of a rank you hold twice is selected: Lead it
    elif page.locator(SELECTION_MOVES).count():
        page.locator(SELECTION_MOVES).first.focus()
        page.keyboard.press("Enter")
    page.wait_for_function(f"() => Number(document.body.dataset.version) !== {before}")

    moves = play_to_the_end(
        page, limit_s=90, shot_at={2: "05-table-desktop", 6: "06-table-desktop-later"}
    )
    assert moves >= 3
    # Plays were animated (from the bot's seat, from the hand, to the discard pile).
    assert page.evaluate("window.kozyr.table.flights") > moves
    page.wait_for_selector("#result:not([hidden])")
    time.sleep(0.3)
    shot(page, "07-result-desktop")
    title = page.inner_text("#result-title")
    assert title in ("You won!", "You are the durak!", "Draw! Nobody is the durak."), title
    rows = page.locator("#result-rows tr")
    assert rows.count() == 2
    assert page.locator('#result-actions [data-action="back"]').is_visible()

    # A redraw of the result between the press and the release (a room message,
    # the delayed show on a busy machine) keeps the button: the click lands.
    back = page.locator('#result-actions [data-action="back"]')
    box = back.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.evaluate("window.kozyr.fillResult(window.kozyr.state.over)")
    page.mouse.up()
    wait_screen(page, "room")
    assert page.locator("#seat-list li").count() == 2
    assert "Tester" in page.inner_text("#seat-list")
    shot(page, "08-room-after-game")


def test_phone_table_layout_and_midnight_theme(open_page: Any) -> None:
    page = open_page(PHONE)
    start_vs_computer(page, bots=3, deck="36")
    for n in range(1, 5):
        if wait_turn(page) == "over":
            break
        make_move(page, n)
    wait_turn(page)
    time.sleep(0.5)
    shot(page, "09-table-phone")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width
    # Every card of the hand is on screen.
    bottom = page.evaluate(
        "Math.max(...[...document.querySelectorAll('#hand .hcard')]"
        ".map(e => e.getBoundingClientRect().bottom))"
    )
    assert bottom <= PHONE["height"] + 1, bottom
    assert page.locator(".opp").count() == 3
    page.select_option("#theme-select", "midnight")
    assert page.evaluate("document.documentElement.dataset.theme") == "midnight"
    time.sleep(0.3)
    shot(page, "10-table-phone-midnight")


def test_online_room_from_an_invite_link(open_page: Any) -> None:
    host = open_page(DESKTOP)
    wait_screen(host, "start")
    host.fill("#player-name", "Hostess")
    host.click("#tab-online")
    host.select_option("#on-seats", "2")
    set_rules(host, "on", deck="24")
    host.click("#panel-online button[type=submit]")
    wait_screen(host, "room")
    invite = host.input_value("#invite-link")
    assert "?room=" in invite
    host.click("#copy-invite")
    # The copy is asynchronous (clipboard permission), so wait for its verdict.
    host.wait_for_function("() => document.querySelector('#copy-status').textContent !== ''")
    assert host.inner_text("#copy-status") in {
        "Copied! Send it to your friends.",
        "Select the link and copy it.",
    }

    guest = open_page(PHONE, path=invite.split("/", 3)[3])
    # The invited friend first sees whose room it is and the name the others
    # will see (prefilled, editable: issue 25), then takes a seat.
    wait_screen(guest, "invite")
    assert "Hostess" in guest.inner_text("#invite-title")
    assert guest.input_value("#invite-name")  # prefilled
    guest.fill("#invite-name", "Friend")
    guest.click("#invite-join")
    wait_screen(guest, "room")
    guest_name = "Friend"
    host.wait_for_function(
        f"() => document.querySelector('#seat-list').innerText.includes({guest_name!r})"
    )
    assert "Hostess" in guest.inner_text("#seat-list")
    assert not guest.is_visible("#start-game")  # only the host starts
    shot(host, "11-room-host")
    shot(guest, "12-room-guest-phone")

    host.click("#start-game")
    wait_screen(host, "table")
    wait_screen(guest, "table")
    pages = {"host": host, "guest": guest}
    moves = {"host": 0, "guest": 0}
    shots_taken = False
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if all(p.is_visible("#result") for p in pages.values()):
            break
        for who, page in pages.items():
            if can_act(page) and not page.is_visible("#result"):
                moves[who] += 1
                if not shots_taken and moves["host"] >= 2 and moves["guest"] >= 2:
                    shots_taken = True
                    shot(host, "13-online-table-host")
                    shot(guest, "14-online-table-guest-phone")
                make_move(page, moves[who])
        time.sleep(0.05)
    else:
        raise AssertionError(f"online game did not finish: {moves}")
    assert moves["host"] and moves["guest"]
    time.sleep(0.3)
    shot(guest, "15-online-result-guest-phone")
    assert host.inner_text("#result-title") and guest.inner_text("#result-title")
    # The host may start the next game at once; the guest sees it begin.
    assert host.locator('#result-actions [data-action="rematch"]').is_visible()
    assert not guest.locator('#result-actions [data-action="rematch"]').count()


def test_reload_mid_game_resumes_the_seat(open_page: Any) -> None:
    page = open_page(DESKTOP)
    start_vs_computer(page, bots=2, deck="36", name="Reloader")
    for n in range(1, 4):
        if wait_turn(page) == "over":
            break
        make_move(page, n)
    assert wait_turn(page) == "turn"
    hand = hand_cards(page)
    seen = version(page)
    code = page.evaluate("new URL(location.href).searchParams.get('room')")
    assert code and hand

    page.reload()
    wait_screen(page, "table")
    assert wait_turn(page) == "turn"
    assert hand_cards(page) == hand
    assert version(page) == seen
    assert page.evaluate("new URL(location.href).searchParams.get('room')") == code
    assert "Reloader" in page.inner_text("#me-info")
    shot(page, "16-table-after-reload")
    make_move(page, 1)  # the seat still plays


def test_pass_and_play_with_the_privacy_screen(open_page: Any) -> None:
    page = open_page(DESKTOP)
    wait_screen(page, "start")
    page.click("#tab-pnp")
    page.select_option("#pnp-count", "2")
    page.fill("#pnp-name-0", "Anna")
    page.fill("#pnp-name-1", "Boris")
    set_rules(page, "pnp", deck="24")
    page.click("#panel-pnp button[type=submit]")
    wait_screen(page, "table")

    names_seen: list[str] = []
    privacy_screens = 0
    for n in range(1, 11):
        state = wait_turn(page)
        if state == "over":
            break
        if state == "turn":
            # The same player moves again (e.g. throws in after a take): no screen.
            who = names_seen[-1]
        else:
            privacy_screens += 1
            who = page.inner_text("#privacy-title")
            assert who in ("Anna", "Boris")
            if names_seen:
                assert who != names_seen[-1]  # the screen comes when the player changes
            # Nothing of anybody's hand shows while the screen is up.
            hand_style = "getComputedStyle(document.querySelector('#hand')).visibility"
            assert page.evaluate(hand_style) == "hidden"
            if privacy_screens == 1:
                shot(page, "17-pnp-privacy")
            page.click("#privacy-reveal")
            assert not page.is_visible("#privacy")
            if privacy_screens == 1:
                time.sleep(0.3)
                shot(page, "18-pnp-revealed")
            if privacy_screens == 3:
                # A reload brings the whole table back, behind the privacy screen.
                page.reload()
                wait_screen(page, "table")
                assert wait_turn(page) == "privacy"
                assert page.inner_text("#privacy-title") == who
                page.click("#privacy-reveal")
        assert who in page.inner_text("#me-info")
        names_seen.append(who)
        assert can_act(page)
        make_move(page, n)
    assert privacy_screens >= 3
    assert set(names_seen) == {"Anna", "Boris"}
    # The last move may hand the turn over: settle, and tap through the screen
    # that then covers the table, before leaving.
    if wait_turn(page) == "privacy":
        page.click("#privacy-reveal")
    page.click("#table-leave")
    page.click("#table-leave")  # a second tap confirms
    wait_screen(page, "start")


def test_language_from_the_browser_and_the_switch(open_page: Any) -> None:
    page = open_page(DESKTOP, locale="ru-RU")
    wait_screen(page, "start")
    assert page.locator("#start-title").inner_text() == "Дурак"
    assert page.evaluate("document.documentElement.lang") == "ru"
    shot(page, "19-start-ru")
    for lang, title, name in (("zh", "杜拉克", "20-start-zh"), ("ja", "ドゥラーク", "21-start-ja")):
        page.select_option("#lang-select", lang)
        page.wait_for_function(
            f"() => document.querySelector('#start-title').innerText === {title!r}"
        )
        assert page.inner_text("#tab-computer") != "Computer"
        shot(page, name)
    page.reload()
    wait_screen(page, "start")
    assert page.locator("#start-title").inner_text() == "ドゥラーク"  # the choice is remembered

    start_vs_computer(page, bots=2, deck="36")
    wait_turn(page)
    lit = page.locator("#hand .hcard.playable")
    if lit.count():
        assert (lit.first.get_attribute("aria-label") or "").endswith("、出せます")
    time.sleep(0.4)
    shot(page, "22-table-ja")
    page.select_option("#lang-select", "ru")
    page.wait_for_function("() => document.querySelector('#table-leave').innerText === 'Выйти'")
    page.select_option("#lang-select", "en")
    page.wait_for_function("() => document.querySelector('#table-leave').innerText === 'Leave'")
    if page.locator("#hand .hcard.playable").count():
        card = page.locator("#hand .hcard.playable").first
        assert (card.get_attribute("aria-label") or "").endswith(", playable")
        click_card(page, card)
    assert screen(page) == "table"


# A defender's position where one card fits several moves: the trump 8C covers
# either seven, 7C covers either seven, transfers or is shown (perevodnoy with
# show-trump transfers). The table is drawn from this frame as if it came from
# the server; the moves the page would send are collected instead.
CHOICE_FRAME: dict[str, Any] = {
    "type": "game",
    "game": 1,
    "version": 7,
    "seat": 0,
    "to_move": 0,
    "deadline": None,
    "time_left": None,
    "view": {
        "seat": 0,
        "hand": ["9S", "7D", "8C", "7C", "KH"],
        "hand_counts": [5, 4, 6],
        "known": [["7C"], [], ["QD", "QH"]],
        "deck": 9,
        "trump": "AC",
        "trump_holder": None,
        "table": [{"attack": "7S", "defense": None}, {"attack": "7H", "defense": None}],
        "discard": 6,
        "discarded": [],
        "attacker": 2,
        "defender": 0,
        "round_attacker": 2,
        "to_move": 0,
        "phase": "defend",
        "limit": 5,
        "taking": False,
        "out": [],
        "result": None,
    },
    "legal": [
        {"seat": 0, "type": "defend", "card": "9S", "target": "7S"},
        {"seat": 0, "type": "defend", "card": "8C", "target": "7S"},
        {"seat": 0, "type": "defend", "card": "8C", "target": "7H"},
        {"seat": 0, "type": "defend", "card": "7C", "target": "7S"},
        {"seat": 0, "type": "defend", "card": "7C", "target": "7H"},
        {"seat": 0, "type": "defend", "card": "KH", "target": "7H"},
        {"seat": 0, "type": "take"},
        {"seat": 0, "type": "transfer", "cards": ["7D"]},
        {"seat": 0, "type": "transfer", "cards": ["7C"]},
        {"seat": 0, "type": "transfer", "cards": ["7C", "7D"]},
        {"seat": 0, "type": "show_trump", "card": "7C"},
    ],
}
CHOICE_ROOM: dict[str, Any] = {
    "code": "testtesttest",
    "invite": "",
    "state": "playing",
    "host": 0,
    "host_name": "Vera",
    "rules": {"players": 3, "variant": "perevodnoy", "transfer_show_trump": True, "teams": "none"},
    "move_time": None,
    "visibility": "private",
    "has_passphrase": False,
    "bot_level": 3,
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
            "name": "Oleg",
            "bot": None,
            "human": True,
            "connected": False,
            "away": False,
            "host": False,
        },
        {
            "seat": 2,
            "name": None,
            "bot": 5,
            "human": False,
            "connected": False,
            "away": False,
            "host": False,
        },
    ],
    "spectators": [],
    "game": 1,
    "version": 7,
}
DRAW_FRAME = """([frame, room]) => {
    window.sent = [];
    const k = window.kozyr;
    k.table.hooks.move = (action, version) => window.sent.push([action, version]);
    k.state.room = room;
    k.show("table");
    k.table.ctx = null;  // a fresh frame each time (the same version is answered again)
    k.table.render({frame, room, event: null, receivedAt: performance.now(), hidden: false});
}"""


def sent(page: Any) -> list[Any]:
    return list(page.evaluate("window.sent"))


def test_numbered_cover_choices_transfer_and_show_trump(open_page: Any) -> None:
    page = open_page(DESKTOP)
    wait_connected(page)
    page.evaluate(DRAW_FRAME, [CHOICE_FRAME, CHOICE_ROOM])
    # Buttons only for what is legal: Take, Transfer, Show trump; no Pass.
    actions = page.eval_on_selector_all("#actions button", "els => els.map(e => e.dataset.action)")
    assert actions == ["take", "transfer", "show_trump"]
    assert page.locator("#hand .hcard.playable").count() == 5
    assert page.get_attribute('[data-card="7S"]', "aria-label") is None  # label is on the pair
    pair = page.locator("#battle .pair").first.get_attribute("aria-label") or ""
    assert pair == "Seven of spades, not covered"
    known = page.locator("#hand .hcard.known")
    assert known.count() == 1 and "known to the others" in (known.get_attribute("aria-label") or "")
    assert "Queen of diamonds" in (
        page.locator('.opp[data-seat="2"] .known').get_attribute("aria-label") or ""
    )
    assert "offline" in (page.locator('.opp[data-seat="1"]').get_attribute("aria-label") or "")

    # 9S covers only 7S: one click plays it.
    click_card(page, page.locator('#hand [data-card="9S"]'))
    assert sent(page) == [[{"seat": 0, "type": "defend", "card": "9S", "target": "7S"}, 7]]

    page.evaluate(DRAW_FRAME, [CHOICE_FRAME, CHOICE_ROOM])
    # The trump 8C covers either card: numbered choices, on the buttons and the table.
    click_card(page, page.locator('#hand [data-card="8C"]'))
    labels = page.locator("#actions .choice").all_inner_texts()
    assert len(labels) == 2 and all("cover" in text for text in labels), labels
    badges = page.eval_on_selector_all(
        "#battle .choice-badge", "els => els.map(e => e.textContent)"
    )
    assert badges == ["1", "2"]
    time.sleep(0.2)
    shot(page, "23-cover-choices")
    page.keyboard.press("Escape")  # cancel, then choose with the keyboard
    assert page.locator("#actions .choice").count() == 0
    page.focus('#hand [data-card="8C"]')
    page.keyboard.press("Enter")
    page.keyboard.press("2")
    assert sent(page) == [[{"seat": 0, "type": "defend", "card": "8C", "target": "7H"}, 7]]

    # 7C covers either seven, transfers (alone or with 7D) or is shown: it is
    # selected; the buttons say what each does, 7D may join it.
    page.evaluate(DRAW_FRAME, [CHOICE_FRAME, CHOICE_ROOM])
    click_card(page, page.locator('#hand [data-card="7C"]'))
    assert page.locator("#actions .choice").count() == 2
    assert go_labels(page) == ["Transfer 7♣", "Show trump 7♣"]
    assert page.get_attribute('#hand [data-card="7C"]', "aria-pressed") == "true"
    label = page.get_attribute('#hand [data-card="7C"]', "aria-label") or ""
    assert label == "Seven of clubs, selected, known to the others", label
    assert hand_lit(page) == ["7D"]
    click_card(page, page.locator('#hand [data-card="7D"]'))  # 7D joins: covers are gone
    assert page.locator("#actions .choice").count() == 0
    assert go_labels(page) == ["Transfer 7♣ 7♦"]
    click_card(page, page.locator('#hand [data-card="7C"]'))  # tap again: unselect 7C
    assert go_labels(page) == ["Transfer 7♦"]
    click_card(page, page.locator('#hand [data-card="7D"]'))
    assert page.locator("#hand .hcard.chosen").count() == 0
    assert sent(page) == []
    click_card(page, page.locator('#hand [data-card="7C"]'))
    page.locator("#battle .tcard.choose").first.click()  # the attack card itself is a choice
    assert sent(page) == [[{"seat": 0, "type": "defend", "card": "7C", "target": "7S"}, 7]]

    # Transfer with several transfers selects the smallest (7D: no trump), to
    # adjust in the hand; the button then sends it. Show trump plays at once.
    page.evaluate(DRAW_FRAME, [CHOICE_FRAME, CHOICE_ROOM])
    assert page.inner_text('#actions [data-action="transfer"]') == "Transfer…"
    page.click('#actions [data-action="transfer"]')
    assert page.get_attribute('#actions [data-action="transfer"]', "data-label") == "Transfer 7♦"
    click_card(page, page.locator('#hand [data-card="7C"]'))
    page.click('#actions [data-action="transfer"]')
    assert sent(page) == [[{"seat": 0, "type": "transfer", "cards": ["7C", "7D"]}, 7]]
    page.evaluate(DRAW_FRAME, [CHOICE_FRAME, CHOICE_ROOM])
    page.keyboard.press("r")  # the same by keyboard: R selects, R transfers
    page.keyboard.press("r")
    assert sent(page) == [[{"seat": 0, "type": "transfer", "cards": ["7D"]}, 7]]
    page.evaluate(DRAW_FRAME, [CHOICE_FRAME, CHOICE_ROOM])
    show = page.get_attribute('#actions [data-action="show_trump"]', "data-label")
    assert show == "Show trump 7♣"
    page.click('#actions [data-action="show_trump"]')
    assert sent(page) == [[{"seat": 0, "type": "show_trump", "card": "7C"}, 7]]
    page.evaluate(DRAW_FRAME, [CHOICE_FRAME, CHOICE_ROOM])
    page.keyboard.press("t")  # keyboard shortcut for Take
    assert sent(page) == [[{"seat": 0, "type": "take"}, 7]]


def test_result_of_a_draw_by_repetition(open_page: Any) -> None:
    """The result panel says why a game was drawn when a position came round a
    third time (the server's game_over frame carries the engine's result)."""
    page = open_page(DESKTOP)
    wait_screen(page, "start")
    over = {
        "type": "game_over",
        "game": 1,
        "result": {"draw": True, "repetition": True},
        "durak": None,
        "pogony": False,
        "cards_left": [4, 6, 0],
    }
    fill = "([over, room]) => { window.kozyr.state.room = room; window.kozyr.fillResult(over); }"
    page.evaluate(fill, [over, CHOICE_ROOM])
    assert page.inner_text("#result-title") == "Draw! Nobody is the durak."
    assert page.inner_text("#result-sub") == "The same position came round a third time."
    assert page.locator("#result-rows tr").count() == 3
    page.evaluate(fill, [{**over, "result": {"draw": True}}, CHOICE_ROOM])
    assert page.inner_text("#result-sub") == ""  # an ordinary draw says nothing more


def test_rules_forms_offer_every_option_with_its_default(open_page: Any) -> None:
    """Each start form's rules section has a control for every table option of
    the engine (players are chosen elsewhere), preset to the engine's default."""
    page = open_page(DESKTOP)
    wait_screen(page, "start")
    defaults = Rules().to_dict()
    for prefix in ("cpu", "on", "pnp"):
        for name, values in Rules.options().items():
            if name == "players":
                continue
            control = page.locator(f"#{prefix}-rule-{name}")
            assert control.count() == 1, f"{prefix}: no control for {name}"
            if isinstance(values[0], bool):
                assert control.is_checked() == defaults[name], f"{prefix}: {name}"
            else:
                assert control.input_value() == str(defaults[name]), f"{prefix}: {name}"
    set_rules(page, "cpu")
    page.uncheck("#cpu-rule-repetition_draw")
    summary = page.inner_text('.rules-slot[data-prefix="cpu"] .rules-summary')
    assert "no draw by repetition" in summary
    assert "no throw-ins after a take" not in summary
    page.uncheck("#cpu-rule-throw_in_after_take")
    summary = page.inner_text('.rules-slot[data-prefix="cpu"] .rules-summary')
    assert "no throw-ins after a take" in summary


SEVENS = ["7S", "7H", "7D", "7C"]


def lead_frame() -> Any:
    """Seat 0 leads holding four sevens, 9D and KH: every set of sevens is a lead."""
    view = {
        **CHOICE_FRAME["view"],
        "hand": [*SEVENS, "9D", "KH"],
        "known": [[], [], []],
        "table": [],
        "phase": "lead",
        "attacker": 0,
        "defender": 1,
        "round_attacker": 0,
    }
    leads = [list(c) for n in range(1, 5) for c in itertools.combinations(SEVENS, n)]
    legal = [{"seat": 0, "type": "attack", "cards": c} for c in [*leads, ["9D"], ["KH"]]]
    return {**CHOICE_FRAME, "view": view, "legal": legal}


def tap(page: Any, selector: str) -> None:
    """Tap a hand card, then let the fan settle (selected cards rise)."""
    click_card(page, page.locator(selector))
    time.sleep(0.3)


def test_choose_cards_then_lead(open_page: Any) -> None:
    """Four sevens: no list of the 15 combinations, but select sevens in the hand
    (tap again to drop one, Escape drops all) and press one button that says
    what it will do; a card with a single move plays at once."""
    page = open_page(DESKTOP)
    wait_connected(page)
    frame = lead_frame()
    page.evaluate(DRAW_FRAME, [frame, CHOICE_ROOM])
    tap(page, '#hand [data-card="9D"]')  # its only move: at once
    assert sent(page) == [[{"seat": 0, "type": "attack", "cards": ["9D"]}, 7]]

    page.evaluate(DRAW_FRAME, [frame, CHOICE_ROOM])
    assert page.get_attribute('#hand [data-card="7S"]', "aria-pressed") == "false"
    assert page.get_attribute('#hand [data-card="9D"]', "aria-pressed") is None
    tap(page, '#hand [data-card="7S"]')
    assert sent(page) == []
    assert go_labels(page) == ["Lead 7♠"]
    assert sorted(hand_lit(page)) == ["7C", "7D", "7H"]  # only sevens may join
    assert page.locator("#hand .hcard.dim").count() == 2
    assert (page.get_attribute('#hand [data-card="7H"]', "aria-label") or "").endswith(
        ", can be added"
    )
    assert page.locator("#actions .choice").count() == 0
    assert page.eval_on_selector_all("#actions button", "e => e.map(b => b.dataset.action)") == [
        "lead",
        "cancel",
    ]
    tap(page, '#hand [data-card="7D"]')
    tap(page, '#hand [data-card="7C"]')
    assert go_labels(page) == ["Lead 7♠ 7♦ 7♣"]
    assert "tap the lit cards to add them" in page.inner_text("#status")
    time.sleep(0.3)
    king = page.locator('#hand [data-card="KH"]')  # another rank (dimmed): explained
    king.click(position=king.evaluate(VISIBLE_SPOT), force=True)
    assert page.inner_text("#status").startswith("K♥ cannot go with 7♠ 7♦ 7♣")
    assert page.locator("#hand .hcard.chosen").count() == 3
    tap(page, '#hand [data-card="7S"]')  # tap again: dropped
    assert go_labels(page) == ["Lead 7♦ 7♣"]
    tap(page, '#hand [data-card="7H"]')
    tap(page, '#hand [data-card="7S"]')
    assert go_labels(page) == ["Lead 7♠ 7♥ 7♦ 7♣"]
    time.sleep(0.3)
    shot(page, "24-lead-four-sevens-selected")
    page.keyboard.press("Escape")
    assert page.locator("#hand .hcard.chosen").count() == 0 and not go_labels(page)
    assert sent(page) == []

    # The keyboard: Enter selects (the focus stays on the card), L leads.
    page.focus('#hand [data-card="7H"]')
    page.keyboard.press("Enter")
    page.focus('#hand [data-card="7C"]')
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.dataset.card") == "7C"
    page.keyboard.press("Enter")  # Enter again on a selected card drops it
    assert go_labels(page) == ["Lead 7♥"]
    page.keyboard.press("Enter")
    page.keyboard.press("l")
    assert sent(page) == [[{"seat": 0, "type": "attack", "cards": ["7H", "7C"]}, 7]]

    # A phone: the selected sevens rise, the one button is on screen and tappable.
    phone = open_page(PHONE)
    wait_connected(phone)
    phone.evaluate(DRAW_FRAME, [frame, CHOICE_ROOM])
    for card in SEVENS:
        tap(phone, f'#hand [data-card="{card}"]')
    lead_button = '#actions [data-action="lead"]'
    assert_tappable(phone, lead_button, PHONE)
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    time.sleep(0.3)
    shot(phone, "25-lead-four-sevens-phone")
    phone.locator(lead_button).click()
    assert sent(phone) == [[{"seat": 0, "type": "attack", "cards": SEVENS}, 7]]


def test_a_selection_survives_a_new_frame(open_page: Any) -> None:
    """A throw-in while you choose: the selection stays if its cards still make a move."""
    page = open_page(DESKTOP)
    wait_connected(page)
    frame = lead_frame()
    page.evaluate(DRAW_FRAME, [frame, CHOICE_ROOM])
    for card in ("7S", "7H"):
        tap(page, f'#hand [data-card="{card}"]')
    later = {**frame, "version": 8}
    redraw = """([f, room]) => window.kozyr.table.render(
        {frame: f, room, event: null, receivedAt: performance.now(), hidden: false})"""
    page.evaluate(redraw, [later, CHOICE_ROOM])
    assert go_labels(page) == ["Lead 7♠ 7♥"]
    gone = {**frame, "version": 9, "view": {**frame["view"], "hand": ["7S", "7D", "7C", "9D"]}}
    page.evaluate(redraw, [gone, CHOICE_ROOM])  # 7H left the hand: the selection is dropped
    assert go_labels(page) == [] and page.locator("#hand .hcard.chosen").count() == 0
