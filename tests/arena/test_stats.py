"""Wilson intervals against published values; Elo fits on synthetic results."""

import math
import random

import pytest

from kozyr.arena.stats import ELO_SCALE, Cluster, Rating, elo_expected, fit_elo, sign_test, wilson


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        # statsmodels proportion_confint(k, n, method="wilson") / Wilson (1927)
        (5, 10, 0.2365931, 0.7634069),
        (0, 10, 0.0, 0.2775328),
        (1, 10, 0.0178762, 0.4041500),
        (10, 10, 0.7224672, 1.0),
        (81, 263, 0.2553, 0.3662),  # Wikipedia's worked example (to 4 places)
        (50, 100, 0.4038315, 0.5961685),
    ],
)
def test_wilson_known_values(k, n, low, high):
    lo, hi = wilson(k, n)
    places = 4 if n == 263 else 6
    assert lo == pytest.approx(low, abs=10**-places)
    assert hi == pytest.approx(high, abs=10**-places)


def test_wilson_edges_and_errors():
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(3, 7)
    assert 0 < lo < 3 / 7 < hi < 1
    # A 99% interval is wider than the 95% one.
    lo99, hi99 = wilson(3, 7, z=2.5758293035489)
    assert lo99 < lo and hi99 > hi
    with pytest.raises(ValueError):
        wilson(5, 4)
    with pytest.raises(ValueError):
        wilson(-1, 4)


def test_elo_expected():
    assert elo_expected(0) == 0.5
    assert elo_expected(400) == pytest.approx(10 / 11)
    assert elo_expected(-400) == pytest.approx(1 / 11)
    assert abs(ELO_SCALE - 173.7178) < 1e-4


def _simulate(true: list[int], games_per_pair: int, seed: int) -> list[Cluster]:
    rng = random.Random(seed)
    clusters: list[Cluster] = []
    k = len(true)
    for i in range(k):
        for j in range(i + 1, k):
            for _ in range(games_per_pair):
                if rng.random() < elo_expected(true[i] - true[j]):
                    clusters.append({(i, j): 1.0})
                else:
                    clusters.append({(j, i): 1.0})
    return clusters


def _fitted(r: Rating) -> tuple[float, float, float]:
    """The rating and interval of a player connected to the anchor (all three are set)."""
    assert r.rating is not None and r.low is not None and r.high is not None
    return r.rating, r.low, r.high


def test_elo_fit_recovers_ratings():
    true = [1000, 1150, 1400, 850]
    ratings = fit_elo(["a", "b", "c", "d"], _simulate(true, 1500, seed=7))
    assert ratings[0].anchor and ratings[0].rating == 1000
    got = [_fitted(r)[0] for r in ratings]
    # The ordering is recovered...
    assert sorted(range(4), key=lambda i: got[i]) == [3, 0, 1, 2]
    for r, t in zip(ratings, true, strict=True):
        rating, low, high = _fitted(r)
        # ...the differences to within the sampling error...
        assert rating == pytest.approx(t, abs=35)
        # ...and the intervals are of a sensible width (the truth is within 3.3
        # standard errors; coverage is tested below).
        if not r.anchor:
            se = (high - low) / 2 / 1.96
            assert abs(rating - t) <= 3.3 * se
            assert 10 < high - low < 80


def test_elo_interval_coverage():
    """Over many simulated tournaments the 95% interval covers the truth ~95% of the time."""
    covered = 0
    trials = 60
    for seed in range(trials):
        _, low, high = _fitted(fit_elo(["a", "b"], _simulate([1000, 1100], 200, seed))[1])
        covered += low <= 1100 <= high
    assert covered >= 0.85 * trials


def test_elo_draws_and_multiplayer_pairs():
    # Draws count half each way: all draws means equal ratings.
    clusters = [{(0, 1): 0.5, (1, 0): 0.5}] * 50
    r = fit_elo(["x", "y"], clusters)
    assert r[1].rating == pytest.approx(1000, abs=1e-6)
    # A 3-player "game" with durak 2: both others beat 2.
    clusters = [{(0, 2): 1.0, (1, 2): 1.0}] * 30 + [{(0, 1): 1.0, (1, 0): 1.0}] * 10
    r = fit_elo(["x", "y", "z"], clusters)
    assert r[1].rating == pytest.approx(1000, abs=1e-6)
    assert _fitted(r[2])[0] < 800


def test_elo_anchor_and_differences_are_invariant():
    clusters = _simulate([1000, 1200, 1300], 300, seed=3)
    a = fit_elo(["a", "b", "c"], clusters, anchor=0)
    b = fit_elo(["a", "b", "c"], clusters, anchor=1, anchor_rating=1500)
    assert b[1].rating == 1500 and b[1].anchor
    assert _fitted(a[2])[0] - _fitted(a[1])[0] == pytest.approx(
        _fitted(b[2])[0] - _fitted(b[1])[0], abs=1e-6
    )


def test_elo_never_losing_bot_is_finite_and_disconnected_is_none():
    r = fit_elo(["strong", "weak", "absent"], [{(0, 1): 1.0}] * 40)
    assert r[1].rating is not None and math.isfinite(r[1].rating)
    assert r[1].rating < 600  # far below, but finite thanks to the virtual draw
    assert r[2].rating is None and r[2].low is None


def test_elo_clustering_widens_correlated_results():
    """Results that always come in identical pairs carry half the information:
    the cluster-robust interval is wider than treating them as independent."""
    base = _simulate([1000, 1100], 200, seed=11)
    doubled = [{k: 2 * v for k, v in c.items()} for c in base]
    independent = base + base
    wide, wide_low, wide_high = _fitted(fit_elo(["a", "b"], doubled)[1])
    narrow, narrow_low, narrow_high = _fitted(fit_elo(["a", "b"], independent)[1])
    assert wide == pytest.approx(narrow, abs=1e-6)
    assert wide_high - wide_low > 1.3 * (narrow_high - narrow_low)


def test_elo_bad_input():
    with pytest.raises(ValueError):
        fit_elo(["a"], [{(0, 0): 1.0}])
    with pytest.raises(ValueError):
        fit_elo(["a", "b"], [{(0, 1): -1.0}])
    with pytest.raises(ValueError):
        fit_elo(["a", "b"], [], anchor=2)
    assert fit_elo(["a", "b"], [])[1].rating is None


@pytest.mark.parametrize(
    ("worse", "better", "p"),
    [
        # scipy.stats.binomtest(k, n, 0.5).pvalue
        (2, 8, 0.109375),
        (8, 2, 0.109375),
        (0, 5, 0.0625),
        (24, 11, 0.04095959),  # 2 P(X <= 11), X ~ Bin(35, 1/2)
        (5, 5, 1.0),
        (0, 0, 1.0),
        # past 1,023 games (2.0**n overflowed): exact, by fractions.Fraction
        (572, 672, 0.00498217918),
        (540, 613, 0.03392713385),
        (1500, 1500, 1.0),
    ],
)
def test_sign_test_known_values(worse, better, p):
    assert sign_test(worse, better) == pytest.approx(p, abs=1e-7)


def test_sign_test_refuses_negative_counts():
    with pytest.raises(ValueError, match="counts"):
        sign_test(-1, 3)
