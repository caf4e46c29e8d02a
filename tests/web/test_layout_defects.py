"""The layout defects seen by people who tried the client (issue 25, section 7),
each checked where it was seen: on a phone and on a desktop, in the languages
where it is a matter of text.

Screenshots: test-artifacts/screenshots/defects-*.png.
"""

from __future__ import annotations

from typing import Any

import pytest

from .helpers import DESKTOP, PHONE, shot, wait_connected
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
