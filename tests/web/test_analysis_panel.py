"""The viewer's "Analyse" panel (issue 27) in a real browser against a real
server (the package's server runs analyses at a budget of 60 iterations, one
new analysis per player: tests/web/conftest.py): a game played by clicking
against the computer, opened from the result screen, analysed; the slider's
ticks, the graph and the played-versus-best box checked against the API's JSON;
"Next mistake"; a second seat refused as rate limited; a stored analysis read
again without starting anything, also by someone else in another language."""

from __future__ import annotations

import json
import math
from typing import Any

from ..server.harness import http
from .helpers import PHONE, percent, play_to_the_end, shot, start_vs_computer, wait_screen
from .test_viewer import I18N, finished_game, text

MARKED = ("inaccuracy", "mistake", "blunder")


def analysis_json(base: str, game_id: int, seat: int) -> dict[str, Any]:
    status, body = http("GET", f"{base}/api/games/{game_id}/analysis?seat={seat}")
    assert status == 200 and body["status"] == "done", body
    return dict(body["result"]["seats"][str(seat)])


def step_of(page: Any) -> int:
    return int(page.get_attribute("#screen-viewer", "data-step"))


def check_move_box(page: Any, decision: dict[str, Any]) -> None:
    """The box at a decision's step shows that decision: its label, the move
    played with its chance, and (unless it was best) the best with its own."""
    box = page.locator("#analysis-move")
    assert box.get_attribute("data-index") == str(decision["index"])
    assert box.get_attribute("data-label") == decision["label"]
    played = box.locator(".an-side-played")
    assert json.loads(played.get_attribute("data-action")) == decision["played"]
    assert percent(decision["chance_played"]) in played.inner_text()
    assert text("en", f"analysis.label.{decision['label']}") in box.inner_text()
    best = box.locator(".an-side-best")
    if decision["label"] in ("best", "forced"):
        assert best.count() == 0
    else:
        assert json.loads(best.get_attribute("data-action")) == decision["best"]
        assert percent(decision["chance_best"]) in best.inner_text()


def test_play_open_from_the_result_analyse_and_see_the_mistakes(open_page: Any) -> None:
    page = open_page(PHONE)
    page.emulate_media(reduced_motion="reduce")
    start_vs_computer(page, bots=1, deck="24", name="Vera")
    play_to_the_end(page, limit_s=240)
    page.wait_for_selector('#result-actions [data-action="open-game"]')
    game_id = int(page.evaluate("window.kozyr.state.over.game_id"))
    page.click('#result-actions [data-action="open-game"]')
    wait_screen(page, "viewer")
    page.wait_for_selector('#screen-viewer[data-state="ready"]')
    base = page.url.split("/game/")[0]
    token = page.evaluate("JSON.parse(localStorage.getItem('kozyr.token'))")
    status, mine = http("GET", f"{base}/api/me/games", headers={"authorization": f"Bearer {token}"})
    assert status == 200
    seat = next(g["seat"] for g in mine["games"] if g["game_id"] == game_id)

    # Your own seat is chosen; nothing is stored yet: the Analyse button.
    page.wait_for_selector('#viewer-analysis[data-state="idle"]')
    assert page.input_value("#analysis-seat") == str(seat)
    assert "(you)" in page.locator("#analysis-seat option:checked").inner_text()
    page.locator("#viewer-analysis").scroll_into_view_if_needed()
    shot(page, "analysis-phone-idle")
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.method) if "/analysis" in r.url else None)
    page.click("#analysis-start")
    page.wait_for_selector('#viewer-analysis[data-state="done"]', timeout=90_000)
    # The keyboard focus was on Analyse (gone now): it moved on, not to the page.
    focus = page.evaluate("document.activeElement.id")
    assert focus in ("analysis-next", "analysis-seat"), focus
    # Posted once (202: it runs), then polled with GET until it was done.
    assert asked[0] == "POST" and asked.count("POST") == 1 and "GET" in asked[1:], asked

    result = analysis_json(base, game_id, seat)
    decisions = result["decisions"]
    assert decisions, "a whole game without one decision"
    marked = [d for d in decisions if d["label"] in MARKED]
    # Ticks on the slider: one per inaccuracy, mistake or blunder, at its step.
    ticks = page.locator("#viewer-marks .vmark")
    assert ticks.count() == len(marked)
    assert sorted(int(s) for s in ticks.evaluate_all("els => els.map(e => e.dataset.step)")) == [
        d["index"] + 1 for d in marked
    ]
    for label in MARKED:
        chip = page.locator(f'.an-chip[data-label="{label}"]')
        n = sum(d["label"] == label for d in decisions)
        assert chip.get_attribute("data-count") == str(n)
        forms = json.loads((I18N / "en.json").read_text())["analysis"]["labels"][label]
        word = forms["one"] if n == 1 else forms["other"]  # "1 mistake", "2 mistakes"
        assert chip.inner_text().split() == [str(n), *word.split()]
    # The graph: one point per decision; a click on one opens its step.
    dots = page.locator("#analysis-graph circle.an-dot")
    assert dots.count() == len(decisions)
    middle = decisions[len(decisions) // 2]
    dot = page.locator(f'#analysis-graph circle.an-dot[data-step="{middle["index"] + 1}"]')
    page.locator("#analysis-graph").scroll_into_view_if_needed()
    box = dot.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_selector(f'#screen-viewer[data-step="{middle["index"] + 1}"]')
    check_move_box(page, middle)
    # Next mistake from the deal: each marked step in turn, then back to the first.
    page.keyboard.press("Home")
    page.wait_for_selector('#screen-viewer[data-step="0"]')
    if marked:
        for d in marked[:3]:
            page.click("#analysis-next")
            page.wait_for_selector(f'#screen-viewer[data-step="{d["index"] + 1}"]')
            check_move_box(page, d)
            assert f"step={d['index'] + 1}" in page.url
        shot(page, "analysis-phone-mistake")
        page.keyboard.press("End")
        page.keyboard.press("n")  # the shortcut: wraps to the first
        page.wait_for_selector(f'#screen-viewer[data-step="{marked[0]["index"] + 1}"]')
    else:
        assert page.locator("#analysis-next").is_disabled()

    # The other seat: not stored, and this player's one new analysis is spent.
    other = 1 - seat
    page.select_option("#analysis-seat", str(other))
    page.wait_for_selector('#viewer-analysis[data-state="idle"]')
    assert page.locator("#viewer-marks .vmark").count() == 0
    with page.expect_response(lambda r: "/analysis" in r.url and r.request.method == "POST") as got:
        page.click("#analysis-start")
    refusal = got.value.json()["error"]
    assert got.value.status == 429 and refusal["code"] == "rate_limited"
    page.wait_for_selector('#analysis-status[data-code="rate_limited"]')
    # 0.01 analyses an hour: the wait is about 100 hours, said in hours.
    wait = f"{math.ceil(refusal['retry_after'] / 3600)} h"
    assert page.inner_text("#analysis-status") == text(
        "en", "analysis.error.rate_limited", wait=wait
    )
    assert page.get_attribute("#viewer-analysis", "data-state") == "error"
    shot(page, "analysis-phone-rate-limited")

    # Opened again (a reload): the stored analysis comes back at once, nothing is posted.
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.reload()
    page.wait_for_selector('#viewer-analysis[data-state="done"]')
    assert page.locator("#analysis-graph circle.an-dot").count() == len(decisions)
    assert page.locator("#viewer-marks .vmark").count() == len(marked)
    assert not [u for u in posts if "/analysis" in u]

    # Someone else (another token) with a link to a step, in Russian: the stored
    # analysis of the person's seat, without asking for one, and that step's move.
    first = decisions[0]
    other_page = open_page(PHONE, locale="ru-RU", path=f"game/{game_id}?step={first['index'] + 1}")
    other_page.wait_for_selector('#viewer-analysis[data-state="done"]')
    assert other_page.input_value("#analysis-seat") == str(seat)
    assert text("ru", "analysis.title") in other_page.inner_text("#viewer-analysis")
    assert other_page.locator("#analysis-graph circle.an-dot").count() == len(decisions)
    other_page.wait_for_selector(f'#analysis-move[data-index="{first["index"]}"]')
    label = text("ru", f"analysis.label.{first['label']}")
    assert label in other_page.inner_text("#analysis-move")
    # Another language chosen on the page: the panel follows, results kept.
    other_page.select_option("#lang-select", "ja")
    other_page.wait_for_function(
        "t => document.querySelector('#viewer-analysis h2').textContent === t",
        arg=text("ja", "analysis.title"),
    )
    assert text("ja", f"analysis.label.{first['label']}") in other_page.inner_text("#analysis-move")
    assert other_page.locator("#viewer-marks .vmark").count() == len(marked)


def test_progress_and_a_busy_server_are_shown(open_page: Any, server: Any) -> None:
    """The panel's answers to the server's other states, the server's answers
    stood in for (Playwright's routing): ``analysis_busy`` is said in words with
    the wait, then a running analysis shows "n of N decisions" and a progress
    bar that follows the polls."""
    game = finished_game(server, 31, "Ilya")
    answers = [
        (503, {"error": {"code": "analysis_busy", "message": "busy", "retry_after": 40}}),
        (200, {"status": "running", "done": 3, "total": 12}),
        (200, {"status": "running", "done": 7, "total": 12}),
    ]
    asked: list[str] = []

    def answer(route: Any) -> None:
        if route.request.method == "POST" or asked:
            asked.append(route.request.method)
            status, body = answers[min(len(asked), len(answers)) - 1]
            route.fulfill(status=status, content_type="application/json", body=json.dumps(body))
        else:
            route.continue_()  # the first look: what is stored (nothing)

    page = open_page(PHONE, path=f"game/{game['game_id']}")
    page.route("**/api/games/*/analysis*", answer)
    wait_screen(page, "viewer")
    page.wait_for_selector('#viewer-analysis[data-state="idle"]')
    page.click("#analysis-start")
    page.wait_for_selector('#viewer-analysis[data-state="error"]')
    wait = text("en", "analysis.seconds", n=40)
    status = page.locator("#analysis-status")
    assert status.inner_text() == text("en", "analysis.error.analysis_busy", wait=wait)
    assert page.get_attribute("#analysis-status", "role") == "alert"
    page.click("#analysis-start")  # pressed again: now it runs
    page.wait_for_selector("#analysis-status progress.an-progress[value='3']")
    assert page.get_attribute("#analysis-status progress", "max") == "12"
    assert text("en", "analysis.progress", done=3, total=12) in status.inner_text()
    assert page.get_attribute("#analysis-start", "aria-busy") == "true"
    page.wait_for_selector("#analysis-status progress.an-progress[value='7']")  # the next poll
    assert text("en", "analysis.progress", done=7, total=12) in status.inner_text()
    assert asked[:2] == ["POST", "POST"] and "GET" in asked[2:]
    shot(page, "analysis-progress-phone")
