"""Bias probes of a judge: verbosity, position and self-preference.

* Verbosity: the least-squares regression of the judge's score on the length of what it judged,
  controlling for the humans' mean score, ``s_i = b0 + b_len len_i / 100 + b_h ybar_i + e_i``; ``b_len`` is
  how much the judge's score rises per 100 characters at equal human score (Dubois et al. 2024 call it the
  length bias of automatic judges), with a bootstrap interval over items (percentile; jackknife below 30).
* Position (pairwise comparisons judged in both orders): the share of comparisons where the judge prefers
  the same system (or the tie) whichever response is shown first (Zheng et al. 2023, "consistency").
* Self-preference: when the judge is one of the compared systems, its win rate by the judge's verdicts
  against its win rate by the humans' on the same comparisons (ties count half); a positive gap is the
  judge favouring itself (Panickssery et al. 2024).
"""

from __future__ import annotations

import numpy as np

from scoring.agreement.intervals import RESAMPLES, _resample_patterns, interval_from_replicates, seed_from


def _weighted_slopes(weights: np.ndarray, design: np.ndarray, response: np.ndarray) -> np.ndarray:
    """Least-squares coefficients for each row of item weights (B x n): solve (X'WX) b = X'Wy."""
    k = design.shape[1]
    products = (design[:, :, None] * design[:, None, :]).reshape(len(design), k * k)
    xtx = (weights @ products).reshape(-1, k, k)
    xty = weights @ (design * response[:, None])
    out = np.full((len(weights), k), np.nan)
    ok = np.abs(np.linalg.det(xtx)) > 1e-9
    out[ok] = np.linalg.solve(xtx[ok], xty[ok][..., None])[..., 0]
    return out


def verbosity_bias(judge_score, human_mean, length, *, key: str = "verbosity", resamples: int = RESAMPLES) -> dict:
    """The judge's score against length (per 100 characters) at equal human mean score, with its interval.

    >>> rng = np.random.default_rng(0); length = rng.integers(20, 400, 200).astype(float)
    >>> human = rng.normal(2, 1, 200); judge = human + 0.5 * length / 100 + rng.normal(0, 0.1, 200)
    >>> v = verbosity_bias(judge, human, length, resamples=200)
    >>> low, high = v["ci"]
    >>> round(v["per_100_characters"], 1), low < 0.5 < high
    (0.5, True)
    """
    s, h, n_chars = (np.asarray(a, dtype=float) for a in (judge_score, human_mean, length))
    keep = np.isfinite(s) & np.isfinite(h) & np.isfinite(n_chars)
    s, h, n_chars = s[keep], h[keep], n_chars[keep]
    n = len(s)
    if n < 4:
        return {"per_100_characters": None, "ci": [None, None], "n": n}
    design = np.column_stack([np.ones(n), n_chars / 100, h])
    estimate = float(_weighted_slopes(np.ones((1, n)), design, s)[0, 1])
    r = _resample_patterns(
        np.arange(n)[:, None], np.ones(n, dtype=np.int64), seed=seed_from(key), resamples=resamples,
        jackknife_below=30,
    )  # fmt: skip
    interval = interval_from_replicates(estimate, _weighted_slopes(r.weights.astype(float), design, s)[:, 1], r)
    finite = lambda x: float(x) if np.isfinite(x) else None
    return {
        "per_100_characters": finite(estimate),
        "n": n,
        **interval.as_dict(),
        "ci": [finite(interval.low), finite(interval.high)],
    }


def swap_consistency(first, second) -> dict:
    """Share of comparisons judged in both orders where the verdict names the same system (or a tie).

    ``first`` and ``second`` are the verdicts per comparison as the system preferred (or "tie"), one from
    each presentation order.

    >>> swap_consistency(["x", "y", "tie", "x"], ["x", "x", "tie", "y"])
    {'consistency': 0.5, 'n': 4}
    """
    first, second = np.asarray(first, dtype=object), np.asarray(second, dtype=object)
    n = len(first)
    return {"consistency": float((first == second).mean()) if n else None, "n": n}


def self_preference(system: str, system_a, system_b, judge_verdict, human_share_a) -> dict:
    """The judge-as-system's win rate by its own verdicts against by the humans', on the same comparisons.

    ``judge_verdict`` per comparison: 1 (a wins), 0 (b wins), 0.5 (tie); ``human_share_a`` the humans' share
    for ``a`` (ties count half). Only comparisons where ``system`` is a or b count.

    >>> self_preference("me", ["me", "u", "me"], ["u", "me", "v"], [1, 1, 1], [0.5, 0.5, 1.0])
    {'system': 'me', 'judge_win_rate': 0.6667, 'human_win_rate': 0.6667, 'gap': 0.0, 'n': 3}
    """
    a, b = np.asarray(system_a, dtype=object), np.asarray(system_b, dtype=object)
    verdict, human = np.asarray(judge_verdict, dtype=float), np.asarray(human_share_a, dtype=float)
    is_a, is_b = a == system, b == system
    involved = is_a | is_b
    n = int(involved.sum())
    if n == 0:
        return {"system": system, "judge_win_rate": None, "human_win_rate": None, "gap": None, "n": 0}
    judge_wins = np.where(is_a, verdict, 1 - verdict)[involved].mean()
    human_wins = np.where(is_a, human, 1 - human)[involved].mean()
    return {
        "system": system,
        "judge_win_rate": round(float(judge_wins), 4),
        "human_win_rate": round(float(human_wins), 4),
        "gap": round(float(judge_wins - human_wins), 4),
        "n": n,
    }
