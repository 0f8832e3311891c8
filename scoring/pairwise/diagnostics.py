"""Checks on pairwise votes: position bias, intransitive triads, and how few votes decide the top rank.

* Position bias: of the decisive votes (ties left out), the share won by the candidate shown first,
  with Wilson's (1927) score interval and an exact two-sided binomial test against 1/2. With shown
  order balanced, a share away from 1/2 is the annotators' bias, not the systems'.
* Intransitive triads: three systems whose pairwise majorities (wins + half the ties) form a cycle,
  i > j > k > i, counted out of the triads whose three pairs all have votes (Kendall & Babington
  Smith 1940 count circular triads of one judge; here the judge is the majority of the votes).
* Vote-dropping sensitivity: the fewest votes whose removal changes the top-ranked system, in the
  spirit of Broderick, Giordano & Meager (2020, "An automatic finite-sample robustness metric").
  Found approximately, see ``vote_dropping_sensitivity``.

Examples
--------
>>> from scoring.pairwise.votes import PairwiseVotes
>>> cycle = PairwiseVotes(("x", "y", "z"), a=[0, 1, 2], b=[1, 2, 0], outcome=[1, 1, 1],
...                       both_bad=None, a_shown_first=[True, True, False], item=None, length_diff=None)
>>> intransitive_triads(cycle)["cyclic"], position_bias(cycle)["first_shown_wins"]
(1, 2)
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from scoring.pairwise._engine import design, newton, row_terms, sandwich
from scoring.pairwise.bradley_terry import DEFAULT_RIDGE, voted_cells
from scoring.pairwise.votes import PairwiseVotes, win_matrix


def wilson_interval(successes: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval for a binomial proportion ((0, 1) when n = 0).

    Parameters
    ----------
    successes, n : int
    level : float

    Examples
    --------
    >>> [round(v, 4) for v in wilson_interval(8, 10)]
    [0.4902, 0.9433]
    """
    if n == 0:
        return 0.0, 1.0
    # imported here: importing scipy takes a third of a second at start-up
    from scipy.stats import norm

    z = norm.ppf(0.5 + level / 2)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return float(max(0.0, centre - half)), float(min(1.0, centre + half))


def position_bias(votes: PairwiseVotes, level: float = 0.95) -> dict:
    """The share of decisive votes won by the candidate shown first, with its Wilson interval.

    Parameters
    ----------
    votes : PairwiseVotes
    level : float

    Returns
    -------
    dict
        ``{"first_shown_wins", "decisive", "share", "ci": [lo, hi], "p_value", "ties", "n"}``; ``share`` is
        None without decisive votes, ``p_value`` the exact two-sided binomial test of share = 1/2.
    """
    decisive = votes.outcome != 0.5
    first_won = np.where(votes.a_shown_first, votes.outcome == 1.0, votes.outcome == 0.0) & decisive
    wins, n = int(first_won.sum()), int(decisive.sum())
    lo, hi = wilson_interval(wins, n, level)
    # imported here: importing scipy takes a third of a second at start-up
    from scipy.stats import binomtest

    return {
        "first_shown_wins": wins,
        "decisive": n,
        "share": wins / n if n else None,
        "ci": [lo, hi],
        "p_value": float(binomtest(wins, n, 0.5).pvalue) if n else 1.0,
        "ties": int((~decisive).sum()),
        "n": votes.n,
    }


def majority_preferences(votes: PairwiseVotes) -> tuple[np.ndarray, np.ndarray]:
    """Strict majority preferences between systems and which pairs have votes.

    Parameters
    ----------
    votes : PairwiseVotes

    Returns
    -------
    prefers : ndarray of bool, shape (n_systems, n_systems)
        ``prefers[i, j]``: i's wins plus half the ties exceed j's.
    compared : ndarray of bool, shape (n_systems, n_systems)
    """
    wins, ties = win_matrix(votes)
    points = wins + 0.5 * ties
    compared = (wins + wins.T + ties) > 0
    return points > points.T, compared


def estimable(votes: PairwiseVotes) -> bool:
    """Whether the Bradley-Terry maximum likelihood exists (is finite) for the systems with votes.

    It does when the graph "i beat or tied j" over the voted systems is strongly connected (Zermelo
    1929; Ford 1957): otherwise some group of systems won (or lost) every vote against the rest, their
    scores run off to infinity, and intervals from resampling look narrow because every resample agrees.

    Parameters
    ----------
    votes : PairwiseVotes

    Examples
    --------
    >>> undefeated = PairwiseVotes(("x", "y"), [0, 0], [1, 1], [1, 1], None, None, None, None)
    >>> with_a_tie = PairwiseVotes(("x", "y"), [0, 0], [1, 1], [1, 0.5], None, None, None, None)
    >>> estimable(undefeated), estimable(with_a_tie)
    (False, True)
    """
    present = np.unique(np.concatenate([votes.a, votes.b]))
    if len(present) < 2:
        return False
    wins, ties = win_matrix(votes)
    beat = (wins + ties)[np.ix_(present, present)] > 0
    # imported here: importing scipy takes a third of a second at start-up
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    count, _ = connected_components(csr_matrix(beat), directed=True, connection="strong")
    return bool(count == 1)


def intransitive_triads(votes: PairwiseVotes, examples: int = 5) -> dict:
    """Triads of systems whose pairwise majority preferences form a cycle.

    Parameters
    ----------
    votes : PairwiseVotes
    examples : int
        How many cyclic triads to list (by name, in cycle order).

    Returns
    -------
    dict
        ``{"cyclic", "triads_with_data", "decided", "share", "examples"}``: ``triads_with_data`` have votes on
        all three pairs, ``decided`` a strict majority on all three; ``share`` = cyclic / decided (None if 0).
    """
    prefers, compared = majority_preferences(votes)
    p = prefers.astype(np.int64)
    c = compared.astype(np.int64)
    cyclic = int(np.trace(p @ p @ p)) // 3
    with_data = int(np.trace(c @ c @ c)) // 6
    d = (prefers | prefers.T).astype(np.int64)
    decided = int(np.trace(d @ d @ d)) // 6
    listed = []
    if cyclic and examples:
        for i, j, k in itertools.combinations(range(len(votes.systems)), 3):
            for x, y, z in ((i, j, k), (i, k, j)):
                if prefers[x, y] and prefers[y, z] and prefers[z, x]:
                    listed.append([votes.systems[x], votes.systems[y], votes.systems[z]])
            if len(listed) >= examples:
                break
    return {
        "cyclic": cyclic,
        "triads_with_data": with_data,
        "decided": decided,
        "share": cyclic / decided if decided else None,
        "examples": listed[:examples],
    }


def _overtaken(scores: np.ndarray, leader: int) -> bool:
    """Another system scores above the leader (by more than rounding: an exact tie keeps the leader)."""
    return bool(np.max(np.delete(scores, leader)) > scores[leader] + 1e-9)


def vote_dropping_sensitivity(votes: PairwiseVotes, ties: str = "half", ridge: float = DEFAULT_RIDGE) -> dict:
    """The fewest votes whose removal changes the top-ranked system (approximate: an upper bound).

    Method: with the fit's influence function (the change of the scores when one vote is removed is
    about -J^-1 g_v, J the information, g_v the vote's score vector), order the votes by how much
    removing each narrows the leader's lead over the runner-up; remove as many as the linear
    prediction says close the gap, refit, and repeat (recomputing leader-versus-runner-up influences)
    until another system is on top; then find by bisection the shortest prefix of that removal
    order that still changes the top. Every count reported is checked by an exact refit, so such a
    set of votes exists: the figure is an upper bound on the true fewest votes. The search is greedy
    and may miss a smaller set, so its error is in one direction: it can overstate how robust the
    top rank is, never understate it.

    Parameters
    ----------
    votes : PairwiseVotes
    ties : {"half", "davidson"}
    ridge : float
        See ``bradley_terry``.

    Returns
    -------
    dict
        ``{"votes", "share", "leader", "new_leader", "removed": [{"winner", "loser", "tie", "votes"}],
        "method"}``; ``votes`` is None when no removal changes the top (fewer than two systems, or
        none found).
    """
    result: dict[str, Any] = {
        "votes": None, "share": None, "leader": None, "new_leader": None, "removed": [], "method": "greedy",
    }  # fmt: skip
    present, c = voted_cells(votes)
    m = len(present)
    if c is None:
        if m == 1:
            result["leader"] = votes.systems[present[0]]
        return result
    x = design(c.low, c.high, m)

    def fit(counts):
        solution = newton(x, c.y, counts, m, ties, ridge)
        theta = None if solution.theta is None else float(solution.theta[0])
        return solution.beta[0], theta

    counts = c.count.copy()
    scores, theta = fit(counts)
    leader = int(np.argmax(scores))
    result["leader"] = votes.systems[present[leader]]
    order: list[int] = []  # cells, one entry per removed vote
    while counts.sum() > 0:
        others = np.where(np.arange(m) == leader, -np.inf, scores)
        runner = int(np.argmax(others))
        gap = scores[leader] - scores[runner] + 1e-6  # aim past an exact tie
        model, _ = sandwich(x, c.y, counts, scores, theta, m, ties)
        _, g_d, *_ = row_terms(x @ scores, c.y, ties, theta)
        contrast = np.zeros(model.shape[0])
        contrast[leader], contrast[runner] = 1.0, -1.0
        # removing one vote of cell v changes the gap by about -contrast' Cov g_v (Cov = J^-1)
        change = -(model @ contrast)[: x.shape[1]] @ (g_d[:, None] * x).T
        helpful = np.flatnonzero((change < 0) & (counts > 0))
        if not len(helpful):
            break
        helpful = helpful[np.argsort(change[helpful])]
        taken: list[int] = []
        closed = 0.0
        for cell in helpful:
            need = int(np.ceil((gap - closed) / -change[cell]))
            k = int(min(counts[cell], max(need, 1)))
            taken.extend([int(cell)] * k)
            closed += -change[cell] * k
            if closed >= gap:
                break
        for removed_cell in taken:
            counts[removed_cell] -= 1
        order.extend(taken)
        scores, theta = fit(counts)
        if _overtaken(scores, leader):
            break
    if not _overtaken(scores, leader):
        return result
    # shortest prefix of the removal order that changes the top
    low, high = 0, len(order)
    while high - low > 1:
        mid = (low + high) // 2
        trial = c.count - np.bincount(order[:mid], minlength=len(c.count))
        if _overtaken(fit(trial)[0], leader):
            high = mid
        else:
            low = mid
    removed = np.bincount(order[:high], minlength=len(c.count))
    new_scores = fit(c.count - removed)[0]
    rows = []
    for cell in np.flatnonzero(removed):
        low_name, high_name = votes.systems[present[c.low[cell]]], votes.systems[present[c.high[cell]]]
        winner, loser = (low_name, high_name) if c.y[cell] >= 0.5 else (high_name, low_name)
        rows.append({"winner": winner, "loser": loser, "tie": bool(c.y[cell] == 0.5), "votes": int(removed[cell])})
    result.update(
        votes=high,
        share=high / votes.n,
        new_leader=votes.systems[present[int(np.argmax(np.where(np.arange(m) == leader, -np.inf, new_scores)))]],
        removed=rows,
    )
    return result
