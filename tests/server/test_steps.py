"""``GET /api/games/{id}/steps``: a finished game replayed for the viewer; a
running game refused; the client's own pages served at their paths."""

from __future__ import annotations

import asyncio
import gzip
import json
import random
import urllib.request
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kozyr.engine.record import GameRecord
from kozyr.server.edge.steps import replay_steps

from .harness import Client, ServerProcess, http, play_out, run


def _finished_game(server: ServerProcess, seed: int) -> dict[str, object]:
    """Play a 2-seat game (a random person against a level-1 bot): its game_over."""

    async def scenario() -> dict[str, object]:
        anna = Client(server.ws_url, "anna")
        await anna.create_room(
            seats=2, rules={"deck": 24}, bot_level=1, move_time=None, visibility="private"
        )
        await anna.send({"type": "start"})
        await anna.expect("game")
        await play_out([anna], random.Random(seed))
        return anna.over[-1]

    return run(scenario())


def test_steps_of_a_finished_game_replay_its_record(server: ServerProcess) -> None:
    over = _finished_game(server, 3)
    game_id = over["game_id"]
    status, record = http("GET", f"{server.url}/api/games/{game_id}")
    assert status == 200
    status, body = http("GET", f"{server.url}/api/games/{game_id}/steps")
    assert status == 200, body
    steps = body["steps"]
    assert body["game_id"] == game_id
    assert len(steps) == len(record["actions"]) + 1
    assert steps[0]["index"] is None and steps[0]["action"] is None
    assert [s["index"] for s in steps[1:]] == list(range(len(record["actions"])))
    assert [s["action"]["seat"] for s in steps[1:]] == [a["seat"] for a in record["actions"]]
    # The deal shows six cards a seat; the last step is the result everyone saw.
    assert [len(h) for h in steps[0]["state"]["hands"]] == [6, 6]
    assert steps[-1]["state"]["phase"] == "over"
    assert body["result"] == over["result"] == steps[-1]["state"]["result"]
    assert body["players"][0] == "anna" and body["rules"]["deck"] == 24
    # Every step is the engine's state after that many actions.
    rec = GameRecord.from_json(record)
    state = rec.start()
    from kozyr.engine.actions import Action

    for step, raw in zip(steps[1:], rec.actions, strict=True):
        state.apply(Action.from_json(raw))
        assert step["state"] == state.to_json()


def test_steps_are_sent_gzipped_when_the_browser_takes_it(server: ServerProcess) -> None:
    over = _finished_game(server, 4)
    req = urllib.request.Request(
        f"{server.url}/api/games/{over['game_id']}/steps", headers={"accept-encoding": "gzip"}
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        assert resp.headers["content-encoding"] == "gzip"
        body = json.loads(gzip.decompress(resp.read()))
    assert body["game_id"] == over["game_id"] and body["steps"]


def test_a_running_game_is_never_revealed(server: ServerProcess) -> None:
    async def scenario() -> tuple[int, str]:
        boris = Client(server.ws_url, "boris")
        code = await boris.create_room(seats=2, bot_level=1, move_time=None, visibility="private")
        await boris.send({"type": "start"})
        frame = await boris.expect("game")
        started: list[dict[str, Any]] = []
        for _ in range(100):  # the log line may come a moment after the frame
            started = [e for e in server.events("game_started") if e.get("room") == code]
            if started:
                break
            await asyncio.sleep(0.05)
        return int(started[-1]["game_id"]), str(frame["view"]["hand"][0])

    game_id, card = run(scenario())
    status, body = http("GET", f"{server.url}/api/games/{game_id}/steps")
    assert status == 409 and body["error"]["code"] == "game_not_finished", body
    assert card not in json.dumps(body)
    assert http("GET", f"{server.url}/api/games/{game_id}")[0] == 404  # nor its record


def test_bad_ids_get_clear_errors(server: ServerProcess) -> None:
    for bad in ("0", "-1", "abc", "1.5", str(2**63), "99999999"):
        status, body = http("GET", f"{server.url}/api/games/{bad}/steps")
        assert status == 404 and body["error"]["code"] == "no_such_game", (bad, body)
    status, body = http("POST", f"{server.url}/api/games/1/steps", {})
    assert status == 405
    assert http("GET", f"{server.url}/health")[0] == 200


def test_client_pages_are_served_with_a_base(server: ServerProcess) -> None:
    for path, base in (
        ("/game/12", "../"),
        ("/player/abc", "../"),
        ("/me", "./"),
        ("/me/games", "../"),
        ("/leaderboard", "./"),
    ):
        status, text = http("GET", server.url + path)
        assert status == 200, path
        assert f'<base href="{base}">' in text and 'id="screen-viewer"' in text, path


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), players=st.integers(2, 4), cut=st.integers(0, 400))
def test_every_step_keeps_every_card_once(seed: int, players: int, cut: int) -> None:
    """Whatever the game, each step holds each card of the deck exactly once
    (hands, deck, table, discard), and the steps follow the record."""

    rec = GameRecord.from_json({"rules": {"players": players}, "deal": {"seed": seed}})
    state = rec.start()
    rng = random.Random(seed)
    while not state.game_over and len(rec.actions) < cut:
        action = rng.choice(state.legal_actions())
        state.apply(action)
        rec.append(action)
    body = replay_steps(1, rec.to_json())
    assert len(body["steps"]) == len(rec.actions) + 1
    for step in body["steps"]:
        s = step["state"]
        cards = [c for h in s["hands"] for c in h] + s["deck_cards"] + s["discarded"]
        cards += [c for pair in s["table"] for c in (pair["attack"], pair["defense"]) if c]
        assert len(cards) == len(set(cards)) == 36
