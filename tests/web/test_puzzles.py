"""The /puzzles page in a real browser against the real server (issue 27 §5):
on a phone, a puzzle solved move by move (the solved count and the streak go
up), then one failed (the losing line is shown, the streak drops to 0, Try again
starts over); a search puzzle (three players, the others' unknown cards face
down, answered with chances); the layout audit of the page on a phone in 4
languages and on a desktop."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kozyr.bots import puzzles
from kozyr.engine.cards import cards_str

from ..server.harness import http
from .helpers import DESKTOP, PHONE, percent, shot, wait_screen
from .test_layout_audit import VIEWPORTS, audit
from .test_profile import with_token
from .test_viewer import LOCALES, text

EXACT = [p for p in puzzles.shipped() if p.kind == "exact"]


def solution(p: puzzles.Puzzle) -> list[dict[str, Any]]:
    return [a.to_json() for a in map(puzzles.decode, p.solution) if a.seat == p.seat]


def click_action(page: Any, action: dict[str, Any]) -> None:
    """Click the move button of ``action`` (the buttons carry their action's JSON)."""
    for btn in page.query_selector_all("#puzzle-board .puzzle-move"):
        if json.loads(btn.get_attribute("data-action")) == action:
            btn.click()
            return
    raise AssertionError(f"no button for {action}")


def stats_text(page: Any, solved: int, streak: int) -> str:
    return text("en", "puzzles.stats", solved=solved, streak=streak)


def test_solve_one_and_fail_one_on_a_phone(open_page: Any, server: Any) -> None:
    two = next(p for p in EXACT if p.moves == 2 and p.tags["players"] == 3)
    page = open_page(PHONE, path=f"puzzles?id={two.id}")
    wait_screen(page, "puzzles")
    page.wait_for_selector("#puzzle-board .puzzle-move")
    assert page.is_visible("#puzzle-known")  # every card is known, and it says so
    hands = two.position().hands
    shown = page.eval_on_selector_all("#puzzle-board .puzzle-seat .pcard", "els => els.length")
    assert shown == sum(h.bit_count() for h in hands)
    assert page.inner_text("#puzzle-stats") == stats_text(page, 0, 0)
    first, second = solution(two)
    click_action(page, first)
    page.wait_for_selector('#puzzle-feedback[data-result="right"]')
    click_action(page, second)
    page.wait_for_selector('#puzzle-feedback[data-result="solved"]')
    assert page.inner_text("#puzzle-stats") == stats_text(page, 1, 1)
    assert page.query_selector_all("#puzzle-board .puzzle-move") == []
    shot(page, "puzzle-solved-phone")

    # The next puzzle, failed: a legal move that is not the answer.
    page.click("#puzzle-next")
    page.wait_for_function(f"() => !location.search.includes('{two.id}')")
    page.wait_for_selector("#puzzle-board .puzzle-move")
    pid = page.evaluate("new URL(location.href).searchParams.get('id')")
    p = puzzles.by_id(pid)
    assert p is not None and pid != two.id
    right = solution(p)[0]
    wrong = next(a.to_json() for a in p.position().legal_actions() if a.to_json() != right)
    click_action(page, wrong)
    page.wait_for_selector('#puzzle-feedback[data-result="wrong"]')
    if p.kind == "exact":
        assert text("en", "puzzles.youDurak") in page.inner_text("#puzzle-feedback")
        assert page.eval_on_selector_all("#puzzle-feedback .puzzle-line li", "e => e.length")
    else:
        assert text("en", "puzzles.wrongSearch") in page.inner_text("#puzzle-feedback")
    assert page.inner_text("#puzzle-stats") == stats_text(page, 1, 0)
    shot(page, "puzzle-wrong-phone")
    page.click("#puzzle-retry")
    page.wait_for_selector("#puzzle-feedback", state="hidden")
    click_action(page, right)
    page.wait_for_selector(
        '#puzzle-feedback[data-result="right"], #puzzle-feedback[data-result="solved"]'
    )

    # The progress is the profile's: another browser with the same token (a
    # transfer code's, say) shows it, and Next skips the solved puzzle there too.
    token = page.evaluate("JSON.parse(localStorage.getItem('kozyr.token'))")
    status, mine = http("GET", f"{server.url}/api/me/puzzles",
                        headers={"authorization": f"Bearer {token}"})  # fmt: skip
    assert status == 200 and two.id in mine["ids"] and mine["streak"] == 0
    other = open_page(DESKTOP)
    with_token(other, server, token, f"puzzles?id={two.id}")
    wait_screen(other, "puzzles")
    other.wait_for_selector("#puzzle-board .puzzle-move")
    expect = stats_text(other, mine["solved"], 0)
    other.wait_for_function(
        "(want) => document.querySelector('#puzzle-stats').textContent === want", arg=expect
    )


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_a_search_puzzle_on_a_phone(open_page: Any, lang: str) -> None:
    """Three players hold cards: the others' unknown cards are face down, the
    page says why; a wrong move shows its chance and the best one's, Try again,
    then the right move shows every move's chance.  Audited in each state."""
    p = max((p for p in puzzles.shipped() if p.kind == "search"), key=lambda p: p.alternatives)
    page = open_page(PHONE, locale=LOCALES[lang], path=f"puzzles?id={p.id}")
    wait_screen(page, "puzzles")
    page.wait_for_selector("#puzzle-board .puzzle-move")
    assert page.inner_text("#puzzle-known") == text(lang, "puzzles.hiddenCards")
    assert page.inner_text("#puzzle-task") == text(lang, "puzzles.taskSearch")
    state = p.position()
    for seat in range(3):
        if seat == p.seat:
            continue
        sel = f'#puzzle-board .puzzle-seat[data-seat="{seat}"]'
        up = page.eval_on_selector_all(
            f"{sel} .pcard[data-card]", "e => e.map((x) => x.dataset.card)"
        )
        down = page.eval_on_selector_all(f"{sel} .pcard.back", "e => e.length")
        known = state.hands[seat] & state.known[seat]
        assert sorted(up) == sorted(cards_str(known))
        assert down == state.hands[seat].bit_count() - known.bit_count()
    assert page.eval_on_selector_all("#puzzle-board .pcard.back", "e => e.length") > 0
    problems = audit(page, f"{lang}-puzzle-search", "phone-360x740", scrolls=True)
    wrong_text, wrong_chance = p.chances[-1]
    click_action(page, puzzles.decode(wrong_text).to_json())
    page.wait_for_selector('#puzzle-feedback[data-result="wrong"]')
    said = text(
        lang, "puzzles.chanceWrong", played=percent(wrong_chance), best=percent(p.chances[0][1])
    )
    assert said in page.inner_text("#puzzle-feedback")
    page.click("#puzzle-retry")
    page.wait_for_selector("#puzzle-feedback", state="hidden")
    click_action(page, solution(p)[0])
    page.wait_for_selector('#puzzle-feedback[data-result="solved"]')
    rows = page.eval_on_selector_all(
        "#puzzle-feedback .puzzle-chances li", "e => e.map((x) => x.textContent)"
    )
    assert len(rows) == p.alternatives
    assert all(r.endswith(percent(c)) for r, (_, c) in zip(rows, p.chances, strict=True))
    shot(page, f"puzzle-search-solved-{lang}")
    problems += audit(page, f"{lang}-puzzle-search-solved", "phone-360x740", scrolls=True)
    assert not problems, "\n".join(problems)


def test_a_missing_puzzle_says_so(open_page: Any) -> None:
    page = open_page(DESKTOP, path="puzzles?id=nope")
    page.wait_for_selector("#puzzle-error:not([hidden])")
    assert page.inner_text("#puzzle-error") == text("en", "puzzles.notFound")


@pytest.mark.parametrize(
    ("key", "lang"),
    [("phone-360x740", lang) for lang in LOCALES] + [("desktop-1280x800", "en")],
)
def test_layout_audit_puzzles(open_page: Any, key: str, lang: str) -> None:
    """The puzzle of the day, then after a wrong move (the longest page)."""
    page = open_page(VIEWPORTS[key], locale=LOCALES[lang], path="puzzles")
    page.emulate_media(reduced_motion="reduce")
    page.wait_for_selector("#puzzle-board .puzzle-move")
    problems = audit(page, f"{lang}-puzzles", key, scrolls=True)
    pid = page.evaluate("fetch('api/puzzles/daily').then((r) => r.json()).then((d) => d.id)")
    p = puzzles.by_id(pid)
    assert p is not None
    right = solution(p)[0]
    wrong = next(a.to_json() for a in p.position().legal_actions() if a.to_json() != right)
    click_action(page, wrong)
    page.wait_for_selector('#puzzle-feedback[data-result="wrong"]')
    problems += audit(page, f"{lang}-puzzles-wrong", key, scrolls=True)
    assert not problems, f"{key} {lang}:\n" + "\n".join(problems)
