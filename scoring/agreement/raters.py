"""Agreement of each rater with the others: Pearson inter-rater correlation against the mean of the other
judges (Gandhe & Traum 2008) and per-annotator z-scores."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class InterRaterCorrelation:
    """Pearson r of each annotator against the mean of the others on the same units."""

    mean: float
    std: float
    per_annotator: np.ndarray


def pearson_inter_rater(ratings) -> InterRaterCorrelation:
    """Gandhe & Traum (2008): "We correlate the ratings given by each judge with the average
    ratings given by the judges who were assigned the same set" and report the mean and
    standard deviation of those correlations.

    For annotator a, over the units a rated that at least one other annotator rated:
    r_a = pearson(x_a, mean of the others). NaN where undefined (fewer than two such units or
    no variation). ``std`` is the sample standard deviation (ddof = 1) over defined r_a.

    Parameters
    ----------
    ratings : array-like, shape (n_annotators, n_units)
        The value each annotator gave each unit, NaN where none.

    Examples
    --------
    >>> result = pearson_inter_rater([[1, 2, 3, 4], [2, 2, 4, 5], [1, 3, 3, 5]])
    >>> [round(float(r), 3) for r in result.per_annotator]
    [0.994, 0.885, 0.889]
    """
    x = np.asarray(ratings, dtype=float)
    annotator, unit = np.nonzero(~np.isnan(x))
    return pearson_inter_rater_long(unit, annotator, x[annotator, unit], n_annotators=x.shape[0])


def pearson_inter_rater_long(unit, annotator, value, *, n_annotators: int | None = None) -> InterRaterCorrelation:
    """``pearson_inter_rater`` for judgements in long form (one entry per judgement).

    Memory grows with the number of judgements, not annotators x units, so collections with
    thousands of annotators (DBDC) are fine.

    Parameters
    ----------
    unit, annotator : array-like of int, shape (n_judgements,)
        Judgement k is ``annotator[k]``'s of unit ``unit[k]`` (indices from 0).
    value : array-like, shape (n_judgements,)
        The numeric value judgement k gave.
    n_annotators : int, optional
        The length of ``per_annotator`` (default: the largest annotator index + 1).

    Examples
    --------
    >>> result = pearson_inter_rater_long([0, 1, 2, 0, 1, 2], [0, 0, 0, 1, 1, 1], [1, 2, 3, 2, 3, 5])
    >>> result.per_annotator.round(3).tolist()
    [0.982, 0.982]
    """
    unit, annotator = np.asarray(unit, dtype=np.int64), np.asarray(annotator, dtype=np.int64)
    value = np.asarray(value, dtype=float)
    n_annotators = int(annotator.max()) + 1 if n_annotators is None else n_annotators
    n_units = int(unit.max()) + 1 if len(unit) else 0
    unit_total = np.bincount(unit, weights=value, minlength=n_units)
    unit_count = np.bincount(unit, minlength=n_units)
    others_count = unit_count[unit] - 1
    use = others_count > 0
    a, u, x = annotator[use], unit[use], value[use]
    y = (unit_total[u] - x) / others_count[use]
    n = np.bincount(a, minlength=n_annotators).astype(float)
    sx, sy = np.bincount(a, x, n_annotators), np.bincount(a, y, n_annotators)
    sxx, syy, sxy = (
        np.bincount(a, x * x, n_annotators),
        np.bincount(a, y * y, n_annotators),
        np.bincount(a, x * y, n_annotators),
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        cov = sxy - sx * sy / n
        var_x, var_y = sxx - sx**2 / n, syy - sy**2 / n
        r = cov / np.sqrt(var_x * var_y)
    tiny = 1e-12 * np.maximum(1.0, sxx)
    r = np.where((n >= 2) & (var_x > tiny) & (var_y > 1e-12 * np.maximum(1.0, syy)), np.clip(r, -1, 1), np.nan)
    defined = r[np.isfinite(r)]
    std = float(defined.std(ddof=1)) if len(defined) > 1 else float("nan")
    return InterRaterCorrelation(float(defined.mean()) if len(defined) else float("nan"), std, r)


def annotator_z_scores(ratings) -> np.ndarray:
    """Each annotator's ratings standardised by their own mean and standard deviation (ddof = 0).

    Removes an annotator's scoring tendency before ratings are averaged (Zeng et al. 2017,
    sec. 5). Missing stays NaN; an annotator with no variation gets NaN.

    Parameters
    ----------
    ratings : array-like, shape (n_annotators, n_units)
        The value each annotator gave each unit, NaN where none.

    Returns
    -------
    ndarray, shape (n_annotators, n_units)

    Examples
    --------
    >>> annotator_z_scores([[1, 3, np.nan]]).tolist()
    [[-1.0, 1.0, nan]]
    """
    x = np.asarray(ratings, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.nanmean(x, axis=1, keepdims=True)
        std = np.nanstd(x, axis=1, keepdims=True)
        return np.where(std > 0, (x - mean) / np.where(std > 0, std, 1), np.nan)
