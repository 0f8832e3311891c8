"""Everything about one criterion's pairwise votes in one JSON-ready dict (finite floats only).

The platform's stats payload carries it as ``"bradley_terry": {criterion: pairwise_summary(...)}``:
the leaderboard rows (score, Elo, bootstrap and sandwich intervals, rank and rank interval, wins, losses,
ties), the style-controlled leaderboard with its coefficients, position bias, intransitive triads, the
win matrix and the vote-dropping sensitivity.

Examples
--------
>>> from scoring.pairwise.votes import PairwiseVotes
>>> votes = PairwiseVotes.from_records(
...     [{"a": "x", "b": "y", "winner": w, "shown_first": "x", "len_a": 10, "len_b": 12}
...      for w in ["x", "x", "x", "y", "tie"]])
>>> summary = pairwise_summary(votes, n_resamples=50)
>>> [(row["system"], row["wins"], row["losses"], row["ties"]) for row in summary["systems"]]
[('x', 3, 1, 1), ('y', 1, 3, 1)]
>>> summary["position_bias"]["first_shown_wins"], summary["win_matrix"]["wins"]
(3, [[0, 3], [1, 0]])
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from scoring.pairwise.bradley_terry import DEFAULT_RIDGE, bradley_terry
from scoring.pairwise.diagnostics import estimable, intransitive_triads, position_bias, vote_dropping_sensitivity
from scoring.pairwise.intervals import Intervals, bootstrap_intervals, sandwich_intervals
from scoring.pairwise.style import style_controlled
from scoring.pairwise.votes import PairwiseVotes, win_matrix


def _number(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def leaderboard_rows(
    votes: PairwiseVotes, intervals: Intervals, sandwich: Intervals | None, elo: np.ndarray
) -> list[dict]:
    """Rows ``{"system", "score", "elo", "ci", "sandwich_ci", "rank", "rank_ci", "wins", "losses", "ties"}``.

    Systems without votes are left out; rows are sorted by score, best first.

    Parameters
    ----------
    votes : PairwiseVotes
    intervals : Intervals
        The bootstrap (or other) intervals: ``ci``, ``rank`` and ``rank_ci``.
    sandwich : Intervals or None
        The sandwich intervals (``sandwich_ci``; ``ci`` repeated when None).
    elo : ndarray, shape (n_systems,)
    """
    wins, ties = win_matrix(votes)
    rows: list[dict[str, Any]] = []
    for n, name in enumerate(votes.systems):
        if not np.isfinite(intervals.scores[n]):
            continue
        other = sandwich if sandwich is not None else intervals
        rows.append(
            {
                "system": name,
                "score": _number(intervals.scores[n]),
                "elo": _number(elo[n]),
                "ci": [_number(intervals.lower[n]), _number(intervals.upper[n])],
                "sandwich_ci": [_number(other.lower[n]), _number(other.upper[n])],
                "rank": int(intervals.rank[n]),
                "rank_ci": [int(intervals.rank_lower[n]), int(intervals.rank_upper[n])],
                "wins": int(wins[n].sum()),
                "losses": int(wins[:, n].sum()),
                "ties": int(ties[n].sum()),
            }
        )
    rows.sort(key=lambda r: (-r["score"], r["system"]))
    return rows


def pairwise_summary(
    votes: PairwiseVotes,
    ties: str = "half",
    n_resamples: int = 1000,
    seed: int | None = 0,
    level: float = 0.95,
    ridge: float = DEFAULT_RIDGE,
) -> dict:
    """The Bradley-Terry leaderboard and its checks for one criterion, JSON-ready.

    Parameters
    ----------
    votes : PairwiseVotes
    ties : {"half", "davidson"}
    n_resamples : int
        Bootstrap resamples (for the raw and the style-controlled intervals).
    seed : int or None
    level : float
    ridge : float

    Returns
    -------
    dict
        ``{"systems": [rows], "ties", "bootstrap", "level", "n_votes", "estimable", "both_bad", "tie_parameter",
        "style_controlled": {"systems": [rows], "coefficients", "coefficient_ci", "scale"},
        "position_bias", "intransitive_triads", "win_matrix": {"systems", "wins", "ties"}, "vote_dropping"}``;
        rows as in ``leaderboard_rows``. Every float is finite (a value that cannot be computed is None).
    """
    fit = bradley_terry(votes, ties, ridge)
    boot = bootstrap_intervals(votes, ties, n_resamples, seed, level, ridge)
    sand = sandwich_intervals(votes, ties, level, ridge)
    style = style_controlled(votes, ties, n_resamples, seed, level, "bootstrap", ridge)
    wins, tied = win_matrix(votes)
    return {
        "systems": leaderboard_rows(votes, boot, sand, fit.elo),
        "ties": ties,
        "bootstrap": int(n_resamples),
        "level": float(level),
        "n_votes": votes.n,
        "estimable": estimable(votes),
        "both_bad": int(votes.both_bad.sum()),
        "tie_parameter": None if fit.tie_parameter is None else _number(fit.tie_parameter),
        "style_controlled": {
            "systems": leaderboard_rows(votes, style.intervals, None, style.fit.elo),
            "coefficients": {name: _number(value) for name, value in style.fit.coefficients.items()},
            "coefficient_ci": {
                name: [_number(lo), _number(hi)] for name, (lo, hi) in style.coefficient_intervals.items()
            },
            "scale": {name: _number(value) for name, value in style.scale.items()},
        },
        "position_bias": position_bias(votes, level),
        "intransitive_triads": intransitive_triads(votes),
        "win_matrix": {"systems": list(votes.systems), "wins": wins.tolist(), "ties": tied.tolist()},
        "vote_dropping": vote_dropping_sensitivity(votes, ties, ridge),
    }
