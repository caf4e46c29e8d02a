"""``kozyr arena`` end to end: the table, --json, --save, --workers, errors."""

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import kozyr.bots
import kozyr.bots.match
from kozyr.bots.base import RandomBot
from kozyr.cli.main import main
from kozyr.cli.replay import replay_json
from kozyr.engine.actions import Action, Kind

#: Parts of the summary that depend on the machine, not on the games.
TIMING = ("elapsed_s", "games_per_s", "workers", "command")


def arena(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, COLUMNS="120")
    return subprocess.run(
        [sys.executable, "-m", "kozyr.cli.main", "arena", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )


def games_only(summary: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in summary.items() if k not in TIMING}


def test_random_vs_random_prints_the_table():
    out = arena("random", "random", "--deals", "20", "--workers", "1")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "2 players, podkidnoy, 36 cards" in text
    assert "40 games each: 20 duplicate deals × 2 seat rotations" in text
    for heading in ("Bots", "Pairings", "Durak rate [95% CI]", "Elo [95% CI]", "Length"):
        assert heading in text
    assert "random #1" in text and "random #2" in text
    assert "Command: kozyr arena random random --deals 20 --seed 1 --workers 1" in text
    assert "Elapsed:" in text and "games/s" in text
    assert "\x1b[" not in text  # no colour codes when not a terminal
    assert "playing" not in out.stderr  # no progress bar when not a terminal


def test_workers_do_not_change_results():
    common = ("random", "random", "random", "--deals", "12", "--seed", "5", "--json")
    one = arena(*common, "--workers", "1")
    two = arena(*common, "--workers", "2")
    assert one.returncode == 0, one.stderr
    assert two.returncode == 0, two.stderr
    a, b = json.loads(one.stdout), json.loads(two.stdout)
    assert a["workers"] == 1 and b["workers"] == 2
    assert games_only(a) == games_only(b)
    assert a["games"] == 36
    assert b["command"] == "kozyr arena random random random --deals 12 --seed 5 --workers 2"


def _sides(
    capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[dict[str, Any], list[tuple[str, int]], int]:
    assert main(["arena", "random", "1", "--json", "--workers", "1", "--seed", "3", *args]) == 0
    data = json.loads(capsys.readouterr().out)
    (pairing,) = data["pairings"]
    return data, [(s["bot"], s["duraks"]) for s in pairing["sides"]], pairing["draws"]


def test_a_run_in_parts_adds_up_to_the_whole_run(capsys):
    _, whole_sides, whole_draws = _sides(capsys, "--deals", "10")
    _, first_sides, first_draws = _sides(capsys, "--deals", "4")
    rest, rest_sides, rest_draws = _sides(capsys, "--deals", "10", "--first-deal", "4")
    assert rest["games"] == 12 and rest["first_deal"] == 4
    assert rest["command"].startswith("kozyr arena random 1 --first-deal 4 --deals 10")
    assert first_draws + rest_draws == whole_draws
    for (bot, a), (_, b), (_, total) in zip(first_sides, rest_sides, whole_sides, strict=True):
        assert a + b == total, bot
    assert main(["arena", "random", "1", "--deals", "4", "--first-deal", "4"]) == 1
    assert "--first-deal must be" in capsys.readouterr().err


def test_merged_parts_print_the_table_of_the_whole_run(tmp_path, capsys):
    line_up = ("random", "1", "1", "--seed", "3", "--workers", "1", "--json")
    whole, first, rest = (str(tmp_path / name) for name in ("whole", "first", "rest"))
    assert main(["arena", *line_up, "--deals", "6", "--save", whole]) == 0
    expected = json.loads(capsys.readouterr().out)
    assert main(["arena", *line_up, "--deals", "2", "--save", first]) == 0
    assert main(["arena", *line_up, "--deals", "6", "--first-deal", "2", "--save", rest]) == 0
    capsys.readouterr()
    assert main(["arena", "--merge", rest, first, "--json"]) == 0
    merged = json.loads(capsys.readouterr().out)
    assert merged.pop("merged_from") == [first, rest]
    assert games_only(merged) == games_only(expected)  # Elo and intervals included
    assert merged["command"] == "kozyr arena random 1 1 --deals 6 --seed 3 --workers 1"

    assert main(["arena", "--merge", whole, rest]) == 1  # overlapping deals
    assert "the parts do not adjoin" in capsys.readouterr().err
    other = str(tmp_path / "other")
    assert main(["arena", "random", "2", "--deals", "2", "--save", other, "--json"]) == 0
    capsys.readouterr()
    assert main(["arena", "--merge", other, rest]) == 1
    assert "not a part of the same run" in capsys.readouterr().err

    records = sorted(Path(rest).glob("p*.json"))
    records[0].unlink()  # a lost game is noticed
    assert main(["arena", "--merge", first, rest]) == 1
    assert "holds 11 records, its summary 12" in capsys.readouterr().err
    data = json.loads(records[1].read_text())
    data["actions"] = data["actions"][:-1]  # so is an edited one
    records[1].write_text(json.dumps(data))
    records[0].write_text(json.dumps(data))
    assert main(["arena", "--merge", first, rest]) == 1
    assert "does not replay to a finished game" in capsys.readouterr().err


def test_games_past_the_cap_count_as_unfinished_draws(monkeypatch, tmp_path, capsys):
    """With repetition_draw off a game may never end: past GAME_CAP actions it is
    recorded as it stands and counted as a draw, and the run goes on."""
    monkeypatch.setattr(kozyr.bots.match, "GAME_CAP", 30)
    saved = str(tmp_path / "capped")
    line_up = ("random", "random", "--deals", "3", "--workers", "1")
    rule = ("--rule", "repetition_draw=false")
    assert main(["arena", *line_up, *rule, "--json", "--save", saved]) == 0
    (pairing,) = json.loads(capsys.readouterr().out)["pairings"]
    assert pairing["unfinished"] == pairing["draws"] == pairing["games"] == 6
    assert all(side["duraks"] == 0 for side in pairing["sides"])
    record = json.loads(sorted(Path(saved).glob("p*.json"))[0].read_text())
    assert len(record["actions"]) == 31 and "result" not in record

    assert main(["arena", *line_up, *rule]) == 0
    text = capsys.readouterr().out
    assert "Unfinished: 6 games passed 30 actions and were counted as draws" in text
    assert main(["arena", "--merge", saved, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["pairings"][0]["unfinished"] == 6
    monkeypatch.setattr(kozyr.bots.match, "GAME_CAP", 20_000)
    assert main(["arena", "--merge", saved]) == 1  # short of the cap: not abandoned
    assert "does not replay to a finished game" in capsys.readouterr().err

    assert main(["arena", *line_up, "--json"]) == 0  # with the rule every game ends
    assert json.loads(capsys.readouterr().out)["pairings"][0]["unfinished"] == 0


def test_json_summary(capsys):
    assert main(["arena", "random", "random", "--games", "5", "--json", "--workers", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["deals"] == 3 and data["games"] == 6  # rounded up to whole deals
    assert data["rules"]["players"] == 2
    (bot,) = data["bots"]
    assert bot["bot"] == "random" and bot["self_play"] and bot["elo_anchor"]
    (pairing,) = data["pairings"]
    assert pairing["pairing"] == "random vs random" and pairing["rotations"] == 2
    assert sum(s["duraks"] for s in pairing["sides"]) + pairing["draws"] == 6
    for side in pairing["sides"]:
        low, high = side["durak_rate_ci95"]
        assert 0 <= low <= side["durak_rate"] <= high <= 1


def test_save_records_replay(tmp_path, capsys):
    code = main(
        [
            "arena",
            "random",
            "random",
            "random",
            "random",
            "--deals",
            "2",
            "--save",
            str(tmp_path),
            "--workers",
            "1",
            "--quiet",
            "--rule",
            "throw_in=neighbours",
        ]
    )
    assert code == 0
    capsys.readouterr()
    files = sorted(tmp_path.glob("p*.json"))
    assert len(files) == 2 * 4
    durak_count = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        record = json.loads(text)
        assert record["rules"]["throw_in"] == "neighbours"
        assert record["meta"]["arena"]["seed"] == 1
        assert len(record["meta"]["arena"]["bots"]) == 4
        code, out = replay_json(text)
        assert code == 0, out
        assert out["state"]["phase"] == "over"
        assert out["state"]["result"] == record["result"]
        durak_count += "durak" in record["result"]
    summary = json.loads((tmp_path / "arena.json").read_text(encoding="utf-8"))
    assert summary["games"] == 8
    assert durak_count == 8 - summary["pairings"][0]["draws"]


def test_save_with_workers_matches_in_process(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert (
        arena("random", "random", "--deals", "6", "--save", str(a), "--workers", "2").returncode
        == 0
    )
    assert (
        main(
            [
                "arena",
                "random",
                "random",
                "--deals",
                "6",
                "--save",
                str(b),
                "--workers",
                "1",
                "--json",
            ]
        )
        == 0
    )
    names = sorted(p.name for p in a.glob("p*.json"))
    assert names == sorted(p.name for p in b.glob("p*.json")) and len(names) == 12
    for name in names:
        assert (a / name).read_text() == (b / name).read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["minimax", "random"], "unknown bot 'minimax'"),
        (["random", "random", "--players", "4"], "4-player table needs 4 bots"),
        ([], "name the bots"),
        (["--round-robin", "random", "--players", "2"], "at least two bots"),
        (["--round-robin", "random,1", "--players", "3"], "needs 2 players"),
        (["random", "random", "--rule", "teams=2v2", "--players", "2"], "teams '2v2' need 4"),
        (["random", "random", "--rule", "nonsense=1"], "unknown rule 'nonsense'"),
        (["random", "random", "--rule", "pogony"], "NAME=VALUE"),
        (["random", "random", "--rule", "pogony=maybe"], "rule 'pogony' must be one of"),
        (["random"] * 5 + ["--deck", "24"], "24-card deck cannot deal"),
        (["random", "random", "--deals", "0"], "--deals must be at least 1"),
        (["random", "random", "--workers", "0"], "--workers must be at least 1"),
        (["mc4", "random"], "unknown bot 'mc4': the frozen flat Monte Carlo bots are mc5..mc10"),
        (["--round-robin", "5,mc11"], "unknown bot 'mc11'"),
        (["--round-robin", "mc5,MC5"], "'MC5' is listed twice"),
    ],
)
def test_errors(args, message, capsys):
    assert main(["arena", *args]) == 1
    err = capsys.readouterr().err
    assert message in err and err.startswith("kozyr arena: error:")


# --------------------------------------------- levels, with a stand-in factory
class FirstLegalBot:
    """Deterministic and weak: always the first legal action."""

    def __init__(self, level: int) -> None:
        self.name = f"level {level}"

    def choose(self, view):
        return view.legal[0]


class CheatBot:
    name = "cheat"

    def choose(self, view):
        return Action(view.seat, Kind.TAKE) if view.legal[0].kind != Kind.TAKE else view.legal[0]


def fake_make_bot(level, seed=None):
    if level == 9:
        return CheatBot()
    if level == 1:
        return FirstLegalBot(level)
    return RandomBot(seed)


def test_round_robin_with_levels(monkeypatch, capsys):
    monkeypatch.setattr(kozyr.bots, "make_bot", fake_make_bot, raising=False)
    code = main(
        ["arena", "--round-robin", "random,1,2", "--deals", "25", "--workers", "1", "--json"]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert [p["pairing"] for p in data["pairings"]] == [
        "random vs level 1",
        "random vs level 2",
        "level 1 vs level 2",
    ]
    assert data["elo_anchor"]["bot"] == "1"
    bots = {b["bot"]: b for b in data["bots"]}
    assert bots["1"]["elo"] == 1000 and bots["1"]["elo_anchor"]
    assert bots["1"]["games"] == 100 and bots["random"]["games"] == 100
    for spec in ("random", "2"):
        low, high = bots[spec]["elo_ci95"]
        assert low < bots[spec]["elo"] < high

    code = main(["arena", "--round-robin", "random,1,2", "--deals", "25", "--workers", "1"])
    text = capsys.readouterr().out
    assert code == 0
    assert "1000 (anchor)" in text and "random vs level 1" in text
    assert "Command: kozyr arena --round-robin random,1,2 --deals 25 --seed 1 --workers 1" in text


def test_multiplayer_table_and_teams(monkeypatch, capsys):
    monkeypatch.setattr(kozyr.bots, "make_bot", fake_make_bot, raising=False)
    assert (
        main(
            [
                "arena",
                "1",
                "random",
                "random",
                "random",
                "--deals",
                "10",
                "--workers",
                "1",
                "--json",
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    bots = {b["bot"]: b for b in data["bots"]}
    assert bots["random"]["sides_per_game"] == 3 and bots["random"]["sides"] == 120
    assert bots["1"]["duraks"] + bots["random"]["duraks"] + data["pairings"][0]["draws"] == 40
    assert data["pairings"][0]["pairing"] == "level 1, 3 × random"

    assert (
        main(
            [
                "arena",
                "--rule",
                "teams=2v2",
                "1",
                "random",
                "--deals",
                "10",
                "--workers",
                "1",
                "--json",
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["rules"]["players"] == 4 and data["games"] == 20  # 2 distinct rotations
    assert data["pairings"][0]["rotations"] == 2
    assert data["command"].startswith("kozyr arena 1 random --rule teams=2v2 --deals 10")


def test_illegal_move_names_the_bot(monkeypatch, capsys):
    monkeypatch.setattr(kozyr.bots, "make_bot", fake_make_bot, raising=False)
    assert main(["arena", "9", "random", "--deals", "3", "--workers", "1"]) == 1
    err = capsys.readouterr().err
    assert "bot 'level 9' in seat" in err and "illegal action" in err


# ------------------------------------------------------------- the real bots
def test_real_level_vs_random():
    args = ("1", "random", "--deals", "4", "--seed", "3", "--json", "--workers", "1")
    first, second = arena(*args), arena(*args)
    assert first.returncode == 0, first.stderr
    a, b = json.loads(first.stdout), json.loads(second.stdout)
    assert games_only(a) == games_only(b)
    assert a["games"] == 8 and a["pairings"][0]["pairing"] == "level 1 vs random"


def test_frozen_monte_carlo_bot_plays_saves_and_merges(tmp_path, capsys):
    """mc5 (level 5's flat Monte Carlo, frozen before issue 12) against level 5:
    labelled apart in the tables and JSON, and a saved run of it merges."""
    line_up = ("5", "MC5", "--seed", "1", "--workers", "1", "--json")
    first, rest = str(tmp_path / "first"), str(tmp_path / "rest")
    assert main(["arena", *line_up, "--deals", "2"]) == 0
    whole = json.loads(capsys.readouterr().out)
    assert whole["command"] == "kozyr arena 5 mc5 --deals 2 --seed 1 --workers 1"
    assert [(b["bot"], b["label"]) for b in whole["bots"]] == [("5", "level 5"), ("mc5", "mc5")]
    assert whole["pairings"][0]["pairing"] == "level 5 vs mc5"
    assert main(["arena", *line_up, "--deals", "1", "--save", first]) == 0
    assert main(["arena", *line_up, "--deals", "2", "--first-deal", "1", "--save", rest]) == 0
    capsys.readouterr()
    record = json.loads(sorted(Path(rest).glob("p*.json"))[0].read_text())
    assert record["meta"]["arena"]["specs"] == ["5", "mc5"]
    assert record["meta"]["arena"]["bots"] == ["level 5", "mc5"]
    assert main(["arena", "--merge", first, rest, "--json"]) == 0
    merged = json.loads(capsys.readouterr().out)
    assert merged.pop("merged_from") == [first, rest]
    assert games_only(merged) == games_only(whole)
    assert merged["command"] == whole["command"]
    assert main(["arena", "--merge", first, rest]) == 0
    text = capsys.readouterr().out
    assert "level 5 vs mc5" in text and "│ mc5 " in text


def test_help_lists_arena():
    out = subprocess.run(
        [sys.executable, "-m", "kozyr.cli.main", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "arena" in out.stdout
    assert Path(__file__).parent.name == "arena"


def test_cheating_tables_count_cheats_and_merge(tmp_path, capsys):
    """Rule 13: each side's cheats, times caught, catches and false accusations
    are in the table and the JSON, and parts merge to the whole run's counts."""
    line_up = ("4", "1", "--rule", "cheating=true", "--seed", "2", "--workers", "1")
    whole, first, rest = (str(tmp_path / name) for name in ("whole", "first", "rest"))
    assert main(["arena", *line_up, "--deals", "8", "--save", whole, "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    sides = expected["pairings"][0]["sides"]
    counts = [side["cheating"] for side in sides]
    assert all(c["false_accusations"] == 0 for c in counts)  # bots never accuse fair cards
    assert sum(c["cheats"] for c in counts) > 0
    assert counts[0]["caught"] == counts[1]["catches"]
    assert counts[1]["caught"] == counts[0]["catches"]
    assert main(["arena", *line_up, "--deals", "3", "--save", first, "--json"]) == 0
    assert main(["arena", *line_up, "--deals", "8", "--first-deal", "3", "--save", rest]) == 0
    capsys.readouterr()
    assert main(["arena", "--merge", first, rest, "--json"]) == 0
    merged = json.loads(capsys.readouterr().out)
    assert [s["cheating"] for s in merged["pairings"][0]["sides"]] == counts
    assert main(["arena", *line_up, "--deals", "2"]) == 0
    out = capsys.readouterr().out
    assert "Cheating" in out and "False acc." in out
    assert main(["arena", "4", "1", "--deals", "2", "--seed", "2", "--workers", "1"]) == 0
    assert "Cheating" not in capsys.readouterr().out  # honest tables print as before
