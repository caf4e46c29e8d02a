"""The layout audit (issue 14): every screen on phones, a tablet and desktops,
in English, Russian and Japanese, in both looks (issue 26): each language's
own look on every viewport (the classic table in English and Russian, the
candy table in Japanese), and the other look on a narrow phone, a phone on its
side and a desktop (OTHER_LOOKS).

For every viewport, language and scene the page itself is measured (AUDIT below):

* nothing scrolls sideways: neither the page nor anything inside it;
* every visible interactive element (buttons, links, form fields, anything
  focusable) lies wholly inside the viewport and is not covered:
  ``document.elementFromPoint`` at its centre finds it or a descendant. Hand
  cards overlap in a fan by design, so for them the centre is that of the
  largest square of the card that is its own (see below). A screen that
  scrolls up and down (start, room) brings each element into view first;
* every playable card (lit, selected, or one that may join the selection) and
  every button offers at least 44×44 CSS px of its own: a 44 px square of it
  where ``elementFromPoint`` finds it at every point of a 4 px grid;
* no two seats overlap, every seat lies inside the viewport, and no seat's
  name, tag or card count is cut (its text overflows its box or its seat);
* the cards in play (each pair), the deck and the discard pile lie inside the
  viewport and apart;
* the hand keeps its size all round (issue 25): the same hand's cards are at
  most 10 % wider or narrower with six covered pairs on the table than with none.

Scenes (``SCENES``): the start screen's four tabs (with the guided game's
offer, shown on a first visit) and its rules box open, the room (a bot in its
second seat), a 2-player
table (three pairs, and a full one of six covered pairs) and a 6-player table
(drawn frames: the same markup as a served one, far cheaper than real games),
hands of 12 and 30 cards you may all lead, a lead of three selected sevens, a
defence with a cover choice (a card that covers either of two attack cards:
the numbered choices), a defence with Take, two tips of the guided game and
the help dialog (issue 25, section 8), the result and the pass-and-play
privacy screen; plus the table of a real game against a bot. The result shows
the candies and rating line of issue 26. The game viewer (2 and 6 players: the
deal, the busiest step, the end with the discard pile open, a missing game) and
the players' pages (profile with a transfer code and the delete confirmation,
My games, a public page, a missing player, the leaderboard; the candy balance
in the top bar) are audited at every viewport in the same languages.
Screenshots: test-artifacts/screenshots/audit/<lang>-<scene>-<width>x<height>.jpg.
The pages emulate ``prefers-reduced-motion`` so that the cards stand still at once
(the layout is the same; only the transitions go).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any

import pytest

from ..server.harness import http
from .helpers import SHOTS, start_vs_computer, wait_connected, wait_screen, wait_turn
from .test_client import CHOICE_FRAME, CHOICE_ROOM, DRAW_FRAME
from .test_profile import with_token
from .test_viewer import finished_game

VIEWPORTS = {
    "phone-360x740": {"width": 360, "height": 740},
    "phone-390x844": {"width": 390, "height": 844},
    "landscape-844x390": {"width": 844, "height": 390},
    "tablet-768x1024": {"width": 768, "height": 1024},
    "desktop-1280x800": {"width": 1280, "height": 800},
    "desktop-1920x1080": {"width": 1920, "height": 1080},
}
PHONES = ["phone-360x740", "phone-390x844"]
LOCALES = {"en": "en-US", "ru": "ru-RU", "ja": "ja-JP"}
#: The look each language starts with (js/look.js): the matrix audits these.
LANGUAGE_LOOK = {"en": "classic", "ru": "classic", "ja": "candy"}
#: ... and the other look, picked by the player, on a subset of the viewports.
OTHER_LOOKS = [("en", "candy"), ("ru", "candy"), ("ja", "classic")]
OTHER_LOOK_VIEWPORTS = ["phone-360x740", "landscape-844x390", "desktop-1280x800"]
#: ... of which the default run takes one viewport per language.
OTHER_LOOK_BY_DEFAULT = {("phone-360x740", "en"), ("landscape-844x390", "ja"),
                         ("desktop-1280x800", "ru")}  # fmt: skip
AUDIT_SHOTS = SHOTS / "audit"
#: The default run audits every viewport once, in a language each (the three
#: languages twice each); the rest of each matrix is marked slow and runs with
#: ``./test -m slow tests/web/test_layout_audit.py`` (docs/architecture.md).
EVERY_VIEWPORT_ONCE = {
    ("phone-360x740", "ru"),
    ("phone-390x844", "ja"),
    ("landscape-844x390", "en"),
    ("tablet-768x1024", "ja"),
    ("desktop-1280x800", "ru"),
    ("desktop-1920x1080", "en"),
}


def full_matrix(pairs: list[tuple[str, Any]], default: set[tuple[str, Any]]) -> list[Any]:
    """``pairs`` as pytest params: those in ``default`` run by default, the others
    are marked slow."""
    return [
        pytest.param(*pair, marks=() if pair in default else pytest.mark.slow) for pair in pairs
    ]


#: Every viewport in every language.
VIEWPORT_LANGUAGE = full_matrix(
    [(key, lang) for key in VIEWPORTS for lang in LOCALES], EVERY_VIEWPORT_ONCE
)
MIN_TAP = 44

AUDIT = """([minTap, scrolls, root]) => {
    const vw = document.documentElement.clientWidth;
    const vh = window.innerHeight;
    const problems = [];
    const name = (el) => {
        const d = el.dataset || {};
        return `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}`
            + `${d.card ? '[card=' + d.card + ']' : ''}`
            + `${d.action ? '[action=' + d.action + ']' : ''}`
            + `${d.seat ? '[seat=' + d.seat + ']' : ''}`
            + ` "${(el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 30)}"`;
    };
    const shown = (el) => {
        // checkVisibility: also the content of a closed <details>.
        if (!el.getClientRects().length || !el.checkVisibility()) return false;
        const r = el.getBoundingClientRect();
        if (r.width < 1 || r.height < 1) return false;
        for (let e = el; e; e = e.parentElement) {
            const s = getComputedStyle(e);
            if (s.visibility === 'hidden' || s.opacity === '0' || e.hidden) return false;
        }
        return true;
    };
    const wide = Math.max(document.documentElement.scrollWidth, document.body.scrollWidth);
    if (wide > vw) problems.push(`scrolls sideways: ${wide} px wide in ${vw} px`);
    // Nothing scrolls sideways inside the page either (a row of seats that
    // scrolls hides seats off to the side).
    for (const el of document.querySelectorAll('body *:not(svg, svg *)')) {
        const ox = getComputedStyle(el).overflowX;
        const scroller = ox === 'auto' || ox === 'scroll';
        if (scroller && el.scrollWidth > el.clientWidth + 1 && shown(el)) {
            problems.push(`scrolls sideways inside: ${name(el)}`
                + ` (${el.scrollWidth} px in ${el.clientWidth})`);
        }
    }
    const mine = (el, x, y) => {
        if (x < 0 || y < 0 || x >= vw || y >= vh) return false;
        const hit = document.elementFromPoint(x, y);
        return Boolean(hit && (hit === el || el.contains(hit)));
    };
    // The largest square of ``el`` that is its own (sampled every 4 px), or
    // the first one of side ``enough``: its side and centre.
    const ownSquare = (el, enough) => {
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
                    if (side >= enough) return best;
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
        // A screen that scrolls up and down (start, room): bring it into view,
        // as a person would scroll to it.
        if (scrolls) el.scrollIntoView({block: 'center', inline: 'nearest'});
        const r = el.getBoundingClientRect();
        const label = name(el);
        if (r.left < -0.5 || r.top < -0.5 || r.right > vw + 0.5 || r.bottom > vh + 0.5) {
            problems.push(`off screen: ${label} at ${Math.round(r.left)},${Math.round(r.top)}`
                + ` ${Math.round(r.width)}x${Math.round(r.height)} in ${vw}x${vh}`);
            continue;
        }
        const handCard = el.classList.contains('hcard');
        const lit = ['playable', 'cheatable', 'chosen'].some((c) => el.classList.contains(c));
        const needsTap = el.tagName === 'BUTTON' && (!handCard || lit);
        const own = handCard || needsTap ? ownSquare(el, needsTap ? minTap : 4) : null;
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
    if (scrolls) window.scrollTo(0, 0);
    if (root) return problems;
    // Seats: inside the viewport, never on one another, nothing of them cut.
    const seats = Array.from(document.querySelectorAll('.opp')).filter(shown);
    const boxes = seats.map((s) => s.getBoundingClientRect());
    seats.forEach((seat, i) => {
        const a = boxes[i];
        if (a.left < -0.5 || a.top < -0.5 || a.right > vw + 0.5 || a.bottom > vh + 0.5) {
            problems.push(`seat off screen: ${name(seat)} at ${Math.round(a.left)},`
                + `${Math.round(a.top)} ${Math.round(a.width)}x${Math.round(a.height)}`);
        }
        for (let j = i + 1; j < seats.length; j++) {
            const b = boxes[j];
            const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
            const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
            if (w > 0.5 && h > 0.5) {
                problems.push(`seats overlap: ${name(seat)} and ${name(seats[j])}`
                    + ` by ${Math.round(w)}x${Math.round(h)}`);
            }
        }
        for (const part of seat.querySelectorAll('.opp-name, .tag, .count, .opp-status, .level')) {
            if (!shown(part)) continue;
            const p = part.getBoundingClientRect();
            const out = p.left < a.left - 0.5 || p.right > a.right + 0.5
                || p.top < a.top - 0.5 || p.bottom > a.bottom + 0.5;
            if (part.scrollWidth > part.clientWidth + 1 || out) {
                problems.push(`cut in its seat: ${name(part)} of ${name(seat)}`);
            }
        }
    });
    // The cards in play, the deck and the discard pile: on screen, apart.
    const felt = Array.from(document.querySelectorAll('#battle .pair, #deck, #discard'))
        .filter(shown);
    const fbox = felt.map((el) => el.getBoundingClientRect());
    felt.forEach((el, i) => {
        const a = fbox[i];
        if (a.left < -0.5 || a.top < -0.5 || a.right > vw + 0.5 || a.bottom > vh + 0.5) {
            problems.push(`off screen: ${name(el)} at ${Math.round(a.left)},`
                + `${Math.round(a.top)} ${Math.round(a.width)}x${Math.round(a.height)}`);
        }
        for (let j = i + 1; j < felt.length; j++) {
            const b = fbox[j];
            const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
            const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
            if (w > 0.5 && h > 0.5) {
                problems.push(`on one another: ${name(el)} and ${name(felt[j])}`
                    + ` by ${Math.round(w)}x${Math.round(h)}`);
            }
        }
    });
    return problems;
}"""


#: Resolves after two animation frames (resize observers have run).
NEXT_FRAMES = "() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)))"


def audit(
    page: Any, scene: str, key: str, scrolls: bool = False, root: str | None = None
) -> list[str]:
    """The problems of what ``page`` shows now (a screenshot goes to AUDIT_SHOTS);
    ``scrolls``: a screen that may scroll up and down (start, room); ``root``: a
    modal dialog, whose controls alone are checked."""
    # The fan is laid out in an animation frame (a resize observer); the
    # cards slide unless the page asks for reduced motion (the matrix does).
    page.evaluate(NEXT_FRAMES)
    reduced = page.evaluate("matchMedia('(prefers-reduced-motion: reduce)').matches")
    if not reduced:
        time.sleep(0.6)
    AUDIT_SHOTS.mkdir(parents=True, exist_ok=True)
    shot = AUDIT_SHOTS / f"{scene}-{key.split('-', 1)[1]}.jpg"
    page.screenshot(path=str(shot), type="jpeg", quality=85)  # 5 times faster than PNG
    return [f"{scene}: {p}" for p in page.evaluate(AUDIT, [MIN_TAP, scrolls, root])]


# ------------------------------------------------------------------ drawn frames
TWO_ROOM: dict[str, Any] = {
    **CHOICE_ROOM,
    "rules": {"players": 2, "variant": "podkidnoy", "teams": "none"},
    "seats": CHOICE_ROOM["seats"][:2],
}
SEVENS = ["7S", "7H", "7D", "7C"]
#: Names as long as a name may be (12 characters), in three scripts.
LONG_NAMES = ["Vera", "Konstantinos", None, "Александрина", "翔太", None]


def seat_info(seat: int, name: str | None) -> dict[str, Any]:
    return {
        "seat": seat,
        "name": name,
        "bot": None if name else 3 + seat,
        "human": bool(name),
        "connected": seat != 1,
        "away": False,
        "host": seat == 0,
    }


def six_room(teams: str = "none") -> dict[str, Any]:
    return {
        **CHOICE_ROOM,
        "rules": {"players": 6, "variant": "podkidnoy", "teams": teams, "deck": 52},
        "seats": [seat_info(i, name) for i, name in enumerate(LONG_NAMES)],
    }


def frame_of(view: dict[str, Any], legal: list[Any], **top: Any) -> Any:
    """A `game` frame for seat 0 from the parts of its view that differ."""
    full = {**CHOICE_FRAME["view"], **view}
    return {**CHOICE_FRAME, **top, "view": full, "legal": [{"seat": 0, **a} for a in legal]}


def two_player_frame(phase: str, hand: list[str], table: list[Any], legal: list[Any]) -> Any:
    view = {
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
    return frame_of(view, legal)


def leads_of(hand: list[str]) -> list[Any]:
    """Every lead of ``hand``: each card alone and each group of one rank."""
    by_rank = itertools.groupby(sorted(hand, key=lambda c: c[0]), key=lambda c: c[0])
    leads = []
    for _, group in by_rank:
        cards = list(group)
        for n in range(1, len(cards) + 1):
            leads += [list(c) for c in itertools.combinations(cards, n)]
    return [{"type": "attack", "cards": c} for c in leads]


def lead_sevens() -> Any:
    hand = [*SEVENS, "9D", "KH"]
    return two_player_frame("lead", hand, [], leads_of(hand))


def defend_take() -> Any:
    hand = ["6D", "9S", "JH", "QC", "KD", "AH"]
    legal = [{"type": "defend", "card": "9S", "target": "8S"}, {"type": "take"}]
    return two_player_frame("defend", hand, [{"attack": "8S", "defense": None}], legal)


def throw_in_two() -> Any:
    """Two players: you attack, three pairs on the table, you may throw in or stop."""
    hand = ["6D", "8C", "TH", "QS", "KD"]
    table = [
        {"attack": "8S", "defense": "JS"},
        {"attack": "8H", "defense": "QH"},
        {"attack": "TS", "defense": None},
    ]
    frame = two_player_frame("throw", hand, table, [{"type": "pass"}])
    frame["view"].update(attacker=0, defender=1, round_attacker=0)
    frame["legal"] += [{"seat": 0, "type": "throw", "cards": [c]} for c in ("8C", "TH")]
    return frame


#: Six covered pairs, the most a round puts on the table.
FULL_PAIRS = [("6S", "8S"), ("6H", "9H"), ("7D", "TD"), ("7C", "JC"), ("8H", "QH"), ("9S", "KS")]


def pairs_on_table(n: int) -> Any:
    """Two players: you attack with six cards in hand and ``n`` covered pairs
    on the table (throw in or stop; with none on the table, lead)."""
    hand = ["6D", "9C", "TH", "QS", "KD", "AH"]
    table = [{"attack": a, "defense": d} for a, d in FULL_PAIRS[:n]]
    if not n:
        return two_player_frame("lead", hand, [], leads_of(hand))
    frame = two_player_frame("throw", hand, table, [{"type": "pass"}])
    frame["view"].update(attacker=0, defender=1, round_attacker=0, limit=6)
    return frame


#: The hand's card width (its layout box: a fanned card's turn does not count).
HAND_CARD_W = "document.querySelector('#hand .hcard').offsetWidth"
#: How much the hand's cards may change size between an empty and a full table.
HAND_STEADY = 0.10


def hand_steadiness(page: Any, scene: str) -> list[str]:
    """The hand keeps its size all round (issue 25): the same hand is drawn
    with an empty table and with six covered pairs; its cards' width may change
    by HAND_STEADY at most."""
    widths = []
    for n in (0, len(FULL_PAIRS)):
        page.evaluate(DRAW_FRAME, [pairs_on_table(n), TWO_ROOM])
        page.evaluate(NEXT_FRAMES)
        widths.append(page.evaluate(HAND_CARD_W))
    empty, full = widths
    if abs(full - empty) > HAND_STEADY * empty:
        return [
            f"{scene}: the hand's cards change size: {empty} px wide on an empty table,"
            f" {full} px with six covered pairs"
        ]
    return []


def big_hand(n: int) -> Any:
    """A lead from a hand of ``n`` cards (52-card deck): every card is lit."""
    deck = [r + s for s in "SDCH" for r in "23456789TJQKA"]
    hand = [deck[(i * 7) % 52] for i in range(n)]
    frame = two_player_frame("lead", hand, [], leads_of(hand))
    frame["view"].update(deck=0, hand_counts=[n, 4])
    return frame


def six_players(waiting: bool = False) -> Any:
    """Six players with names of 12 characters: a defender who takes, one who
    is out, known cards; you throw in against the clock, or wait for seat 4."""
    hand = ["6D", "8C", "9H", "TC", "JD", "QS", "AH"]
    view = {
        "hand": hand,
        "hand_counts": [len(hand), 9, 4, 0, 6, 3],
        "known": [["8C"], ["QD", "QH"], [], [], ["AS"], []],
        "table": [
            {"attack": "8S", "defense": "TS"},
            {"attack": "8D", "defense": None},
            {"attack": "TH", "defense": None},
        ],
        "phase": "throw",
        "attacker": 5,
        "defender": 1,
        "round_attacker": 5,
        "taking": True,
        "out": [3],
        "deck": 5,
    }
    legal = [{"type": "throw", "cards": ["8C"]}, {"type": "throw", "cards": ["TC"]}]
    to_move = 4 if waiting else 0
    clock = {"deadline": int(time.time() * 1000) + 25_000, "time_left": 25_000}
    frame = frame_of(view, [] if waiting else [*legal, {"type": "pass"}], to_move=to_move, **clock)
    frame["view"]["to_move"] = to_move
    return frame


GAME_OVER = {
    "type": "game_over",
    "game": 1,
    "result": {"draw": False, "durak": 1},
    "durak": 1,
    "pogony": True,
    "cards_left": [0, 5],
    # The receiver's candies and rating (issue 26): the longest lines they make.
    "candies": {"amount": 5, "reason": "friends_loss", "capped": True},
    "rating": {"variant": "podkidnoy", "before": 1512, "after": 1498, "games": 7},
}
SHOW_RESULT = """([over, room]) => {
    const k = window.kozyr;
    k.state.room = room;
    k.fillResult(over);
    document.querySelector('#result').hidden = false;
}"""


# ------------------------------------------------------------------ scenes
Scene = Callable[[Any, str, str], list[str]]


def drawn(frame: Callable[[], Any], room: Any, picks: tuple[str, ...] = ()) -> Scene:
    """A scene of one drawn frame; ``picks``: hand cards tapped first."""

    def scene(page: Any, name: str, key: str) -> list[str]:
        page.evaluate(DRAW_FRAME, [frame(), room])
        for card in picks:
            page.evaluate("(c) => window.kozyr.table.clickCard(c)", card)
        return audit(page, name, key)

    return scene


TABLE_SCENES: dict[str, Scene] = {
    "table-2-players": drawn(throw_in_two, TWO_ROOM),
    "table-full": drawn(lambda: pairs_on_table(len(FULL_PAIRS)), TWO_ROOM),
    "table-6-players": drawn(six_players, six_room()),
    "table-6-waiting": drawn(lambda: six_players(waiting=True), six_room("2v2v2")),
    "hand-12": drawn(lambda: big_hand(12), TWO_ROOM),
    "hand-30": drawn(lambda: big_hand(30), TWO_ROOM),
    "lead-selection": drawn(lead_sevens, TWO_ROOM, picks=("7S", "7H", "7D")),
    "cover-choice": drawn(lambda: CHOICE_FRAME, CHOICE_ROOM, picks=("8C",)),
    "defend-take": drawn(defend_take, TWO_ROOM),
}


def audit_start_and_room(page: Any, lang: str, key: str) -> list[str]:
    problems: list[str] = []
    for tab in ("computer", "online", "join", "pnp"):
        page.click(f"#tab-{tab}")
        if tab == "online":
            page.check('#panel-online input[value="private"]')  # the longest form
        problems += audit(page, f"{lang}-start-{tab}", key, scrolls=True)
    page.click("#tab-online")
    page.click("#panel-online button[type=submit]")
    wait_screen(page, "room")
    # A computer in the second seat (at the candy table: Mocha, with the portrait).
    page.click('.seat[data-seat="1"] button')
    page.wait_for_selector('.seat.bot[data-seat="1"]')
    return problems + audit(page, f"{lang}-room", key, scrolls=True)


#: The online room as a busy table shows it between games: six seats (the host,
#: a ready player who is offline, a seat kept for a leaver, an empty seat, a
#: bot), three spectators; seen by the host, or by a spectator (Sit here).
BUSY_ROOM = """(spectator) => {
    const k = window.kozyr, S = k.state;
    if (!window.realRoom) window.realRoom = {type: "room", room: S.room, you: S.you};
    const names = ["Александрина", "Konstantinos", null, null, null, "翔太"];
    const seats = names.map((name, i) => ({
        seat: i, name, human: Boolean(name), bot: i === 4 ? 5 : null,
        connected: i !== 1, away: false, host: i === 0, ready: i === 1,
        reserved_for: i === 2 ? "Maximilian" : null,
    }));
    const room = {...S.room, seats, spectators: ["Bob", "Маргарита", "花子"],
                  host_name: names[0], rules: {...S.room.rules, players: 6}};
    const you = spectator ? {seat: null, spectator: true, host: false}
                          : {seat: 0, spectator: false, host: true};
    k.onMessage({type: "room", room, you}, S.conn);
}"""
INVITE = """(seats) => window.kozyr.showInvite({
    code: "ABCD2345EFGH6789", host_name: "Konstantinos", has_passphrase: true,
    rules: {variant: "perevodnoy", players: seats, deck: 36},
    seats: Array.from({length: seats},
                      (_, i) => ({seat: i, human: i < 2, bot: i === 2 ? 4 : null})),
}, false)"""


def audit_table_life(page: Any, lang: str, key: str) -> list[str]:
    """Issue 25's screens: the room between games seen by its host (kick,
    ready, a kept seat) and by a spectator (Sit here), the invite screen with
    a name and a passphrase; then back to the real room."""
    page.evaluate(BUSY_ROOM, False)
    wait_screen(page, "room")
    problems = audit(page, f"{lang}-room-host", key, scrolls=True)
    page.evaluate(BUSY_ROOM, True)
    page.wait_for_selector("#seat-list [data-action=sit]")
    problems += audit(page, f"{lang}-room-spectator", key, scrolls=True)
    page.evaluate("window.kozyr.onMessage(window.realRoom, window.kozyr.state.conn)")
    page.evaluate(INVITE, 6)
    wait_screen(page, "invite")
    problems += audit(page, f"{lang}-invite", key, scrolls=True)
    page.evaluate("window.kozyr.show('room')")
    return problems


def audit_chat_and_notices(page: Any, lang: str, key: str) -> list[str]:
    """At a six-player table: the phrases panel open, then three notices."""
    TABLE_SCENES["table-6-players"](page, f"{lang}-table-6-again", key)
    page.evaluate("window.kozyr.social.setRoom(window.kozyr.state.room, {seat: 0}, true)")
    page.click("#chat-open")
    page.wait_for_selector("#chat-panel:not([hidden])")
    problems = audit(page, f"{lang}-table-chat", key, scrolls=True, root="#chat-panel")
    page.keyboard.press("Escape")
    for name in ("Konstantinos", "Александрина", "翔太"):
        page.evaluate("(n) => window.kozyr.notify(n + ' · ' + n + ' · ' + n)", name)
    problems += audit(page, f"{lang}-table-notices", key)
    page.evaluate("document.querySelector('#notices').replaceChildren()")
    return problems


def audit_rules_box(page: Any, lang: str, key: str) -> list[str]:
    """The start screen's rules box open: every option with its "?" link."""
    page.click("#tab-computer")
    summary = page.locator('.rules-slot[data-prefix="cpu"] summary')
    summary.click()
    problems = audit(page, f"{lang}-start-rules", key, scrolls=True)
    summary.click()
    return problems


def audit_learning(page: Any, lang: str, key: str) -> list[str]:
    """A tip of the guided game on the table (the intro, then the defence's),
    and the help dialog (scrolled through, as a person would)."""
    page.evaluate("(code) => window.kozyr.guide.follow(code)", CHOICE_ROOM["code"])
    page.evaluate(DRAW_FRAME, [CHOICE_FRAME, CHOICE_ROOM])
    page.wait_for_selector("#guide-tip:not([hidden])")
    problems = audit(page, f"{lang}-guide-intro", key)
    page.click("#guide-tip [data-action=guide-ok]")
    problems += audit(page, f"{lang}-guide-defend", key)
    page.evaluate("window.kozyr.guide.hide(); localStorage.removeItem('kozyr.guideGame')")
    page.click("#help-open")
    problems += audit(page, f"{lang}-help", key, scrolls=True, root="#help")
    page.keyboard.press("Escape")
    return problems


def audit_privacy(page: Any, lang: str, key: str) -> list[str]:
    page.evaluate("document.querySelector('#result').hidden = true")
    page.click("#table-leave")
    page.click("#table-leave")
    wait_screen(page, "start")
    page.click("#tab-pnp")
    page.select_option("#pnp-count", "6")
    page.click("#panel-pnp button[type=submit]")
    page.wait_for_selector("#privacy:not([hidden])")
    return audit(page, f"{lang}-privacy", key, root="#privacy")


def audit_everything(page: Any, prefix: str, key: str) -> list[str]:
    """Every scene of SCENES on one page; ``prefix`` names the language (and
    the look, when it is not the language's own) in scenes and screenshots."""
    problems = audit_rules_box(page, prefix, key)
    problems += audit_start_and_room(page, prefix, key)
    problems += audit_table_life(page, prefix, key)
    for scene, run in TABLE_SCENES.items():
        problems += run(page, f"{prefix}-{scene}", key)
    problems += hand_steadiness(page, f"{prefix}-hand-steady")
    problems += audit_chat_and_notices(page, prefix, key)
    problems += audit_learning(page, prefix, key)
    page.evaluate(SHOW_RESULT, [GAME_OVER, TWO_ROOM])
    problems += audit(page, f"{prefix}-result", key, root="#result")
    problems += audit_privacy(page, prefix, key)
    return problems


@pytest.mark.parametrize(("key", "lang"), VIEWPORT_LANGUAGE)
def test_layout_audit(open_page: Any, key: str, lang: str) -> None:
    """Every scene of SCENES at one viewport in one language, in the look the
    language starts with (LANGUAGE_LOOK: Japanese audits the candy table on
    every viewport), on one page: each problem names its scene (the test's id
    names the viewport and language)."""
    page = open_page(VIEWPORTS[key], locale=LOCALES[lang])
    page.emulate_media(reduced_motion="reduce")
    wait_connected(page)
    assert page.evaluate("document.documentElement.dataset.theme") == LANGUAGE_LOOK[lang]
    problems = audit_everything(page, lang, key)
    assert not problems, f"{key} {lang}:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("key", "lang", "look"),
    [
        pytest.param(
            key, lang, look,
            marks=() if (key, lang) in OTHER_LOOK_BY_DEFAULT else pytest.mark.slow,
        )
        for key in OTHER_LOOK_VIEWPORTS
        for lang, look in OTHER_LOOKS
    ],
)  # fmt: skip
def test_layout_audit_in_the_other_look(open_page: Any, key: str, lang: str, look: str) -> None:
    """The look a language does not start with, picked by the player (issue 26):
    the candy table in English and Russian (Mocha's name and portrait in the
    seats, the host on the start screen), the classic one in Japanese; on a
    subset of the viewports (OTHER_LOOK_VIEWPORTS: a narrow phone, a phone on
    its side, a desktop), as the full matrix already takes minutes."""
    page = open_page(VIEWPORTS[key], locale=LOCALES[lang])
    page.emulate_media(reduced_motion="reduce")
    wait_connected(page)
    page.select_option("#theme-select", look)
    assert page.evaluate("document.documentElement.dataset.theme") == look
    problems = audit_everything(page, f"{lang}-{look}", key)
    assert not problems, f"{key} {lang} {look}:\n" + "\n".join(problems)


@pytest.mark.parametrize("key", list(VIEWPORTS))
def test_audit_table_of_a_real_game(open_page: Any, key: str) -> None:
    """The table as a real game draws it (against one bot, on your turn), with
    its animations."""
    page = open_page(VIEWPORTS[key])
    start_vs_computer(page, bots=1, deck="36")
    assert wait_turn(page) == "turn"
    problems = audit(page, "table-2-players", key)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("key", ["phone-360x740", "desktop-1280x800"])
def test_audit_candy_table_of_a_real_game(open_page: Any, key: str) -> None:
    """The candy table of a real game in Japanese: three Mocha seats (the most
    a phone shows in one row with portraits), with the animations."""
    page = open_page(VIEWPORTS[key], locale=LOCALES["ja"])
    start_vs_computer(page, bots=3, deck="36")
    assert wait_turn(page) in ("turn", "over")
    problems = audit(page, "ja-candy-table-4-players", key)
    assert not problems, "\n".join(problems)


@pytest.fixture(scope="module")
def viewed_games(server: Any) -> list[dict[str, Any]]:
    """Finished games for the viewer: two players (24 cards) and six (52 cards,
    long hands)."""
    return [finished_game(server, 5), finished_game(server, 6, "Konstantinos", 6, 52)]


def busiest_step(game: dict[str, Any]) -> int:
    """The step with the most cards in play (then the longest hand)."""
    steps = game["steps"]

    def weight(i: int) -> tuple[int, int]:
        state = steps[i]["state"]
        return len(state["table"]), max(len(h) for h in state["hands"])

    return max(range(len(steps)), key=weight)


@pytest.mark.parametrize(("key", "lang"), VIEWPORT_LANGUAGE)
def test_layout_audit_viewer(
    open_page: Any, viewed_games: list[dict[str, Any]], key: str, lang: str
) -> None:
    """The game viewer (a page that scrolls up and down): the deal, its busiest
    step, the last step with the discard pile open, for 2 and 6 players; and
    the refusal of a game that is not there."""
    page = open_page(VIEWPORTS[key], locale=LOCALES[lang])
    page.emulate_media(reduced_motion="reduce")
    problems: list[str] = []
    for game in viewed_games:
        n = len(game["steps"][0]["state"]["hands"])
        for name, step in (
            ("deal", 0),
            ("busy", busiest_step(game)),
            ("end", len(game["steps"]) - 1),
        ):
            page.goto(
                f"{page.url.split('/game/')[0].rstrip('/')}/game/{game['game_id']}?step={step}"
            )
            page.wait_for_selector(f'#screen-viewer[data-step="{step}"]')
            if name == "end":
                page.click("#viewer-discard summary")
            problems += audit(page, f"{lang}-viewer-{n}p-{name}", key, scrolls=True)
    page.goto(f"{page.url.split('/game/')[0].rstrip('/')}/game/987654321")
    page.wait_for_selector("#viewer-error:not([hidden])")
    problems += audit(page, f"{lang}-viewer-error", key, scrolls=True)
    assert not problems, f"{key} {lang}:\n" + "\n".join(problems)


#: The analysis panel: a phone upright and on its side, a desktop; a language each.
ANALYSIS_VIEWS = [("phone-360x740", "ru"), ("landscape-844x390", "en"), ("desktop-1280x800", "ja")]


@pytest.fixture(scope="module")
def analysed_game(server: Any, viewed_games: list[dict[str, Any]]) -> dict[str, Any]:
    """The two-player viewed game with seat 0 analysed (by its player, over HTTP)."""
    game = viewed_games[0]
    url = f"{server.url}/api/games/{game['game_id']}/analysis?seat=0"
    status, body = http("POST", url, headers={"authorization": f"Bearer {game['token']}"})
    assert status in (200, 202), body
    deadline = time.monotonic() + 120
    while body.get("status") != "done":
        assert time.monotonic() < deadline, body
        time.sleep(0.3)
        status, body = http("GET", url)
    return {**game, "analysis": body["result"]["seats"]["0"]}


@pytest.mark.parametrize(("key", "lang"), ANALYSIS_VIEWS)
def test_layout_audit_analysis(
    open_page: Any, analysed_game: dict[str, Any], key: str, lang: str
) -> None:
    """The viewer's analysis panel with results, at its worst mistake (the two
    moves side by side) or its first decision; then another seat's, offering
    Analyse."""
    decisions = analysed_game["analysis"]["decisions"]
    order = ["blunder", "mistake", "inaccuracy", "good", "best", "forced"]
    worst = min(decisions, key=lambda d: order.index(d["label"]))
    step = worst["index"] + 1
    path = f"game/{analysed_game['game_id']}?step={step}"
    page = open_page(VIEWPORTS[key], locale=LOCALES[lang], path=path)
    page.emulate_media(reduced_motion="reduce")
    page.wait_for_selector('#viewer-analysis[data-state="done"]')
    page.wait_for_selector(f'#analysis-move[data-index="{worst["index"]}"]')
    page.locator("#viewer-analysis").scroll_into_view_if_needed()
    problems = audit(page, f"{lang}-viewer-analysis-{worst['label']}", key, scrolls=True)
    page.select_option("#analysis-seat", "1")
    page.wait_for_selector('#viewer-analysis[data-state="idle"]')
    problems += audit(page, f"{lang}-viewer-analysis-idle", key, scrolls=True)
    assert not problems, f"{key} {lang}:\n" + "\n".join(problems)


@pytest.fixture(scope="module")
def profile_player(server: Any) -> dict[str, Any]:
    """A player with two finished games (a long name: the widest it may be)."""
    first = finished_game(server, 7, "Konstantinos")
    finished_game(server, 8, "Konstantinos", token=first["token"])
    return first


@pytest.mark.parametrize(("key", "lang"), VIEWPORT_LANGUAGE)
def test_layout_audit_profiles(
    open_page: Any, server: Any, profile_player: dict[str, Any], key: str, lang: str
) -> None:
    """The players' pages of issue 26 (pages that scroll up and down), with the
    candy balance in the top bar: the profile (a transfer code made, the delete
    confirmation open), My games, the public page, the leaderboard, a player
    who is not there."""
    page = open_page(VIEWPORTS[key], locale=LOCALES[lang])
    page.emulate_media(reduced_motion="reduce")
    with_token(page, server, profile_player["token"], "me")
    page.wait_for_selector("#profile-body:not([hidden])")
    page.wait_for_selector("#candy-link:not([hidden])")
    problems = audit(page, f"{lang}-profile", key, scrolls=True)
    page.click("#transfer-make")
    page.wait_for_selector("#transfer-code:not([hidden])")
    page.click("#delete-ask")
    problems += audit(page, f"{lang}-profile-code-delete", key, scrolls=True)
    page.click("#delete-no")
    public = page.get_attribute("#profile-public", "href")
    page.goto(f"{server.url}/me/games")
    page.wait_for_selector("#games-list .game-item")
    problems += audit(page, f"{lang}-my-games", key, scrolls=True)
    page.goto(public)
    page.wait_for_selector("#player-body:not([hidden])")
    problems += audit(page, f"{lang}-player", key, scrolls=True)
    page.goto(f"{server.url}/player/nobody00")
    page.wait_for_selector("#screen-player .page-error:not([hidden])")
    problems += audit(page, f"{lang}-player-missing", key, scrolls=True)
    page.goto(f"{server.url}/leaderboard")
    page.wait_for_function(
        "() => document.querySelector('#board-list').childElementCount"
        " || !document.querySelector('#board-empty').hidden"
    )
    problems += audit(page, f"{lang}-leaderboard", key, scrolls=True)
    assert not problems, f"{key} {lang}:\n" + "\n".join(problems)


def test_the_audit_finds_what_it_looks_for(open_page: Any) -> None:
    """The audit is not blind: overlapping seats, a covered button, a button too
    small to tap, a cut tag and a sideways scroll (inside the page) are all
    reported."""
    page = open_page(VIEWPORTS["phone-390x844"])
    wait_connected(page)
    page.evaluate(DRAW_FRAME, [six_players(), six_room()])
    page.add_style_tag(
        content=(
            ".opp { margin-right: -60px; }"
            '#actions [data-action="pass"] { min-height: 20px; height: 20px; }'
            '.opp[data-seat="1"] .tag { max-width: 12px; overflow: hidden; }'
            "#status { overflow-x: auto; white-space: nowrap; max-width: 150px; }"
        )
    )
    page.evaluate(
        """() => {
            const r = document.querySelector('#table-leave').getBoundingClientRect();
            const lid = document.createElement('div');
            lid.style.cssText = `position: fixed; z-index: 9; left: ${r.left}px; top: ${r.top}px;`
                + ` width: ${r.width}px; height: ${r.height}px`;
            document.body.append(lid);
        }"""
    )
    found = "\n".join(audit(page, "en-self-check", "phone-390x844"))
    for expected in (
        "seats overlap",
        "too small to tap: button[action=pass]",
        "cut in its seat: span",
        "covered: button#table-leave",
        "scrolls sideways",
    ):
        assert expected in found, f"{expected!r} not in:\n{found}"
