"""Which pair of systems to compare next, and whether to go on collecting.

Active choice (Chiang et al. 2024, arXiv 2403.04132, section 5, "Efficient approximate ranking"): pair
a = (i, j) is sampled with probability

    P(a) proportional to sqrt(Sigma_aa / n_a) - sqrt(Sigma_aa / (n_a + 1)),

the expected narrowing of the interval of pair a's win rate from one more vote, where n_a is the number
of votes on the pair so far and Sigma_aa the variance of one vote's outcome on it; here Sigma_aa is the
Bradley-Terry fit's p_ij (1 - p_ij) (pairs near a coin flip gain most), and a pair without votes comes
first. ``focus="overlapping"`` (default) restricts the weights to pairs of systems whose current
intervals overlap, since only those still need votes for the ranking to separate (if none overlap,
all pairs); ``focus="all"`` is the paper's rule over all pairs. Deterministic by default (the k
pairs of largest weight, each pick updating n_a); ``seed`` samples as the paper does.

Stop rule: ``collection_state`` says "separated" when every two adjacent systems in the ranking have
non-overlapping intervals, "budget_spent" when the vote budget is used up first, otherwise "collecting".
(Non-overlap of two 95 % intervals is a conservative test of a difference, so "separated" is a safe stop.)

Examples
--------
>>> from scoring.pairwise.votes import PairwiseVotes
>>> votes = PairwiseVotes(("x", "y", "z"), a=[0, 0], b=[1, 1], outcome=[1, 0],
...                       both_bad=None, a_shown_first=None, item=None, length_diff=None)
>>> next_pairs(votes, 3, k=2)  # pairs without votes first
[(0, 2), (1, 2)]
>>> summary = {"systems": [{"system": "x", "score": 1.0, "ci": [0.5, 1.5]},
...                        {"system": "y", "score": 0.0, "ci": [-0.4, 0.4]}]}
>>> collection_state(summary, votes_used=120, budget=500)["state"]
'separated'
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import numpy as np

from scoring.pairwise.bradley_terry import DEFAULT_RIDGE, bradley_terry
from scoring.pairwise.intervals import Intervals, sandwich_intervals
from scoring.pairwise.votes import PairwiseVotes

FOCUS = ("overlapping", "all")


def pair_weights(
    votes: PairwiseVotes,
    n_systems: int,
    ties: str = "half",
    focus: str = "overlapping",
    level: float = 0.95,
    ridge: float = DEFAULT_RIDGE,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The active-choice inputs for every pair i < j.

    Parameters
    ----------
    votes : PairwiseVotes
    n_systems : int
        Systems 0 .. n_systems - 1 may be compared (some may have no votes yet).
    ties : {"half", "davidson"}
    focus : {"overlapping", "all"}
    level : float
        Coverage of the intervals that decide which pairs overlap.
    ridge : float

    Returns
    -------
    pairs : ndarray of int, shape (n_pairs, 2)
    counts : ndarray of float, shape (n_pairs,)
        Votes on each pair so far.
    variance : ndarray of float, shape (n_pairs,)
        One vote's outcome variance on each pair (0 for pairs left out by ``focus``).
    """
    if focus not in FOCUS:
        raise ValueError(f"focus must be one of {FOCUS}, got {focus!r}")
    if n_systems < 2:
        raise ValueError("active choice needs at least two systems")
    if votes.n and max(votes.a.max(), votes.b.max()) >= n_systems:
        raise ValueError("votes refer to systems beyond n_systems")
    i, j = np.triu_indices(n_systems, 1)
    pairs = np.column_stack([i, j])
    low, high = np.minimum(votes.a, votes.b), np.maximum(votes.a, votes.b)
    per_pair = np.bincount(low * n_systems + high, minlength=n_systems * n_systems).reshape(n_systems, n_systems)
    counts = per_pair[i, j].astype(float)
    scores = np.zeros(n_systems)
    overlap = np.ones(len(i), dtype=bool)
    if votes.n:
        fit = bradley_terry(votes, ties, ridge)
        known = np.nan_to_num(fit.scores[:n_systems], nan=0.0)
        scores[: len(known)] = known
        if focus == "overlapping":
            bounds = sandwich_intervals(votes, ties, level, ridge)
            lower = np.full(n_systems, -np.inf)
            upper = np.full(n_systems, np.inf)
            voted = np.isfinite(bounds.lower[:n_systems])
            lower[: len(voted)][voted] = bounds.lower[:n_systems][voted]
            upper[: len(voted)][voted] = bounds.upper[:n_systems][voted]
            overlap = (lower[i] <= upper[j]) & (lower[j] <= upper[i])
            if not overlap.any():
                overlap[:] = True
    p = 1.0 / (1.0 + np.exp(scores[j] - scores[i]))
    variance = np.where(overlap, p * (1 - p), 0.0)
    return pairs, counts, variance


def next_pairs(
    votes: PairwiseVotes,
    n_systems: int,
    k: int = 1,
    ties: str = "half",
    focus: str = "overlapping",
    seed: int | None = None,
    level: float = 0.95,
    ridge: float = DEFAULT_RIDGE,
) -> list[tuple[int, int]]:
    """The k system pairs (i, j), i < j, whose next votes are expected to narrow the intervals most.

    Parameters
    ----------
    votes : PairwiseVotes
        The votes so far (may be empty).
    n_systems : int
        The systems that can be compared, 0 .. n_systems - 1.
    k : int
        Pairs wanted; picks are made one at a time, each counting as one more vote on its pair
        (so a pair can come more than once).
    ties : {"half", "davidson"}
    focus : {"overlapping", "all"}
        Only pairs whose intervals overlap (default), or all pairs (Chiang et al.'s rule as published).
    seed : int or None
        None: deterministic, largest weight first (ties broken towards pairs with fewer votes, then
        by index); an int: sampled in proportion to the weights, as in the paper.
    level : float
    ridge : float

    Returns
    -------
    list of (int, int)
    """
    pairs, counts, variance = pair_weights(votes, n_systems, ties, focus, level, ridge)
    counts = counts.copy()
    rng = None if seed is None else np.random.default_rng(seed)
    chosen = []
    for _ in range(k):
        unvoted = (counts == 0) & (variance > 0)
        if unvoted.any():
            weight = unvoted.astype(float)
        else:
            safe = np.maximum(counts, 1.0)
            weight = np.sqrt(variance / safe) - np.sqrt(variance / (safe + 1))
            if not (weight > 0).any():
                weight = 1.0 / (counts + 1)
        if rng is None:
            pick = int(np.lexsort((np.arange(len(weight)), counts, -weight))[0])
        else:
            pick = int(rng.choice(len(weight), p=weight / weight.sum()))
        counts[pick] += 1
        chosen.append((int(pairs[pick, 0]), int(pairs[pick, 1])))
    return chosen


def _bounds(summary_or_intervals, interval: str) -> list[tuple[str, float, float, float]]:
    """(system, score, lower, upper) rows from a pairwise summary dict or an Intervals result."""
    if isinstance(summary_or_intervals, Mapping):
        rows = summary_or_intervals.get("systems") or []
        return [(r["system"], float(r["score"]), float(r[interval][0]), float(r[interval][1])) for r in rows]
    if isinstance(summary_or_intervals, Intervals):
        it = summary_or_intervals
        return [
            (name, float(it.scores[n]), float(it.lower[n]), float(it.upper[n]))
            for n, name in enumerate(it.systems)
            if np.isfinite(it.scores[n])
        ]
    intervals = getattr(summary_or_intervals, "intervals", None)  # a StyleFit
    if isinstance(intervals, Intervals):
        return _bounds(intervals, interval)
    raise TypeError("collection_state needs a pairwise_summary dict or an Intervals (a bare fit has no intervals)")


def collection_state(summary_or_fit, votes_used: int, budget: int | None, interval: str = "ci") -> dict:
    """Whether to keep collecting votes: "separated", "budget_spent" or "collecting", with the reason.

    Parameters
    ----------
    summary_or_fit : dict or Intervals
        A ``pairwise_summary`` result (its rows' ``interval`` key is used), or an ``Intervals`` (or a
        ``StyleFit``, whose intervals are used).
    votes_used : int
        Votes collected so far.
    budget : int or None
        The vote budget (None: no cap).
    interval : str
        For a summary dict: ``"ci"`` (bootstrap, default) or ``"sandwich_ci"``.

    Returns
    -------
    dict
        ``{"state", "reason", "votes_used", "budget", "overlapping": [[system, system], ...]}`` where
        ``overlapping`` lists the adjacent systems whose intervals still overlap.
    """
    rows = sorted(_bounds(summary_or_fit, interval), key=lambda r: -r[1])
    overlapping = [[hi[0], lo[0]] for hi, lo in itertools.pairwise(rows) if hi[2] <= lo[3]]
    state = {"votes_used": int(votes_used), "budget": None if budget is None else int(budget)}
    if len(rows) >= 2 and not overlapping:
        reason = f"the intervals of all {len(rows) - 1} adjacent pairs of systems are apart after {votes_used} votes"
        return {"state": "separated", "reason": reason, **state, "overlapping": []}
    if budget is not None and votes_used >= budget:
        reason = (
            f"the budget of {budget} votes is spent; {len(overlapping)} adjacent pairs still overlap"
            if len(rows) >= 2
            else f"the budget of {budget} votes is spent"
        )
        return {"state": "budget_spent", "reason": reason, **state, "overlapping": overlapping}
    if len(rows) < 2:
        reason = "fewer than two systems have votes"
    else:
        reason = f"{len(overlapping)} of {len(rows) - 1} adjacent pairs of systems have overlapping intervals"
    return {"state": "collecting", "reason": reason, **state, "overlapping": overlapping}
