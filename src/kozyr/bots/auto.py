"""The "auto" level: a ladder that follows each human player, and their record.

The ladder goes one level up after the human wins (is not the durak), one
down after a loss (is the durak) and stays after a draw, always within 1..10.
A new player starts at level :data:`START_LEVEL` and, for their first
:data:`GENTLE_GAMES` games, never faces more than :data:`GENTLE_CAP`.

A :class:`PlayerRecord` keeps, per level played, the games, wins, losses and
draws (from the human's side) plus the ladder position.  Records are stored
as JSON in a small local file holding every player::

    {"version": 1,
     "players": {"anna": {"level": 5,
                          "levels": {"3": {"games": 1, "wins": 1, "losses": 0, "draws": 0},
                                     "4": {"games": 1, "wins": 1, "losses": 0, "draws": 0}}}}}

The default file is ``$KOZYR_HOME/players.json`` when ``KOZYR_HOME`` is set,
else ``~/.local/share/kozyr/players.json``.  The server will store the same
structure (``PlayerRecord.to_json``).

Typical use by a client::

    record = PlayerRecord.load("anna")          # a fresh record if unknown
    auto = AutoLevel(record)
    bot = auto.bot(seed)                        # plays at auto.level
    ...                                         # play the game
    auto.record_game("win")                     # the human's outcome
    record.save()
"""

from __future__ import annotations

import json
import os
import random
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .base import Bot
from .levels import MAX_LEVEL, MIN_LEVEL, level_bot

Outcome = Literal["win", "loss", "draw"]
OUTCOMES: tuple[Outcome, ...] = ("win", "loss", "draw")

START_LEVEL = 3
GENTLE_GAMES = 2
GENTLE_CAP = 4
FILE_VERSION = 1


class RecordFileError(ValueError):
    """A players file that is not valid JSON of the expected shape."""


@dataclass
class LevelStats:
    """A human's results against one level."""

    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0

    def add(self, outcome: Outcome) -> None:
        self.games += 1
        if outcome == "win":
            self.wins += 1
        elif outcome == "loss":
            self.losses += 1
        else:
            self.draws += 1

    def to_json(self) -> dict[str, int]:
        return {"games": self.games, "wins": self.wins, "losses": self.losses, "draws": self.draws}

    @classmethod
    def from_json(cls, data: Any) -> LevelStats:
        if not isinstance(data, dict):
            raise RecordFileError("level stats must be an object")
        values = {}
        for name in ("games", "wins", "losses", "draws"):
            v = data.get(name, 0)
            if type(v) is not int or v < 0:
                raise RecordFileError(f"{name} must be a non-negative integer, not {v!r}")
            values[name] = v
        return cls(**values)


@dataclass
class PlayerRecord:
    """One human's ladder position and per-level results."""

    name: str
    #: The ladder's level (before the new-player cap; see :attr:`AutoLevel.level`).
    level: int = START_LEVEL
    levels: dict[int, LevelStats] = field(default_factory=dict)

    @property
    def games(self) -> int:
        return sum(s.games for s in self.levels.values())

    def add(self, level: int, outcome: Outcome) -> None:
        """Count one game played against ``level``."""
        if outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {list(OUTCOMES)}, not {outcome!r}")
        self.levels.setdefault(level, LevelStats()).add(outcome)

    def to_json(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "levels": {str(k): self.levels[k].to_json() for k in sorted(self.levels)},
        }

    @classmethod
    def from_json(cls, name: str, data: Any) -> PlayerRecord:
        if not isinstance(data, dict):
            raise RecordFileError(f"player {name!r}: a record must be an object")
        level = data.get("level", START_LEVEL)
        if type(level) is not int or not MIN_LEVEL <= level <= MAX_LEVEL:
            raise RecordFileError(f"player {name!r}: level must be 1..10, not {level!r}")
        raw = data.get("levels", {})
        if not isinstance(raw, dict):
            raise RecordFileError(f"player {name!r}: 'levels' must be an object")
        levels = {}
        for key, stats in raw.items():
            if not (isinstance(key, str) and key.isdigit() and MIN_LEVEL <= int(key) <= MAX_LEVEL):
                raise RecordFileError(f"player {name!r}: {key!r} is not a level")
            levels[int(key)] = LevelStats.from_json(stats)
        return cls(name, level, levels)

    @classmethod
    def load(cls, name: str, path: Path | str | None = None) -> PlayerRecord:
        """``name``'s record from the players file (a new record if absent)."""
        return load_records(path).get(name) or cls(name)

    def save(self, path: Path | str | None = None) -> Path:
        """Write this record into the players file, keeping the other players."""
        records = load_records(path)
        records[self.name] = self
        return save_records(records, path)


def players_path() -> Path:
    """The default players file (``KOZYR_HOME`` overrides the directory)."""
    home = os.environ.get("KOZYR_HOME")
    base = Path(home) if home else Path.home() / ".local" / "share" / "kozyr"
    return base / "players.json"


def load_records(path: Path | str | None = None) -> dict[str, PlayerRecord]:
    """Every player's record from ``path`` (default :func:`players_path`);
    an empty dict if the file does not exist yet."""
    p = Path(path) if path is not None else players_path()
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordFileError(f"{p}: not JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("version") != FILE_VERSION:
        raise RecordFileError(f'{p}: expected an object with "version": {FILE_VERSION}')
    players = data.get("players", {})
    if not isinstance(players, dict):
        raise RecordFileError(f"{p}: 'players' must be an object")
    return {name: PlayerRecord.from_json(name, rec) for name, rec in players.items()}


def save_records(records: Mapping[str, PlayerRecord], path: Path | str | None = None) -> Path:
    """Write every record to ``path`` atomically (a crash never leaves half a file)."""
    p = Path(path) if path is not None else players_path()
    p.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "version": FILE_VERSION,
        "players": {name: records[name].to_json() for name in sorted(records)},
    }
    fd, tmp = tempfile.mkstemp(prefix=".players-", suffix=".json", dir=p.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2, ensure_ascii=False)
            f.write("\n")
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return p


class AutoLevel:
    """The adaptive level for one human; updates their :class:`PlayerRecord`."""

    def __init__(self, record: PlayerRecord | None = None) -> None:
        self.record = record if record is not None else PlayerRecord("player")

    @property
    def level(self) -> int:
        """The level of the next game (the ladder, capped for new players)."""
        level = min(max(self.record.level, MIN_LEVEL), MAX_LEVEL)
        if self.record.games < GENTLE_GAMES:
            level = min(level, GENTLE_CAP)
        return level

    def record_game(self, outcome: Outcome) -> int:
        """Count a game just played at :attr:`level` with the human's ``outcome``
        ("win": the human was not the durak); returns the next game's level."""
        played = self.level
        self.record.add(played, outcome)
        step = 1 if outcome == "win" else -1 if outcome == "loss" else 0
        self.record.level = min(max(played + step, MIN_LEVEL), MAX_LEVEL)
        return self.level

    def bot(self, seed: int | None = None) -> Bot:
        """A bot at :attr:`level`."""
        return level_bot(self.level, seed if seed is not None else random_seed())


def random_seed() -> int:
    """A fresh seed from the operating system (used when the caller gives none)."""
    return random.SystemRandom().getrandbits(63)
