"""Confidence intervals for Bradley-Terry scores and ranks: bootstrap over votes, and the sandwich estimator.

* Bootstrap (Chiang et al. 2024, section 4 and their leaderboard): resample the votes with
  replacement ``n_resamples`` times, refit, and take percentile intervals of each system's centred
  score and of its rank (1 = best). The resampling is a multinomial draw of the (pair, outcome) cell
  counts, which is the same distribution as resampling votes, and all resamples are fitted in one
  batched Newton.
* Sandwich (Huber 1967; White 1980; Chiang et al. 2024, section 4, who use it to avoid assuming the
  BT model is exactly right): Cov = J^-1 (sum_v g_v g_v') J^-1 with J the observed information and
  g_v each vote's score vector, on the centred scores; intervals s +- z sqrt(Cov_ii).

Examples
--------
>>> from scoring.pairwise.votes import PairwiseVotes
>>> rng = np.random.default_rng(0)
>>> a = rng.integers(0, 3, 600); b = (a + rng.integers(1, 3, 600)) % 3
>>> strength = np.array([1.0, 0.0, -1.0])
>>> y = (rng.random(600) < 1 / (1 + np.exp(strength[b] - strength[a]))).astype(float)
>>> votes = PairwiseVotes(("p", "q", "r"), a, b, y, None, None, None, None)
>>> boot = bootstrap_intervals(votes, n_resamples=200)
>>> bool((boot.lower < boot.scores).all() and (boot.scores < boot.upper).all()), boot.rank.tolist()
(True, [1, 2, 3])
>>> sand = sandwich_intervals(votes)
>>> bool(np.allclose(sand.upper - sand.lower, boot.upper - boot.lower, rtol=0.35))
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scoring.pairwise._engine import check_ties, design, newton, sandwich
from scoring.pairwise.bradley_terry import DEFAULT_RIDGE, bradley_terry, voted_cells
from scoring.pairwise.votes import PairwiseVotes


@dataclass(frozen=True, eq=False)
class Intervals:
    """Point scores with interval bounds, per system (NaN for systems without votes).

    ``rank`` is 1 for the best point score; ``rank_lower`` / ``rank_upper`` are the rank interval's ends
    (bootstrap only; for the sandwich they equal ``rank``). ``covariance`` is the sandwich covariance of
    the centred scores (systems x systems; None for the bootstrap), ``samples`` the bootstrap scores
    (resamples x systems; None for the sandwich).
    """

    systems: tuple[str, ...]
    scores: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    rank: np.ndarray
    rank_lower: np.ndarray
    rank_upper: np.ndarray
    method: str
    level: float
    covariance: np.ndarray | None = None
    samples: np.ndarray | None = None


def ranks(scores: np.ndarray) -> np.ndarray:
    """1 + the number of systems with a strictly higher score, along the last axis (NaN ranks last).

    Parameters
    ----------
    scores : ndarray, shape (..., n_systems)
    """
    x = np.nan_to_num(np.asarray(scores, dtype=float), nan=-np.inf)
    return 1 + (x[..., None, :] > x[..., :, None]).sum(axis=-1)


def bootstrap_intervals(
    votes: PairwiseVotes,
    ties: str = "half",
    n_resamples: int = 1000,
    seed: int | None = 0,
    level: float = 0.95,
    ridge: float = DEFAULT_RIDGE,
) -> Intervals:
    """Percentile bootstrap intervals over votes for the scores and the ranks.

    Parameters
    ----------
    votes : PairwiseVotes
    ties : {"half", "davidson"}
    n_resamples : int
        Bootstrap resamples of the votes (Chatbot Arena uses 1,000 and more).
    seed : int or None
    level : float
        Two-sided coverage of the intervals.
    ridge : float
        See ``bradley_terry``; it matters in resamples where a system happens to win or lose every vote.

    Returns
    -------
    Intervals
    """
    check_ties(ties)
    fit = bradley_terry(votes, ties, ridge)
    present, c = voted_cells(votes)
    s = len(votes.systems)
    samples = np.full((n_resamples, s), np.nan)
    if c is not None:
        rng = np.random.default_rng(seed)
        counts = rng.multinomial(votes.n, c.count / c.count.sum(), size=n_resamples).astype(float)
        solution = newton(design(c.low, c.high, len(present)), c.y, counts, len(present), ties, ridge)
        samples[:, present] = solution.beta
    elif len(present) == 1:
        samples[:, present] = 0.0
    alpha = (1 - level) / 2
    lower, upper = np.full(s, np.nan), np.full(s, np.nan)
    if len(present):
        lower[present] = np.quantile(samples[:, present], alpha, axis=0)
        upper[present] = np.quantile(samples[:, present], 1 - alpha, axis=0)
    sample_ranks = ranks(samples)
    rank_lower = np.floor(np.quantile(sample_ranks, alpha, axis=0)).astype(int)
    rank_upper = np.ceil(np.quantile(sample_ranks, 1 - alpha, axis=0)).astype(int)
    return Intervals(
        votes.systems,
        fit.scores,
        lower,
        upper,
        ranks(fit.scores),
        rank_lower,
        rank_upper,
        "bootstrap",
        level,
        samples=samples,
    )


def sandwich_intervals(
    votes: PairwiseVotes, ties: str = "half", level: float = 0.95, ridge: float = DEFAULT_RIDGE
) -> Intervals:
    """Normal intervals on the centred scores from the robust (sandwich) covariance.

    Parameters
    ----------
    votes : PairwiseVotes
    ties : {"half", "davidson"}
    level : float
    ridge : float
        See ``bradley_terry``.

    Returns
    -------
    Intervals
    """
    check_ties(ties)
    fit = bradley_terry(votes, ties, ridge)
    present, c = voted_cells(votes)
    s = len(votes.systems)
    covariance = np.full((s, s), np.nan)
    if c is not None:
        theta = None if fit.tie_parameter is None else np.log(max(fit.tie_parameter, 1e-300))
        _, robust = sandwich(
            design(c.low, c.high, len(present)), c.y, c.count, fit.scores[present], theta, len(present), ties
        )
        covariance[np.ix_(present, present)] = robust[: len(present), : len(present)]
    elif len(present) == 1:
        covariance[present, present] = 0.0
    # imported here: importing scipy takes a third of a second at start-up
    from scipy.stats import norm

    half = norm.ppf(0.5 + level / 2) * np.sqrt(np.clip(np.diag(covariance), 0, None))
    rank = ranks(fit.scores)
    return Intervals(
        votes.systems,
        fit.scores,
        fit.scores - half,
        fit.scores + half,
        rank,
        rank.copy(),
        rank.copy(),
        "sandwich",
        level,
        covariance=covariance,
    )
