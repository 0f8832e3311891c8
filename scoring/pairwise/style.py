"""Style control: Bradley-Terry with the candidates' length difference (and lead-given covariates) as regressors.

Chatbot Arena's style-controlled leaderboard (Chiang et al., "Does style matter?", LMSYS blog, Aug 2024;
Chiang et al. 2024, arXiv 2403.04132) fits

    P(a > b) = sigma(s_a - s_b + gamma' f),

where f holds style features of the pair, so that the scores s say which system is better *at equal
style*. The length feature is Arena's normalised difference (len_a - len_b) / (len_a + len_b) (the raw
difference when the totals are unknown); lead-given covariates are a-minus-b differences too. Each
feature is divided by its root mean square over the votes, so a coefficient is the change in log-odds
per typical difference. (Arena also subtracts the feature's mean; that is left out here because it
would make the model depend on which candidate is called a; with a and b in random order the mean is
about zero anyway.) Ties are half wins or Davidson's, as in ``bradley_terry``; intervals are bootstrap
percentiles over votes (or the sandwich), for the scores and for the coefficients.

Examples
--------
System q is better only through longer answers: controlled for length its advantage disappears.

>>> from scoring.pairwise.bradley_terry import bradley_terry
>>> from scoring.pairwise.votes import PairwiseVotes
>>> rng = np.random.default_rng(3)
>>> n = 2000
>>> a = rng.integers(0, 2, n); b = 1 - a
>>> length_a = np.where(a == 1, 300, 100) + rng.integers(-80, 80, n)
>>> length_b = np.where(b == 1, 300, 100) + rng.integers(-80, 80, n)
>>> f = (length_a - length_b) / (length_a + length_b)
>>> y = (rng.random(n) < 1 / (1 + np.exp(-2 * f))).astype(float)
>>> votes = PairwiseVotes(("p", "q"), a, b, y, None, None, None, length_a - length_b,
...                       length_total=length_a + length_b)
>>> result = style_controlled(votes, n_resamples=100)
>>> raw = bradley_terry(votes).scores
>>> bool(raw[1] - raw[0] > 0.5), bool(abs(result.fit.scores[1] - result.fit.scores[0]) < 0.3)
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scoring.pairwise._engine import CHUNK, check_ties, design, newton, sandwich
from scoring.pairwise.bradley_terry import DEFAULT_RIDGE, BTFit, to_elo, voted_systems
from scoring.pairwise.intervals import Intervals, ranks
from scoring.pairwise.votes import PairwiseVotes

LENGTH = "length"


@dataclass(frozen=True, eq=False)
class StyleFit:
    """Style-controlled scores (``fit``, with ``fit.coefficients``), their ``intervals`` and the coefficients'
    intervals ``coefficient_intervals`` ``{name: (lower, upper)}``; ``scale`` ``{name: divisor}`` is each
    feature's root mean square (the unit of its coefficient)."""

    fit: BTFit
    intervals: Intervals
    coefficient_intervals: dict[str, tuple[float, float]]
    scale: dict[str, float]


def style_features(votes: PairwiseVotes) -> tuple[np.ndarray, list[str], dict[str, float]]:
    """The style regressors, (n, k) scaled to unit root mean square, their names and their scales.

    Features without variation (all zero) are left out.

    Parameters
    ----------
    votes : PairwiseVotes
    """
    columns, names = [], []
    if votes.length_total is not None:
        total = np.where(votes.length_total > 0, votes.length_total, 1.0)
        columns.append(votes.length_diff / total)
    else:
        columns.append(votes.length_diff)
    names.append(LENGTH)
    if votes.covariates is not None:
        columns.extend(votes.covariates.T)
        names.extend(votes.covariate_names)
    kept, kept_names, scale = [], [], {}
    for column, name in zip(columns, names, strict=True):
        rms = float(np.sqrt(np.mean(column**2))) if len(column) else 0.0
        if rms > 0:
            kept.append(column / rms)
            kept_names.append(name)
            scale[name] = rms
    features = np.column_stack(kept) if kept else np.zeros((votes.n, 0))
    return features, kept_names, scale


def style_controlled(
    votes: PairwiseVotes,
    ties: str = "half",
    n_resamples: int = 1000,
    seed: int | None = 0,
    level: float = 0.95,
    interval: str = "bootstrap",
    ridge: float = DEFAULT_RIDGE,
) -> StyleFit:
    """Bradley-Terry with the style features as extra regression terms.

    Parameters
    ----------
    votes : PairwiseVotes
    ties : {"half", "davidson"}
    n_resamples : int
        Bootstrap resamples of the votes (``interval="bootstrap"``).
    seed : int or None
    level : float
    interval : {"bootstrap", "sandwich"}
    ridge : float
        Prior precision on the system scores and on the coefficients (the features have unit root mean
        square); see ``bradley_terry``.

    Returns
    -------
    StyleFit
    """
    check_ties(ties)
    if interval not in ("bootstrap", "sandwich"):
        raise ValueError(f"interval must be 'bootstrap' or 'sandwich', got {interval!r}")
    features, names, scale = style_features(votes)
    present = voted_systems(votes)
    s, m = len(votes.systems), len(present)
    scores = np.full(s, np.nan)
    lower, upper = np.full(s, np.nan), np.full(s, np.nan)
    coefficients, coefficient_intervals = {}, {}
    samples, covariance = None, None
    nu, log_likelihood, converged = None, 0.0, True
    rank_lower = rank_upper = None
    if m >= 2:
        local = np.full(s, -1)
        local[present] = np.arange(m)
        a, b = local[votes.a], local[votes.b]
        x = design(a, b, m, features)
        y = votes.outcome
        point = newton(x, y, np.ones(votes.n), m, ties, ridge)
        beta = point.beta[0]
        scores[present] = beta[:m]
        coefficients = {name: float(beta[m + j]) for j, name in enumerate(names)}
        nu = None if point.theta is None else float(np.exp(point.theta[0]))  # Davidson's ties only
        log_likelihood, converged = float(point.log_likelihood[0]), bool(point.converged[0])
        alpha = (1 - level) / 2
        if interval == "bootstrap":
            rng = np.random.default_rng(seed)
            draws = []
            chunk = max(1, CHUNK // max(1, votes.n * x.shape[1]))
            for start in range(0, n_resamples, chunk):
                size = min(chunk, n_resamples - start)
                weights = rng.multinomial(votes.n, np.full(votes.n, 1.0 / votes.n), size=size).astype(float)
                draws.append(newton(x, y, weights, m, ties, ridge).beta)
            boot = np.concatenate(draws)
            samples = np.full((n_resamples, s), np.nan)
            samples[:, present] = boot[:, :m]
            lower[present] = np.quantile(boot[:, :m], alpha, axis=0)
            upper[present] = np.quantile(boot[:, :m], 1 - alpha, axis=0)
            for j, name in enumerate(names):
                lo, hi = np.quantile(boot[:, m + j], [alpha, 1 - alpha])
                coefficient_intervals[name] = (float(lo), float(hi))
            sample_ranks = ranks(samples)
            rank_lower = np.floor(np.quantile(sample_ranks, alpha, axis=0)).astype(int)
            rank_upper = np.ceil(np.quantile(sample_ranks, 1 - alpha, axis=0)).astype(int)
        else:
            theta = None if nu is None else np.log(max(nu, 1e-300))
            _, robust = sandwich(x, y, np.ones(votes.n), beta, theta, m, ties)
            # imported here: importing scipy takes a third of a second at start-up
            from scipy.stats import norm

            half = norm.ppf(0.5 + level / 2) * np.sqrt(np.clip(np.diag(robust), 0, None))
            lower[present] = beta[:m] - half[:m]
            upper[present] = beta[:m] + half[:m]
            for j, name in enumerate(names):
                coefficient_intervals[name] = (float(beta[m + j] - half[m + j]), float(beta[m + j] + half[m + j]))
            covariance = np.full((s, s), np.nan)
            covariance[np.ix_(present, present)] = robust[:m, :m]
    elif m == 1:
        scores[present] = lower[present] = upper[present] = 0.0
    rank = ranks(scores)
    fit = BTFit(votes.systems, scores, to_elo(scores), ties, nu, log_likelihood, votes.n, converged, coefficients)
    intervals = Intervals(
        votes.systems,
        scores,
        lower,
        upper,
        rank,
        rank if rank_lower is None else rank_lower,
        rank if rank_upper is None else rank_upper,
        interval,
        level,
        covariance=covariance,
        samples=samples,
    )
    return StyleFit(fit, intervals, coefficient_intervals, scale)
