"""The auto level's ladder and the players file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kozyr.bots import AutoLevel, PlayerRecord, make_bot, players_path
from kozyr.bots.auto import RecordFileError, load_records, save_records


def test_new_player_starts_gentle() -> None:
    auto = AutoLevel(PlayerRecord("anna"))
    assert auto.level == 3
    assert auto.record_game("win") == 4  # second game: capped at 4 anyway
    assert auto.record_game("win") == 5  # the gentle games are over
    assert auto.record_game("win") == 6
    assert auto.record.games == 3


def test_gentle_cap_applies_for_two_games() -> None:
    record = PlayerRecord("boris", level=8)  # e.g. a level set by hand
    auto = AutoLevel(record)
    assert auto.level == 4
    auto.record_game("draw")
    assert auto.level == 4
    auto.record_game("draw")
    assert auto.level == 4  # the ladder moved from the capped level, by 0
    record = PlayerRecord("vera", level=8)
    auto = AutoLevel(record)
    auto.record_game("loss")
    auto.record_game("loss")
    assert auto.level == 2


def test_ladder_moves_and_stays_in_bounds() -> None:
    auto = AutoLevel(PlayerRecord("gleb", level=9, levels={}))
    auto.record.add(9, "draw")
    auto.record.add(9, "draw")  # past the gentle games
    assert auto.level == 9
    assert auto.record_game("win") == 10
    assert auto.record_game("win") == 10
    assert auto.record_game("draw") == 10
    for _ in range(12):
        auto.record_game("loss")
    assert auto.level == 1
    assert auto.record_game("loss") == 1
    assert auto.record_game("win") == 2
    stats = auto.record.levels
    assert stats[10].games == 3 and stats[10].wins == 1 and stats[10].draws == 1
    assert stats[1].losses == 4 and stats[1].wins == 1  # 3 + 1 losses at the floor
    with pytest.raises(ValueError):
        auto.record_game("lost")  # type: ignore[arg-type]


def test_auto_bot_plays_the_ladder_level() -> None:
    record = PlayerRecord("dina", level=6)
    record.add(5, "win")
    record.add(6, "loss")
    assert AutoLevel(record).bot(1).name == "level 6"
    assert make_bot("auto", 1, record=record).name == "level 6"
    with pytest.raises(ValueError):
        make_bot(5, 1, record=record)


def test_record_file_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "players.json"
    anna = PlayerRecord("anna")
    auto = AutoLevel(anna)
    for outcome in ("win", "win", "loss", "draw"):
        auto.record_game(outcome)
    anna.save(path)
    PlayerRecord("егор").save(path)  # a second player keeps the first
    loaded = load_records(path)
    assert set(loaded) == {"anna", "егор"}
    assert loaded["anna"] == anna
    assert PlayerRecord.load("anna", path) == anna
    assert PlayerRecord.load("nobody", path) == PlayerRecord("nobody")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["version"] == 1
    assert data["players"]["anna"]["levels"]["3"] == {
        "games": 1,
        "wins": 1,
        "losses": 0,
        "draws": 0,
    }
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".players-")]


def test_missing_file_is_empty(tmp_path: Path) -> None:
    assert load_records(tmp_path / "none.json") == {}


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[]",
        '{"version": 2, "players": {}}',
        '{"version": 1, "players": []}',
        '{"version": 1, "players": {"a": {"level": 11}}}',
        '{"version": 1, "players": {"a": {"levels": {"x": {}}}}}',
        '{"version": 1, "players": {"a": {"levels": {"3": {"games": -1}}}}}',
    ],
)
def test_bad_files_are_rejected(tmp_path: Path, text: str) -> None:
    path = tmp_path / "players.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RecordFileError):
        load_records(path)


def test_default_path_honours_kozyr_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KOZYR_HOME", str(tmp_path))
    assert players_path() == tmp_path / "players.json"
    save_records({"ivan": PlayerRecord("ivan", level=7)})
    assert load_records()["ivan"].level == 7
    monkeypatch.delenv("KOZYR_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert players_path() == tmp_path / "home" / ".local" / "share" / "kozyr" / "players.json"
