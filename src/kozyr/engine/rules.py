"""Table rules: every option named, validated and documented (see docs/rules.md)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Final, Literal

Variant = Literal["podkidnoy", "perevodnoy"]
FirstRoundCap = Literal["off", "first_round", "until_first_bito"]
ThrowIn = Literal["all", "neighbours"]
Teams = Literal["none", "2v2", "3v3", "2v2v2"]
FirstAttacker = Literal["lowest_trump", "durak_attacked", "after_durak"]

HAND_SIZE: Final = 6
ATTACK_CAP: Final = 6
FIRST_ROUND_CAP: Final = 5

_CHOICES: dict[str, tuple[Any, ...]] = {
    "players": (2, 3, 4, 5, 6),
    "deck": (24, 36, 52),
    "variant": ("podkidnoy", "perevodnoy"),
    "lead_multiple": (True, False),
    "first_round_cap": ("off", "first_round", "until_first_bito"),
    "throw_in": ("all", "neighbours"),
    "transfer_show_trump": (True, False),
    "teams": ("none", "2v2", "3v3", "2v2v2"),
    "first_attacker": ("lowest_trump", "durak_attacked", "after_durak"),
    "pogony": (True, False),
    "repetition_draw": (True, False),
    "throw_in_after_take": (True, False),
    "cheating": (False, True),
}

_TEAM_PLAYERS: Final[dict[str, int]] = {"2v2": 4, "3v3": 6, "2v2v2": 6}
_TEAM_COUNT: Final[dict[str, int]] = {"none": 0, "2v2": 2, "3v3": 2, "2v2v2": 3}


class RulesError(ValueError):
    """An option value that does not exist or options that cannot go together."""


@dataclass(frozen=True, slots=True)
class Rules:
    """The table rules of one game.  Defaults are the "classic" table.

    Every field is a named option; ``Rules.from_dict`` validates untrusted input.
    """

    players: int = 4
    deck: int = 36
    variant: Variant = "podkidnoy"
    #: The main attacker may lead several cards of one rank at once.
    lead_multiple: bool = True
    #: A cap of 5 attack cards for the first round only, or until the first bito.
    first_round_cap: FirstRoundCap = "off"
    #: Who may throw in: every attacker, or only the defender's neighbours.
    throw_in: ThrowIn = "all"
    #: Perevodnoy only: transfer by showing a trump of the rank without playing it.
    transfer_show_trump: bool = False
    #: Teammates sit in alternate seats (team = seat % number of teams).
    teams: Teams = "none"
    #: Who attacks first when the deal names the previous game's durak.
    first_attacker: FirstAttacker = "lowest_trump"
    #: Record pogony (the durak finished off with sixes) in the result.
    pogony: bool = True
    #: A round that begins in the same position as two earlier rounds ends the
    #: game in a draw (rule 9); without it two players can take back and forth forever.
    repetition_draw: bool = True
    #: After the defender takes, the attackers may still throw in up to the limit
    #: (rule 7); off, the take ends the round at once and the defender picks up.
    throw_in_after_take: bool = True
    #: "S shulerami": a player may throw in or lead alongside cards of a rank not on
    #: the table and cover with cards that do not beat; anyone may call a card out
    #: while it is on the table (rule 13 in docs/rules.md).
    cheating: bool = False

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            allowed = _CHOICES[f.name]
            # bool is an int subclass: keep players=True from passing as 1.
            if type(value) is not type(allowed[0]) or value not in allowed:
                raise RulesError(f"rule {f.name!r} must be one of {list(allowed)}, not {value!r}")
        if self.players * HAND_SIZE > self.deck:
            raise RulesError(
                f"a {self.deck}-card deck cannot deal {HAND_SIZE} cards to "
                f"{self.players} players ({self.players * HAND_SIZE} cards needed)"
            )
        if self.teams != "none" and _TEAM_PLAYERS[self.teams] != self.players:
            raise RulesError(
                f"teams {self.teams!r} need {_TEAM_PLAYERS[self.teams]} players, not {self.players}"
            )
        if self.transfer_show_trump and self.variant != "perevodnoy":
            raise RulesError("transfer_show_trump needs the perevodnoy variant")

    @property
    def team_count(self) -> int:
        """Number of teams, 0 when every player plays alone."""
        return _TEAM_COUNT[self.teams]

    @property
    def transfers(self) -> bool:
        return self.variant == "perevodnoy"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> Rules:
        """Build rules from JSON-like data; missing options take their defaults."""
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise RulesError(f"rules must be an object, not {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(map(str, set(data) - known))
        if unknown:
            raise RulesError(f"unknown rule option(s): {', '.join(unknown)}")
        for name, value in data.items():
            # Checked here too: the compiled dataclass would raise a bare TypeError.
            allowed = _CHOICES[name]
            if type(value) is not type(allowed[0]) or value not in allowed:
                raise RulesError(f"rule {name!r} must be one of {list(allowed)}, not {value!r}")
        return cls(**data)

    @classmethod
    def options(cls) -> dict[str, tuple[Any, ...]]:
        """Every option with its allowed values (for help screens and forms)."""
        return dict(_CHOICES)
