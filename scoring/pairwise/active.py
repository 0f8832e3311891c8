"""Which pair of systems to compare next, and whether to go on collecting.

Two rules choose the next pairs (``rule=``):

* ``"chiang"``: Chiang et al. (2024, arXiv 2403.04132, section 5, "Efficient approximate ranking") sample
  pair a = (i, j) with probability

      P(a) proportional to sqrt(Sigma_aa / n_a) - sqrt(Sigma_aa / (n_a + 1)),

  the expected narrowing of the interval of pair a's win rate from one more vote, where n_a is the
  number of votes on the pair so far and Sigma_aa the variance of one vote's outcome on it (here the
  Bradley-Terry fit's p_ij (1 - p_ij)); a pair without votes comes first. It aims at every pair's win
  rate, so for separating a ranking it does about as well as uniform choice (see the bench).
* ``"intervals"`` (default): the same idea, "the vote expected to narrow the intervals most", aimed at
  the intervals the stop rule looks at. With the Fisher information of the centred scores
  J = sum_pairs n_ij p_ij (1 - p_ij) x_ij x_ij' (x_ij = e_i - e_j; plus half a virtual vote at p = 1/2
  on every pair, so that J is invertible before every pair has votes), one more vote on (i, j)
  lowers the covariance C = J^-1 by the rank-one Sherman-Morrison term
  h (C x)(C x)' / (1 + h x' C x), h = p_ij (1 - p_ij). A pair's weight is the resulting fall of the
  standard deviations of the systems in adjacent pairs whose intervals overlap (all systems if none
  do), each counted once per overlapping pair it is in. Votes between far-apart systems still count
  when they tie the ranking together, which restricting the paper's rule to the overlapping pairs
  would miss.

Both are deterministic by default (the k pairs of largest weight, each pick updating the counts, or C,
as if its vote had been cast); ``seed`` samples in proportion to the weights, as the paper does.

Stop rule: ``collection_state`` says "separated" when every two adjacent systems in the ranking have
non-overlapping intervals, "budget_spent" when the vote budget is used up first, otherwise "collecting".
(Non-overlap of two 95 % intervals is a conservative test of a difference, so "separated" is a safe stop.)

Examples
--------
>>> from scoring.pairwise.votes import PairwiseVotes
>>> votes = PairwiseVotes(("x", "y", "z"), a=[0, 0], b=[1, 1], outcome=[1, 0],
...                       both_bad=None, a_shown_first=None, item=None, length_diff=None)
>>> next_pairs(votes, 3, k=2, rule="chiang")  # pairs without votes first
[(0, 2), (1, 2)]
>>> sorted(next_pairs(votes, 3, k=2))  # z has no votes yet: its intervals are the widest
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
from scoring.pairwise.diagnostics import estimable
from scoring.pairwise.intervals import Intervals
from scoring.pairwise.votes import PairwiseVotes

RULES = ("intervals", "chiang")
PRIOR_VOTES = 0.5  # virtual votes at p = 1/2 on every pair in the design's information matrix


def pair_state(
    votes: PairwiseVotes, n_systems: int, ties: str = "half", ridge: float = DEFAULT_RIDGE
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What active choice starts from: every pair i < j, its votes so far, its p_ij and the current scores.

    Parameters
    ----------
    votes : PairwiseVotes
    n_systems : int
        Systems 0 .. n_systems - 1 may be compared (some may have no votes yet).
    ties : {"half", "davidson"}
    ridge : float

    Returns
    -------
    pairs : ndarray of int, shape (n_pairs, 2)
    counts : ndarray of float, shape (n_pairs,)
    p : ndarray of float, shape (n_pairs,)
        The Bradley-Terry probability that i beats j (1/2 for systems without votes).
    scores : ndarray of float, shape (n_systems,)
        Current centred scores (0 for systems without votes).
    """
    if n_systems < 2:
        raise ValueError("active choice needs at least two systems")
    if votes.n and max(votes.a.max(), votes.b.max()) >= n_systems:
        raise ValueError("votes refer to systems beyond n_systems")
    i, j = np.triu_indices(n_systems, 1)
    low, high = np.minimum(votes.a, votes.b), np.maximum(votes.a, votes.b)
    per_pair = np.bincount(low * n_systems + high, minlength=n_systems * n_systems).reshape(n_systems, n_systems)
    scores = np.zeros(n_systems)
    if votes.n:
        fitted = bradley_terry(votes, ties, ridge).scores[:n_systems]
        scores[: len(fitted)] = np.nan_to_num(fitted, nan=0.0)
    p = 1.0 / (1.0 + np.exp(scores[j] - scores[i]))
    return np.column_stack([i, j]), per_pair[i, j].astype(float), p, scores


def _chiang_weights(counts: np.ndarray, p: np.ndarray) -> np.ndarray:
    variance = p * (1 - p)
    if (counts == 0).any():
        return (counts == 0).astype(float)
    return np.sqrt(variance / counts) - np.sqrt(variance / (counts + 1))


def _covariance(pairs: np.ndarray, counts: np.ndarray, p: np.ndarray, n_systems: int) -> np.ndarray:
    h = (counts * p * (1 - p) + PRIOR_VOTES * 0.25)[:, None, None]
    x = np.zeros((len(pairs), n_systems))
    x[np.arange(len(pairs)), pairs[:, 0]] = 1.0
    x[np.arange(len(pairs)), pairs[:, 1]] = -1.0
    info = (h * x[:, :, None] * x[:, None, :]).sum(axis=0)
    u = np.full(n_systems, 1.0 / np.sqrt(n_systems))
    centre = np.eye(n_systems) - np.outer(u, u)
    return centre @ np.linalg.inv(info + np.outer(u, u)) @ centre


def _target(scores: np.ndarray, covariance: np.ndarray, z: float) -> np.ndarray:
    """How often each system is in an adjacent pair whose intervals (+- z sd) overlap (all ones if none do)."""
    sd = np.sqrt(np.clip(np.diag(covariance), 0, None))
    order = np.argsort(-scores, kind="stable")
    target = np.zeros(len(scores))
    for upper, lower in itertools.pairwise(order):
        if scores[upper] - z * sd[upper] <= scores[lower] + z * sd[lower]:
            target[upper] += 1
            target[lower] += 1
    return target if target.any() else np.ones(len(scores))


def _interval_weights(pairs, p, covariance, target) -> np.ndarray:
    h = p * (1 - p)
    cx = covariance[:, pairs[:, 0]] - covariance[:, pairs[:, 1]]  # (n_systems, n_pairs): C x for every pair
    q = cx[pairs[:, 0], np.arange(len(pairs))] - cx[pairs[:, 1], np.arange(len(pairs))]  # x' C x
    fall = cx**2 * (h / (1 + h * q))
    variance = np.diag(covariance)[:, None]
    narrowing = np.sqrt(np.clip(variance, 0, None)) - np.sqrt(np.clip(variance - fall, 0, None))
    return target @ narrowing


def next_pairs(
    votes: PairwiseVotes,
    n_systems: int,
    k: int = 1,
    ties: str = "half",
    rule: str = "intervals",
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
        The model of the current fit (the design itself uses the Bradley-Terry information).
    rule : {"intervals", "chiang"}
        The expected narrowing of the overlapping adjacent intervals (default), or Chiang et al.'s
        sampling weights as published; see the module's description.
    seed : int or None
        None: deterministic, largest weight first (ties broken towards pairs with fewer votes, then
        by index); an int: sampled in proportion to the weights, as in the paper.
    level : float
        Coverage of the intervals that decide which adjacent pairs still overlap.
    ridge : float

    Returns
    -------
    list of (int, int)
    """
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}, got {rule!r}")
    pairs, counts, p, scores = pair_state(votes, n_systems, ties, ridge)
    counts = counts.copy()
    rng = None if seed is None else np.random.default_rng(seed)
    covariance = _covariance(pairs, counts, p, n_systems) if rule == "intervals" else None
    # imported here: importing scipy takes a third of a second at start-up
    from scipy.stats import norm

    z = float(norm.ppf(0.5 + level / 2))
    chosen = []
    for _ in range(k):
        if covariance is None:  # rule "chiang"
            weight = _chiang_weights(counts, p)
        else:
            weight = _interval_weights(pairs, p, covariance, _target(scores, covariance, z))
        weight = np.where(np.isfinite(weight) & (weight > 0), weight, 0.0)
        if not weight.any():
            weight = 1.0 / (counts + 1)
        if rng is None:
            pick = int(np.lexsort((np.arange(len(weight)), counts, -np.round(weight, 12)))[0])
        else:
            pick = int(rng.choice(len(weight), p=weight / weight.sum()))
        counts[pick] += 1
        if covariance is not None:
            h = p[pick] * (1 - p[pick])
            cx = covariance[:, pairs[pick, 0]] - covariance[:, pairs[pick, 1]]
            covariance = covariance - h * np.outer(cx, cx) / (1 + h * (cx[pairs[pick, 0]] - cx[pairs[pick, 1]]))
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


def collection_state(
    summary_or_fit, votes_used: int, budget: int | None, interval: str = "ci", votes: PairwiseVotes | None = None
) -> dict:
    """Whether to keep collecting votes: "separated", "budget_spent" or "collecting", with the reason.

    Parameters
    ----------
    summary_or_fit : dict or Intervals
        A ``pairwise_summary`` result (its rows' ``interval`` key is used, and its ``estimable`` flag),
        or an ``Intervals`` (or a ``StyleFit``, whose intervals are used).
    votes_used : int
        Votes collected so far.
    budget : int or None
        The vote budget (None: no cap).
    interval : str
        For a summary dict: ``"ci"`` (bootstrap, default) or ``"sandwich_ci"``.
    votes : PairwiseVotes, optional
        The votes behind an ``Intervals``, to check that the scores are estimable (see
        ``diagnostics.estimable``); a summary dict carries the check itself.

    Returns
    -------
    dict
        ``{"state", "reason", "votes_used", "budget", "overlapping": [[system, system], ...]}`` where
        ``overlapping`` lists the adjacent systems whose intervals still overlap. While some systems
        won or lost every vote against the rest the scores are not estimable, their intervals mean
        nothing, and the state is never "separated".
    """
    rows = sorted(_bounds(summary_or_fit, interval), key=lambda r: -r[1])
    overlapping = [[hi[0], lo[0]] for hi, lo in itertools.pairwise(rows) if hi[2] <= lo[3]]
    if isinstance(summary_or_fit, Mapping):
        able = bool(summary_or_fit.get("estimable", True))
    else:
        able = True if votes is None else estimable(votes)
    state = {"votes_used": int(votes_used), "budget": None if budget is None else int(budget)}
    if len(rows) >= 2 and able and not overlapping:
        reason = f"the intervals of all {len(rows) - 1} adjacent pairs of systems are apart after {votes_used} votes"
        return {"state": "separated", "reason": reason, **state, "overlapping": []}
    if len(rows) < 2:
        why = "fewer than two systems have votes"
    elif not able:
        why = "some systems won or lost every vote against the rest, so their scores are not yet estimable"
    else:
        why = f"{len(overlapping)} of {len(rows) - 1} adjacent pairs of systems have overlapping intervals"
    if budget is not None and votes_used >= budget:
        return {"state": "budget_spent", "reason": f"the budget of {budget} votes is spent; {why}", **state,
                "overlapping": overlapping}  # fmt: skip
    return {"state": "collecting", "reason": why, **state, "overlapping": overlapping}
