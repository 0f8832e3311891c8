"""Intervals for Bradley-Terry scores: the sandwich against statsmodels' robust covariance of the same logistic
regression, and the bootstrap's (and the sandwich's) coverage by simulation from known strengths."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.pairwise import PairwiseVotes, bootstrap_intervals, sandwich_intervals, style_controlled

STRENGTH = np.array([0.6, 0.2, -0.2, -0.6])


def simulate(n_votes, seed, strength=STRENGTH, tie_share=0.0, lengths=False):
    rng = np.random.default_rng(seed)
    s = len(strength)
    a = rng.integers(0, s, n_votes)
    b = (a + rng.integers(1, s, n_votes)) % s
    d = strength[a] - strength[b]
    len_a, len_b = rng.integers(20, 400, n_votes), rng.integers(20, 400, n_votes)
    if lengths:
        d = d + 1.5 * (len_a - len_b) / (len_a + len_b)
    p_a = (1 - tie_share) / (1 + np.exp(-d))
    u = rng.random(n_votes)
    outcome = np.where(u < p_a, 1.0, np.where(u < p_a + tie_share, 0.5, 0.0))
    names = tuple("pqrstuvw"[:s])
    return PairwiseVotes(names, a, b, outcome, None, None, None, len_a - len_b, length_total=len_a + len_b)


def centring(s):
    """Map from the reference-coded parameters (system 0 fixed at 0) to centred scores."""
    to_full = np.vstack([np.zeros(s - 1), np.eye(s - 1)])
    return (np.eye(s) - 1.0 / s) @ to_full


def reference_logit(votes, features=None):
    import statsmodels.api as sm

    s = len(votes.systems)
    x = np.zeros((votes.n, s))
    x[np.arange(votes.n), votes.a] = 1
    x[np.arange(votes.n), votes.b] = -1
    x = x[:, 1:]
    if features is not None:
        x = np.column_stack([x, features])
    return sm.Logit(votes.outcome, x).fit(cov_type="HC0", disp=0, tol=1e-12, maxiter=200, method="newton")


def test_sandwich_covariance_equals_statsmodels_robust_covariance():
    votes = simulate(1500, 1)
    result = reference_logit(votes)
    c = centring(len(votes.systems))
    ours = sandwich_intervals(votes, ridge=0.0)
    np.testing.assert_allclose(ours.scores, c @ result.params, atol=1e-8)
    np.testing.assert_allclose(ours.covariance, c @ result.cov_params() @ c.T, atol=1e-9)
    half = 1.959963984540054 * np.sqrt(np.diag(c @ result.cov_params() @ c.T))
    np.testing.assert_allclose(ours.upper - ours.scores, half, rtol=1e-6)


def test_style_control_equals_statsmodels_logit_with_the_length_covariate():
    votes = simulate(2000, 2, lengths=True)
    feature = votes.length_diff / votes.length_total
    feature = feature / np.sqrt(np.mean(feature**2))
    result = reference_logit(votes, feature[:, None])
    c = centring(len(votes.systems))
    ours = style_controlled(votes, interval="sandwich", ridge=0.0)
    np.testing.assert_allclose(ours.fit.scores, c @ result.params[:-1], atol=1e-7)
    assert ours.fit.coefficients["length"] == pytest.approx(result.params[-1], abs=1e-7)
    lo, hi = ours.coefficient_intervals["length"]
    assert (hi - lo) / 2 == pytest.approx(1.959963984540054 * result.bse[-1], rel=1e-6)
    cov = result.cov_params()[:-1, :-1]
    np.testing.assert_allclose(ours.intervals.covariance, c @ cov @ c.T, atol=1e-9)
    # the true effect, 1.5 per unit of the normalised difference, in units of its root mean square
    rms = ours.scale["length"]
    assert ours.fit.coefficients["length"] / rms == pytest.approx(1.5, abs=0.4)


def coverage(n_simulations, n_votes, n_resamples, ties, tie_share, seed=0):
    truth = STRENGTH - STRENGTH.mean()
    boot, sand = [], []
    for sim in range(n_simulations):
        votes = simulate(n_votes, seed + sim, tie_share=tie_share)
        b = bootstrap_intervals(votes, ties=ties, n_resamples=n_resamples, seed=sim)
        s = sandwich_intervals(votes, ties=ties)
        boot.append((b.lower <= truth) & (truth <= b.upper))
        sand.append((s.lower <= truth) & (truth <= s.upper))
    return float(np.mean(boot)), float(np.mean(sand))


@pytest.mark.parametrize(("ties", "tie_share"), [("half", 0.0), ("davidson", 0.2)])
def test_intervals_cover_the_true_scores_at_their_nominal_rate(ties, tie_share):
    """200 simulations x 4 systems of 800 votes, 1,000 resamples each (a few seconds: every resample of a
    simulation is one batched Newton over at most 18 (pair, outcome) cells). Within 3 points of 95 %."""
    boot, sand = coverage(200, 800, 1000, ties, tie_share)
    assert abs(boot - 0.95) <= 0.03, boot
    assert abs(sand - 0.95) <= 0.03, sand


def test_rank_intervals():
    votes = simulate(3000, 3, strength=np.array([2.0, 0.01, 0.0, -2.0]))
    boot = bootstrap_intervals(votes, n_resamples=500)
    assert boot.rank.tolist() in ([1, 2, 3, 4], [1, 3, 2, 4])
    assert boot.rank_lower[0] == boot.rank_upper[0] == 1 and boot.rank_lower[3] == boot.rank_upper[3] == 4
    # the two close systems share ranks 2-3
    assert boot.rank_lower[1:3].tolist() == [2, 2] and boot.rank_upper[1:3].tolist() == [3, 3]
    assert (boot.rank_lower <= boot.rank).all() and (boot.rank <= boot.rank_upper).all()
    assert boot.samples.shape == (500, 4)


def test_bootstrap_is_reproducible_and_seed_dependent():
    votes = simulate(400, 4)
    one, two = bootstrap_intervals(votes, n_resamples=200, seed=7), bootstrap_intervals(votes, n_resamples=200, seed=7)
    assert one.lower.tolist() == two.lower.tolist()
    assert one.lower.tolist() != bootstrap_intervals(votes, n_resamples=200, seed=8).lower.tolist()
