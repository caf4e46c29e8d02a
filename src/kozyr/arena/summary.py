"""Counting a tournament's results: durak rates per pairing and per bot, and ratings.

A *side* is an entrant of a pairing: one seat's bot, or with teams one team.
A side loses a game when it is the durak (with teams: the durak's team).  A
bot's durak rate is per side it fields: in ``10 4 4 4`` level 4 fields three
sides per game, so its rate is its losses divided by three times the games,
and the chance level is 1/4 for every bot.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .runner import GameResult
from .schedule import Pairing
from .spec import spec_label
from .stats import Rating, fit_elo, wilson


@dataclass(frozen=True)
class SideStats:
    label: str
    spec: str
    games: int
    duraks: int
    low: float
    high: float
    #: Cheating tables (rule 13): (cheats, caught, catches, false accusations).
    cheating: tuple[int, int, int, int] | None = None

    @property
    def rate(self) -> float:
        return self.duraks / self.games if self.games else 0.0


@dataclass(frozen=True)
class PairingStats:
    index: int
    label: str
    deals: int
    rotations: int
    games: int
    draws: int
    pogony: int
    mean_actions: float
    mean_rounds: float
    sides: tuple[SideStats, ...]
    #: Games abandoned after GAME_CAP actions (counted among the draws).
    unfinished: int = 0


@dataclass(frozen=True)
class BotStats:
    spec: str
    label: str
    games: int
    #: Sides this bot fields per game (1 in a heads-up pairing).
    sides_per_game: int
    #: Sides fielded over all its games (the denominator of its durak rate).
    sides: int
    duraks: int
    draws: int
    low: float
    high: float
    rating: Rating
    #: The bot fields every side of its games (self-play): its rate is fixed.
    self_play: bool = False

    @property
    def rate(self) -> float:
        return self.duraks / self.sides if self.sides else 0.0


@dataclass
class Summary:
    pairings: list[PairingStats]
    bots: list[BotStats]
    anchor: str
    games: int
    info: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        def interval(lo: float | None, hi: float | None) -> list[float | None]:
            return [_round(lo), _round(hi)]

        return {
            **self.info,
            "games": self.games,
            "bots": [
                {
                    "bot": b.spec,
                    "label": b.label,
                    "games": b.games,
                    "sides_per_game": b.sides_per_game,
                    "sides": b.sides,
                    "duraks": b.duraks,
                    "draws": b.draws,
                    "durak_rate": _round(b.rate),
                    "durak_rate_ci95": None if b.self_play else interval(b.low, b.high),
                    "self_play": b.self_play,
                    "elo": _round(b.rating.rating, 1),
                    "elo_ci95": interval(b.rating.low, b.rating.high)
                    if not b.rating.anchor
                    else None,
                    "elo_anchor": b.rating.anchor,
                }
                for b in self.bots
            ],
            "elo_anchor": {"bot": self.anchor, "elo": 1000},
            "pairings": [
                {
                    "pairing": p.label,
                    "deals": p.deals,
                    "rotations": p.rotations,
                    "games": p.games,
                    "draws": p.draws,
                    "unfinished": p.unfinished,
                    "pogony": p.pogony,
                    "mean_actions": _round(p.mean_actions, 2),
                    "mean_rounds": _round(p.mean_rounds, 2),
                    "sides": [
                        {
                            "label": s.label,
                            "bot": s.spec,
                            "duraks": s.duraks,
                            "durak_rate": _round(s.rate),
                            "durak_rate_ci95": interval(s.low, s.high),
                        }
                        | (_cheating_json(s.cheating) if s.cheating is not None else {})
                        for s in p.sides
                    ],
                }
                for p in self.pairings
            ],
        }


def _cheating_json(counts: tuple[int, int, int, int]) -> dict[str, Any]:
    cheats, caught, catches, false = counts
    return {
        "cheating": {
            "cheats": cheats,
            "caught": caught,
            "catches": catches,
            "false_accusations": false,
        }
    }


def _round(x: float | None, digits: int = 4) -> float | None:
    return None if x is None else round(x, digits)


def choose_anchor(specs: Sequence[str]) -> str:
    """Level 1 when it plays, otherwise the first bot named."""
    return "1" if "1" in specs else specs[0]


def _cheating_sums(
    games: Sequence[GameResult], entrants: int
) -> list[tuple[int, int, int, int]] | None:
    """Per entrant, the rule-13 counts summed over ``games`` (None: no cheating table)."""
    if not any(g.cheating for g in games):
        return None
    sums = [[0, 0, 0, 0] for _ in range(entrants)]
    for g in games:
        for i, counts in enumerate(g.cheating):
            for k in range(4):
                sums[i][k] += counts[k]
    return [(a, b, c, d) for a, b, c, d in sums]


def summarize(pairings: Sequence[Pairing], results: Sequence[GameResult], deals: int) -> Summary:
    """Count ``results`` (as returned by :func:`kozyr.arena.runner.run`)."""
    by_pairing: dict[int, list[GameResult]] = defaultdict(list)
    for g in results:
        by_pairing[g.pairing].append(g)

    pairing_stats = []
    specs: list[str] = []
    for p in pairings:
        for e in p.entrants:
            if e.spec not in specs:
                specs.append(e.spec)
        games = by_pairing.get(p.index, [])
        n = len(games)
        losses = [0] * len(p.entrants)
        draws = pogony = actions = rounds = unfinished = 0
        for g in games:
            unfinished += g.unfinished
            if g.loser is None:
                draws += 1
            else:
                losses[g.loser] += 1
            pogony += g.pogony
            actions += g.actions
            rounds += g.rounds
        cheating = _cheating_sums(games, len(p.entrants))
        sides = tuple(
            SideStats(
                e.label,
                e.spec,
                n,
                losses[i],
                *wilson(losses[i], n),
                cheating[i] if cheating else None,
            )
            for i, e in enumerate(p.entrants)
        )
        pairing_stats.append(
            PairingStats(
                p.index,
                p.label,
                deals,
                len(p.rotations()),
                n,
                draws,
                pogony,
                actions / n if n else 0.0,
                rounds / n if n else 0.0,
                sides,
                unfinished,
            )
        )

    # Per bot: games, sides fielded, losses.
    games_of: dict[str, int] = defaultdict(int)
    fielded_of: dict[str, int] = defaultdict(int)
    mixed: set[str] = set()
    sides_of: dict[str, set[int]] = defaultdict(set)
    losses_of: dict[str, int] = defaultdict(int)
    draws_of: dict[str, int] = defaultdict(int)
    # Pairwise results for the ratings, clustered by (pairing, deal).
    clusters: dict[tuple[int, int], dict[tuple[int, int], float]] = defaultdict(
        lambda: defaultdict(float)
    )
    index = {s: i for i, s in enumerate(specs)}
    for p in pairings:
        entrant_specs = [e.spec for e in p.entrants]
        for spec in set(entrant_specs):
            sides_of[spec].add(entrant_specs.count(spec))
            if len(set(entrant_specs)) > 1:
                mixed.add(spec)
        for g in by_pairing.get(p.index, []):
            cluster = clusters[(g.pairing, g.deal)]
            for spec in set(entrant_specs):
                games_of[spec] += 1
            for spec in entrant_specs:
                fielded_of[spec] += 1
            if g.loser is None:
                for spec in set(entrant_specs):
                    draws_of[spec] += 1
                for a, sa in enumerate(entrant_specs):
                    for b, sb in enumerate(entrant_specs):
                        if a != b and sa != sb:
                            cluster[(index[sa], index[sb])] += 0.5
                continue
            lost = entrant_specs[g.loser]
            losses_of[lost] += 1
            for a, sa in enumerate(entrant_specs):
                if a != g.loser and sa != lost:
                    cluster[(index[sa], index[lost])] += 1.0

    anchor = choose_anchor(specs)
    ratings = fit_elo(specs, list(clusters.values()), anchor=index[anchor])
    bots = []
    for spec, rating in zip(specs, ratings, strict=True):
        n = games_of[spec]
        ks = sides_of[spec]
        k = max(ks) if ks else 1
        self_play = spec not in mixed
        if self_play:
            # Every side is this bot: its rate is (games - draws) / sides by construction.
            fielded = fielded_of[spec]
            low = high = losses_of[spec] / fielded if fielded else 0.0
        elif len(ks) == 1:
            # At most one side loses a game, so "one of my k sides lost" is a
            # Bernoulli trial per game: its interval, divided by k, is exact.
            low, high = wilson(losses_of[spec], n)
            low, high = low / k, high / k
        else:
            low, high = wilson(losses_of[spec], fielded_of[spec])
        bots.append(
            BotStats(
                spec,
                spec_label(spec),
                n,
                k,
                fielded_of[spec],
                losses_of[spec],
                draws_of[spec],
                low,
                high,
                rating,
                self_play,
            )
        )
    return Summary(pairing_stats, bots, anchor, len(results))
