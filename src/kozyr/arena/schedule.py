"""Who plays which deal in which seat: duplicate deals and seat rotation.

Luck of the cards is the largest source of noise in Durak results.  Every deal
is therefore played once per *rotation* of the bot assignment: at an n-player
table the line-up is shifted round the seats n times (fewer when the line-up
repeats itself, e.g. teams), so each bot holds each hand of the same deal once.
Every pairing of a round robin plays the same deals.

Every seed is derived from the arena seed, so a run is reproduced exactly by
the same command whatever the number of worker processes:

* deal ``d`` is ``Deal.from_seed(rules, derive(seed, d))``;
* the game of rotation ``r`` on that deal has seed ``derive(deal_seed, r)``;
* the bot in seat ``s`` of that game is created with ``derive(game_seed, s)``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from kozyr.engine.deal import SplitMix64

from .spec import ArenaError, spec_label

#: Seeds stay below 2**53 so that every JSON reader keeps them exact.
SEED_BITS = 53


def derive(*parts: int) -> int:
    """A seed derived from ``parts`` (order matters), below ``2**53``."""
    state = 0x4B6F7A7972  # "Kozyr"
    for p in parts:
        state = SplitMix64(state ^ (p & ((1 << 64) - 1))).next()
    return state >> (64 - SEED_BITS)


@dataclass(frozen=True)
class Entrant:
    """One side of a pairing: a bot, or a team of copies of one bot."""

    spec: str
    label: str


@dataclass(frozen=True)
class Pairing:
    """A line-up: its entrants and which entrant sits in each seat before rotation."""

    index: int
    entrants: tuple[Entrant, ...]
    base: tuple[int, ...]

    @property
    def label(self) -> str:
        """``level 10 vs level 4``; at a bigger table ``level 10, 3 × level 4``."""
        specs = [e.spec for e in self.entrants]
        if len(specs) == 2:
            return " vs ".join(spec_label(s) for s in specs)
        counts = Counter(specs)
        return ", ".join(
            spec_label(s) if counts[s] == 1 else f"{counts[s]} × {spec_label(s)}" for s in counts
        )

    def rotations(self) -> list[tuple[int, ...]]:
        return rotations(self.base)


@dataclass(frozen=True)
class GameSlot:
    """One game to play: pairing, deal and rotation, with its seeds and seating."""

    pairing: int
    deal: int
    rotation: int
    deal_seed: int
    game_seed: int
    #: The entrant (index into the pairing's entrants) in each seat.
    seats: tuple[int, ...]


def rotations(base: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The distinct rotations of a seat assignment, rotation 0 first.

    In rotation ``r`` the entrant of seat ``s`` in ``base`` sits in seat
    ``(s + r) % n``.
    """
    n = len(base)
    out: list[tuple[int, ...]] = []
    for r in range(n):
        seats = tuple(base[(t - r) % n] for t in range(n))
        if seats in out:
            break  # the assignment is periodic: the rest repeat
        out.append(seats)
    return out


def make_pairing(index: int, specs: list[str], players: int, team_count: int) -> Pairing:
    """A pairing from the bots of a line-up.

    Without teams there is one bot per seat.  With teams (team = seat % number
    of teams) give one bot per team, or one per seat with the same bot for
    every seat of a team.
    """
    if team_count:
        if len(specs) == players:
            team_specs: list[str] = []
            for t in range(team_count):
                mine = {specs[s] for s in range(t, players, team_count)}
                if len(mine) > 1:
                    seats = ", ".join(map(str, range(t, players, team_count)))
                    raise ArenaError(
                        f"team {t + 1} (seats {seats}) must be one bot: give one bot per team"
                    )
                team_specs.append(specs[t])
            specs = team_specs
        if len(specs) != team_count:
            raise ArenaError(
                f"{team_count} teams need {team_count} bots (one per team), not {len(specs)}"
            )
        base = tuple(s % team_count for s in range(players))
    else:
        if len(specs) != players:
            raise ArenaError(
                f"a {players}-player table needs {players} bots, not {len(specs)} "
                f"({' '.join(specs)})"
            )
        base = tuple(range(players))
    counts = Counter(specs)
    seen: Counter[str] = Counter()
    entrants = []
    for spec in specs:
        label = spec_label(spec)
        if counts[spec] > 1:
            seen[spec] += 1
            label = f"{label} #{seen[spec]}"
        entrants.append(Entrant(spec, label))
    return Pairing(index, tuple(entrants), base)


def build_schedule(
    pairings: list[Pairing], deals: int, seed: int, first: int = 0
) -> list[list[GameSlot]]:
    """Every game, grouped in blocks: one block per (pairing, deal), holding that
    deal's rotations.  The same deals are used for every pairing.

    ``first`` skips the deals before it, so a long run can be played in parts:
    deals ``0..k-1`` and ``k..n-1`` are exactly the games of one ``n``-deal run."""
    deal_seeds = {d: derive(seed, d) for d in range(first, deals)}
    blocks = []
    for p in pairings:
        rots = p.rotations()
        for d, ds in deal_seeds.items():
            blocks.append(
                [GameSlot(p.index, d, r, ds, derive(ds, r), seats) for r, seats in enumerate(rots)]
            )
    return blocks
