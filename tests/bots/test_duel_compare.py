"""scripts/ismcts_duel.py --compare: two runs of the same deals, game by game
(issue 29's curve reads its figures this way)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from .helpers import ROOT, load_script

LABEL = 'A {"base": "10"} | B mc10 | podkidnoy'


def write_run(path: Path, duraks: Mapping[tuple[int, int], str | None], label: str = LABEL) -> None:
    with path.open("w", encoding="utf-8") as f:
        for (deal, rot), durak in duraks.items():
            f.write(json.dumps({"label": label, "deal": deal, "rotation": rot, "durak": durak}))
            f.write("\n")


def run_duel(*args: object) -> str:
    """What scripts/ismcts_duel.py prints for ``args``, run as a user runs it."""
    script = ROOT / "scripts" / "ismcts_duel.py"
    command = [sys.executable, str(script), *map(str, args)]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def test_compare_counts_each_kind_of_difference(tmp_path):
    duel = load_script("ismcts_duel")
    run = {(0, 0): "A", (0, 1): "A", (1, 0): "B", (1, 1): None, (2, 0): "A", (2, 1): "B"}
    ref = {(0, 0): "A", (0, 1): "B", (1, 0): "A", (1, 1): "B", (2, 0): "B", (2, 1): "A"}
    ref[(3, 0)] = "A"  # not in the run: left out
    write_run(tmp_path / "x.jsonl", run)
    write_run(tmp_path / "ref.jsonl", ref)
    text = duel.compare(
        duel.load_games(tmp_path / "x.jsonl")[0], duel.load_games(tmp_path / "ref.jsonl")[0]
    )
    assert text.startswith(
        "6 games in common (3 deals): A the durak in 3 (50.0 %) against 3 (50.0 %)"
    )
    # The same: (0, 0) only. A lost alone: (0, 1), (2, 0); REF's A alone: (1, 0), (2, 1).
    assert "1 end the same; A lost 2 that REF's A did not, REF's A 2 (sign test p 1.000)" in text
    # Per deal A's duraks, run - ref: deal 0 +1, deal 1 -1, deal 2 0.
    assert text.endswith("per deal worse in 1, better in 1, the same in 1")


def test_load_by_label_and_compare_from_the_command_line(tmp_path):
    """The files are read by label for --resume (another duel's lines in the
    same file are not its games), and --compare prints the sign test."""
    worse = {(d, r): "A" for d in range(6) for r in (0, 1)}
    ref = {(d, r): "B" for d in range(6) for r in (0, 1)}
    write_run(tmp_path / "x.jsonl", worse)
    write_run(tmp_path / "ref.jsonl", ref)
    with (tmp_path / "x.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps({"label": "other", "deal": 9, "rotation": 0, "durak": "B"}) + "\n")
    duel = load_script("ismcts_duel")
    assert set(duel.load_games(tmp_path / "x.jsonl", LABEL)[0]) == set(worse)
    # the same sides spelled otherwise are the same duel; other values are not
    respelled = 'A {"base":"10", "scale": 1.0} | B mc10 | podkidnoy'
    write_run(tmp_path / "y.jsonl", worse, 'A {"scale": 1, "base": "10"} | B mc10 | podkidnoy')
    assert set(duel.load_games(tmp_path / "y.jsonl", respelled)[0]) == set(worse)
    assert duel.load_games(tmp_path / "y.jsonl", respelled.replace("1.0", "2"))[0] == {}
    assert duel.load_games(tmp_path / "y.jsonl", respelled.replace("mc10", "mc9"))[0] == {}
    out = run_duel("--compare", tmp_path / "x.jsonl", tmp_path / "ref.jsonl")
    # 12 against 0: 2 / 2**12.
    assert "A lost 12 that REF's A did not, REF's A 0 (sign test p 0.000)" in out
    assert "per deal worse in 6, better in 0, the same in 0" in out


def test_compare_without_common_games():
    duel = load_script("ismcts_duel")
    assert duel.compare({(0, 0): "A"}, {(1, 0): "A"}) == "no game in common"


def test_merge_splits_the_deals_by_who_lost_them(tmp_path):
    """--merge also says, per deal, whether the play or the seat decided it."""
    duel = load_script("ismcts_duel")
    run: dict[tuple[int, int], str | None]
    run = {(0, 0): "A", (0, 1): "A", (1, 0): "B", (1, 1): "B", (2, 0): "B", (2, 1): "B"}
    run |= {(3, 0): "A", (3, 1): "B", (4, 0): "B", (4, 1): None, (5, 0): "A"}  # deal 5: one game
    assert duel.deal_split(run) == (
        "per deal (5 played in both seats): A the durak in both games in 1, "
        "B in both in 2, one each (the seat decided) in 1, a draw in 1"
    )
    write_run(tmp_path / "x.jsonl", run)
    out = run_duel("--merge", tmp_path / "x.jsonl")
    assert "durak: A 4 (36.4 %" in out
    assert out.endswith("the seat decided) in 1, a draw in 1\n")


def test_resume_refuses_games_played_with_other_configurations(tmp_path):
    """Each line keeps a digest of both sides' configurations: a resumed duel
    counts only the games its sides played as they are now, so that a level
    whose table changed (``"base": "10"``) cannot mix old games into a new run."""
    duel = load_script("ismcts_duel")
    tiny = '{"iterations": 50, "endgame_nodes": 50}'
    out = tmp_path / "t.jsonl"
    first = run_duel(tiny, tiny, "--deals", 1, "--workers", 1, "--out", out, "--resume")
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [row["configs"] for row in rows] == [duel.configs_key(tiny, tiny)] * 2
    # resumed as it is, nothing is played again and the table is the same
    again = run_duel(tiny, tiny, "--deals", 1, "--workers", 1, "--out", out, "--resume")
    assert again.split(" | ")[:-1] == first.split(" | ")[:-1]
    assert len(out.read_text(encoding="utf-8").splitlines()) == 2
    # the same sides played with another configuration are refused, with a reason
    out.write_text(out.read_text(encoding="utf-8").replace(rows[0]["configs"], "0" * 16))
    script = ROOT / "scripts" / "ismcts_duel.py"
    command = [sys.executable, str(script), tiny, tiny, "--out", str(out), "--resume"]
    refused = subprocess.run(command, capture_output=True, text=True)
    assert refused.returncode == 2
    assert "holds 2 games of these sides played with other configurations" in refused.stderr
    assert len(out.read_text(encoding="utf-8").splitlines()) == 2
    # lines from before the digest were played with the table of then, when
    # level 10 did not score replies by class of hand: they count where it is
    # today's too (a frozen level, level 9) and are refused where it is not
    before = 'A {"base": "is10"} | B mc10 | podkidnoy'
    duraks = {(0, 0): "A", (0, 1): "B"}
    for sides in ((before, '{"base": "is10"}'), (LABEL.replace('"10"', '"9"'), '{"base": "9"}')):
        write_run(tmp_path / "old.jsonl", duraks, sides[0])
        keys = (
            duel.configs_key(sides[1], "mc10"),
            duel.configs_key(sides[1], "mc10", duel.BEFORE_DIGEST),
        )
        assert keys[0] == keys[1]
        assert duel.load_games(tmp_path / "old.jsonl", sides[0], keys)[0] == duraks
    write_run(tmp_path / "live.jsonl", {(0, 0): "A"})  # LABEL: "base": "10"
    then = duel.configs_key('{"base": "10"}', "mc10", duel.BEFORE_DIGEST)
    without = '{"base": "10", "opponent_shrink": 0, "smooth": 0, "smooth_players": 6}'
    assert then == duel.configs_key(without, "mc10")  # the knobs level 10 took since
    keys = (duel.configs_key('{"base": "10"}', "mc10"), then)
    with pytest.raises(duel.StaleGames, match="holds 1 game of"):
        duel.load_games(tmp_path / "live.jsonl", LABEL, keys)
    assert duel.load_games(tmp_path / "live.jsonl", LABEL)[0] == {(0, 0): "A"}  # --merge reads it
    # knobs left at their defaults are not spelled: adding one keeps every digest
    spelled = duel.resolved('{"iterations": 50, "endgame_nodes": 60, "root_exploration": 0}')
    assert spelled == "(iterations=50.0, endgame_nodes=60.0, time_cap=60.0)"
    # nor are the inference's factors at theirs: a factor added later keeps them too
    side = '{"iterations": 50, "endgame_nodes": 60, "evidence": %s}'
    factors = duel.resolved(side % '{"led_dearer": 1}')
    assert factors == f"{spelled[:-1]}, evidence=Evidence(led_dearer=1.0))"
    level4 = duel.resolved(side % "{}")
    assert level4 == f"{spelled[:-1]}, evidence=Evidence())"
