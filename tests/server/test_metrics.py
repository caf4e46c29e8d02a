"""``GET /metrics`` (Prometheus text format): well formed, and its figures move
as games are played, on one process and across a cluster."""

from __future__ import annotations

import random
import re
import time
import urllib.request
from pathlib import Path

from .harness import Client, ServerProcess, check_frames, http, play_out, run
from .services import Cluster

#: A sample line: name, optional {labels}, value.
SAMPLE = re.compile(r'^([a-z_]+)(\{(?:[a-z_]+="[^"]*",?)*\})? (-?[0-9.e+-]+|\+Inf|NaN)$')


def scrape(url: str) -> dict[str, float]:
    """The samples of ``url``/metrics by ``name{labels}``; checks the format."""
    with urllib.request.urlopen(url + "/metrics", timeout=10) as resp:
        assert resp.status == 200
        assert resp.headers["content-type"].startswith("text/plain; version=0.0.4")
        text = resp.read().decode()
    out: dict[str, float] = {}
    typed: set[str] = set()
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            typed.add(line.split()[2])
            continue
        if line.startswith("# HELP ") or not line:
            continue
        m = SAMPLE.match(line)
        assert m, f"not a sample line: {line!r}"
        name, labels, value = m.group(1), m.group(2) or "", m.group(3)
        family = re.sub(r"_(bucket|sum|count)$", "", name)
        assert name in typed or family in typed, f"{name} has no # TYPE"
        out[name + labels] = float(value)
    # The histogram's buckets are cumulative and end with +Inf = count.
    h = "kozyr_move_latency_seconds"
    buckets = [v for k, v in out.items() if k.startswith(h + "_bucket")]
    assert buckets == sorted(buckets) and buckets[-1] == out[h + "_count"]
    return out


def test_metrics_of_one_process_move_with_a_game(tmp_path: Path) -> None:
    srv = ServerProcess(tmp_path / "k.db", "--rate", "200", "--burst", "200").start()
    try:
        before = scrape(srv.url)
        assert before["kozyr_connections"] == 0 and before["kozyr_moves_total"] == 0
        assert before['kozyr_rooms{kind="owned"}'] == 0
        assert before['kozyr_info{node=""}'] == 1  # not in a cluster

        async def game() -> None:
            solo = Client(srv.ws_url, "solo")
            await solo.connect()
            await solo.send(
                {"type": "create_room", "seats": 3, "visibility": "private",
                 "move_time": None, "bot_level": 1, "start": True}
            )  # fmt: skip
            await solo.expect("game")
            during = scrape(srv.url)
            assert during["kozyr_connections"] == 1 and during["kozyr_games"] == 1
            assert during['kozyr_rooms{kind="owned"}'] == 1
            await play_out([solo], random.Random(2))
            _status, record = http("GET", srv.url + solo.over[-1]["record"])
            assert check_frames([solo], record) > 10
            after = scrape(srv.url)
            # Every move of the game, once; the latency of each of the person's.
            assert after["kozyr_moves_total"] == len(record["actions"])
            mine = [f for _, f in solo.frames if f["type"] == "event" and f["by"] == "player"]
            assert after["kozyr_move_latency_seconds_count"] == len(mine) > 0
            assert 0 < after["kozyr_move_latency_seconds_sum"] < len(mine)  # under 1 s each
            assert after["kozyr_frames_published_total"] == 0  # nothing leaves one process
            await solo.close()

        run(game())
        deadline = time.monotonic() + 10
        while scrape(srv.url)["kozyr_connections"] != 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert scrape(srv.url)["kozyr_connections"] == 0
    finally:
        srv.stop()


def test_metrics_across_the_cluster_count_frames_between_processes(cluster: Cluster) -> None:
    s0, s1, _s2 = cluster.servers
    before = [scrape(s.url) for s in (s0, s1)]
    node0 = next(k for k in before[0] if k.startswith("kozyr_info"))
    assert node0 != 'kozyr_info{node=""}'  # a cluster process names itself

    async def game() -> None:
        anna, boris = Client(s0.ws_url, "anna"), Client(s1.ws_url, "boris")
        code = await anna.create_room(seats=3, visibility="private", move_time=None)
        await boris.join(code)
        await anna.send({"type": "start"})
        await boris.expect("game")
        edge = scrape(s1.url)
        assert edge['kozyr_rooms{kind="attached"}'] == 1  # boris's room lives on s0
        await play_out([anna, boris], random.Random(8))
        await boris.expect("room")  # the room frame after game_over: the last one
        _status, record = http("GET", s1.url + anna.over[-1]["record"])
        assert check_frames([anna, boris], record) > 10
        after = [scrape(s.url) for s in (s0, s1)]
        moved = after[0]["kozyr_moves_total"] - before[0]["kozyr_moves_total"]
        assert moved == len(record["actions"])
        assert after[1]["kozyr_moves_total"] == before[1]["kozyr_moves_total"]
        # Every frame boris got but welcome came from s0 through Redis.
        published = (
            after[0]["kozyr_frames_published_total"] - before[0]["kozyr_frames_published_total"]
        )
        received = (
            after[1]["kozyr_frames_received_total"] - before[1]["kozyr_frames_received_total"]
        )
        assert published == received == len(boris.frames) - 1, (published, received)
        # Boris's moves were timed at the owner, s0.
        timed = (
            after[0]["kozyr_move_latency_seconds_count"]
            - before[0]["kozyr_move_latency_seconds_count"]
        )
        people = [f for _, f in anna.frames if f["type"] == "event" and f["by"] == "player"]
        assert timed == len(people)
        for c in (anna, boris):
            await c.close()

    run(game())
    cluster.check_logs()
