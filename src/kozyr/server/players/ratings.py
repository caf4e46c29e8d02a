"""Ratings: OpenSkill's Plackett–Luce model, one rating per variant.

Why OpenSkill: a Bayesian rating (a mean and an uncertainty) for 2–6 players
with ties and teams, well kept, pure Python, no network.  The scale is the
familiar one: a new player's mean is 1500 (OpenSkill's defaults times 60).  The
rating players see is the mean, so winning never lowers it and losing never
raises it (a conservative estimate, mean minus three sigmas, can rise after a
loss).  docs/players.md has the rules: who is rated, ranks, provisional.
"""

from __future__ import annotations

from dataclasses import dataclass

from openskill.models import PlackettLuce

#: OpenSkill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300) times 60.
MU = 1500.0
SIGMA = 500.0
MODEL = PlackettLuce(mu=MU, sigma=SIGMA, beta=MU / 6, tau=MU / 300)
#: A player's first games in a variant: provisional (not on the leaderboard).
PROVISIONAL_GAMES = 10
VARIANTS = ("podkidnoy", "perevodnoy")


@dataclass(frozen=True, slots=True)
class Skill:
    mu: float = MU
    sigma: float = SIGMA
    games: int = 0

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES

    @property
    def shown(self) -> int:
        """The rating players see: the mean, rounded."""
        return round(self.mu)


def rate(teams: list[list[Skill]], ranks: list[int]) -> list[list[Skill]]:
    """New skills after one game: ``teams`` (each a list of players' skills) and
    their ``ranks`` (1 is best; equal ranks tie).  Each player's game count
    goes up by one."""
    if len(teams) < 2:
        raise ValueError("a rated game needs two sides")
    before = [[MODEL.rating(mu=s.mu, sigma=s.sigma) for s in team] for team in teams]
    after = MODEL.rate(before, ranks=[float(r) for r in ranks])
    return [
        [Skill(r.mu, r.sigma, s.games + 1) for r, s in zip(new, old, strict=True)]
        for new, old in zip(after, teams, strict=True)
    ]
