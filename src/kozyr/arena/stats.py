"""Statistics for bot tournaments: Wilson intervals, the sign test and Bradley–Terry
(Elo) ratings.

Durak rates get a Wilson score interval, which stays inside [0, 1] and keeps
close to its nominal coverage for small samples and rates near 0 or 1 (unlike
the normal "p ± 1.96·se" interval).

Ratings are a Bradley–Terry model fitted by maximum likelihood: bot ``i`` beats
bot ``j`` with probability ``1 / (1 + 10 ** ((R_j - R_i) / 400))``, the Elo
curve.  Results come in as weighted wins (a draw is half a win each way) grouped
in *clusters*: the games of one duplicate deal are not independent (they share
the cards), so the interval of a rating is the larger of the model-based one
(inverse Fisher information) and the cluster-robust "sandwich" one, which takes
the correlation within a cluster into account.  One virtual draw between every
two bots that met keeps the estimate finite when a bot never lost; its weight is
negligible next to a few dozen games.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

#: The 97.5% quantile of the standard normal: a two-sided 95% interval.
Z95 = 1.959963984540054
#: Elo points per natural-log unit of odds.
ELO_SCALE = 400.0 / math.log(10.0)


def wilson(successes: float, trials: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% by default).

    ``(0.0, 1.0)`` when there are no trials.
    """
    if trials < 0 or successes < 0 or successes > trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes}/{trials}")
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    denom = 1.0 + z2 / trials
    centre = (p + z2 / (2.0 * trials)) / denom
    half = z * math.sqrt(p * (1.0 - p) / trials + z2 / (4.0 * trials * trials)) / denom
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def sign_test(worse: int, better: int) -> float:
    """Two-sided exact sign test: the chance, were both outcomes equally likely,
    of a split at least as uneven as ``worse`` against ``better``.

    Used on the games that two runs of the same deals end differently, so that
    "10x lost 24 of them, 1x 11" gets a p-value; ``1.0`` when none differ.
    """
    if worse < 0 or better < 0:
        raise ValueError(f"need counts >= 0, got {worse} and {better}")
    n = worse + better
    # integers to the division: 2.0**n overflows a float past 1,023 games
    tail = sum(math.comb(n, i) for i in range(min(worse, better) + 1)) / (1 << n)
    return min(1.0, 2.0 * tail)


def elo_expected(diff: float) -> float:
    """Probability of beating an opponent rated ``diff`` Elo points lower."""
    return 1.0 / (1.0 + math.pow(10.0, -diff / 400.0))


# --------------------------------------------------------------- linear algebra
def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Solve ``a x = b`` by Gaussian elimination with partial pivoting."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        if abs(m[pivot][col]) < 1e-300:
            raise ZeroDivisionError("singular matrix")
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(col + 1, n):
            f = m[r][col] / m[col][col]
            if f:
                for c in range(col, n + 1):
                    m[r][c] -= f * m[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        s = m[r][n] - sum(m[r][c] * x[c] for c in range(r + 1, n))
        x[r] = s / m[r][r]
    return x


def _inverse(a: list[list[float]]) -> list[list[float]]:
    n = len(a)
    cols = [_solve(a, [1.0 if r == c else 0.0 for r in range(n)]) for c in range(n)]
    return [[cols[c][r] for c in range(n)] for r in range(n)]


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


# ------------------------------------------------------------------- ratings
@dataclass(frozen=True)
class Rating:
    """A fitted rating; ``low``/``high`` bound the 95% interval (equal to the
    rating for the anchor, which is fixed by definition).  ``rating`` is None
    for a player with no results connecting it to the anchor."""

    player: Hashable
    rating: float | None
    low: float | None
    high: float | None
    anchor: bool = False

    @property
    def half_width(self) -> float | None:
        if self.rating is None or self.high is None:
            return None
        return self.high - self.rating


Cluster = Mapping[tuple[int, int], float]


def fit_elo(
    players: Sequence[Hashable],
    clusters: Iterable[Cluster],
    anchor: int = 0,
    anchor_rating: float = 1000.0,
    prior_draws: float = 1.0,
) -> list[Rating]:
    """Fit Bradley–Terry ratings on the Elo scale by maximum likelihood.

    ``clusters`` are groups of correlated results (e.g. the games of one
    duplicate deal); each maps ``(winner, loser)`` player indices to a weight
    (1 per win, 0.5 each way per draw).  ``players[anchor]`` is fixed at
    ``anchor_rating``.  ``prior_draws`` virtual draws are added between every
    two players that met.  Returns one :class:`Rating` per player, in order.
    """
    k = len(players)
    if not 0 <= anchor < k:
        raise ValueError(f"anchor {anchor} is not a player index (0..{k - 1})")
    clusters = [dict(c) for c in clusters]
    wins = [[0.0] * k for _ in range(k)]
    for c in clusters:
        for (i, j), w in c.items():
            if i == j or not (0 <= i < k and 0 <= j < k):
                raise ValueError(f"bad pair ({i}, {j}) for {k} players")
            if w < 0:
                raise ValueError("weights must be non-negative")
            wins[i][j] += w
    for i in range(k):
        for j in range(i + 1, k):
            if wins[i][j] + wins[j][i] > 0:
                wins[i][j] += prior_draws / 2.0
                wins[j][i] += prior_draws / 2.0

    # Only players connected to the anchor by games get a rating.
    connected = {anchor}
    frontier = [anchor]
    while frontier:
        i = frontier.pop()
        for j in range(k):
            if j not in connected and wins[i][j] + wins[j][i] > 0:
                connected.add(j)
                frontier.append(j)
    free = [i for i in range(k) if i in connected and i != anchor]
    pos = {p: n for n, p in enumerate(free)}
    theta = [0.0] * k

    def loglik(t: list[float]) -> float:
        total = 0.0
        for i in connected:
            for j in connected:
                if wins[i][j]:
                    d = t[i] - t[j]
                    # log sigmoid(d), computed stably
                    total += wins[i][j] * (-math.log1p(math.exp(-d)) if d > -30 else d)
        return total

    def grad_hess(t: list[float]) -> tuple[list[float], list[list[float]]]:
        m = len(free)
        g = [0.0] * m
        h = [[0.0] * m for _ in range(m)]
        for i in connected:
            for j in connected:
                if j <= i:
                    continue
                n_ij = wins[i][j] + wins[j][i]
                if not n_ij:
                    continue
                p = _sigmoid(t[i] - t[j])
                gi = wins[i][j] - n_ij * p
                info = n_ij * p * (1.0 - p)
                if i in pos:
                    g[pos[i]] += gi
                    h[pos[i]][pos[i]] -= info
                if j in pos:
                    g[pos[j]] -= gi
                    h[pos[j]][pos[j]] -= info
                if i in pos and j in pos:
                    h[pos[i]][pos[j]] += info
                    h[pos[j]][pos[i]] += info
        return g, h

    if free:
        current = loglik(theta)
        for _ in range(200):
            g, h = grad_hess(theta)
            step = _solve([[-x for x in row] for row in h], g)
            scale = 1.0
            while True:
                trial = theta[:]
                for p, dp in zip(free, step, strict=True):
                    trial[p] += scale * dp
                value = loglik(trial)
                if value >= current - 1e-12 or scale < 1e-6:
                    break
                scale /= 2.0
            theta, improvement, current = trial, value - current, value
            if max(abs(dp) for dp in step) * scale < 1e-10 or 0 <= improvement < 1e-13:
                break

        _, h = grad_hess(theta)
        info = [[-x for x in row] for row in h]
        cov_model = _inverse(info)
        # Cluster-robust "meat": the outer products of each cluster's score.
        m = len(free)
        meat = [[0.0] * m for _ in range(m)]
        for c in clusters:
            score = [0.0] * m
            for (i, j), w in c.items():
                if i not in connected:
                    continue
                # d/d theta_i of w log sigmoid(theta_i - theta_j) = w (1 - sigmoid)
                d = w * (1.0 - _sigmoid(theta[i] - theta[j]))
                if i in pos:
                    score[pos[i]] += d
                if j in pos:
                    score[pos[j]] -= d
            for a in range(m):
                if score[a]:
                    for b in range(m):
                        meat[a][b] += score[a] * score[b]
        bread_meat = [
            [sum(cov_model[a][x] * meat[x][b] for x in range(m)) for b in range(m)]
            for a in range(m)
        ]
        cov_robust = [
            [sum(bread_meat[a][x] * cov_model[x][b] for x in range(m)) for b in range(m)]
            for a in range(m)
        ]
        se = {p: math.sqrt(max(cov_model[n][n], cov_robust[n][n], 0.0)) for p, n in pos.items()}
    else:
        se = {}

    out = []
    for i, player in enumerate(players):
        if i == anchor:
            out.append(Rating(player, anchor_rating, anchor_rating, anchor_rating, anchor=True))
        elif i in pos:
            r = anchor_rating + ELO_SCALE * (theta[i] - theta[anchor])
            half = Z95 * ELO_SCALE * se[i]
            out.append(Rating(player, r, r - half, r + half))
        else:
            out.append(Rating(player, None, None, None))
    return out
