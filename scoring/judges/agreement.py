"""How far a judge agrees with the humans, per criterion, each figure with an interval over items.

* Cohen's kappa of the judge's label with the human majority label of each item (Cohen 1960), weighted on
  ordered scales (Cohen 1968): ``kappa_w = 1 - N sum w_ij o_ij / sum w_ij r_i c_j`` with linear
  (``|i - j|``) or quadratic (``(i - j)^2``) disagreement weights;
* Krippendorff's alpha of the humans alone and of the humans with the judge as one more annotator, on the
  items the judge labelled (the judge helps the pool when alpha rises);
* on ordered scales, Spearman's rho and Kendall's tau-b between the judge's label and the humans' mean.

The majority label is the most frequent human value; a tie goes to the lower value on the scale (so a tie
on an ordered scale is resolved the same way every time, and the figure can be recomputed). Intervals are
the bootstrap over items (percentile, ``scoring.agreement.intervals``), the jackknife below 30 items.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from scoring.agreement.intervals import (
    RESAMPLES,
    Interval,
    krippendorff_alpha_interval,
    seed_from,
)
from scoring.agreement.kappa import _kappa_weights, cohen_kappa_of_tables
from scoring.checks import label_counts, numbers
from scoring.judges.tables import kendall_of_tables, spearman_of_tables, table_resamples


def majority_labels(counts) -> np.ndarray:
    """Each item's most frequent human value (index), the lower value on a tie; -1 where no human judged.

    >>> majority_labels([[2, 1, 0], [1, 1, 0], [0, 0, 0]]).tolist()
    [0, 0, -1]
    """
    counts = label_counts(counts)
    return np.where(counts.sum(axis=1) > 0, counts.argmax(axis=1), -1)


def human_means(counts, values=None) -> np.ndarray:
    """Each item's mean human value (NaN where none): ``sum_v n_uv x_v / sum_v n_uv``.

    >>> human_means([[1, 1, 0], [0, 0, 2]]).tolist()
    [0.5, 2.0]
    """
    counts = label_counts(counts)
    x = np.arange(counts.shape[1], dtype=float) if values is None else numbers(values, "values")
    if x.shape != counts.shape[1:]:
        raise ValueError(f"values must give one number per category ({counts.shape[1]}), got shape {x.shape}")
    with np.errstate(invalid="ignore", divide="ignore"):
        return counts @ x / counts.sum(axis=1)


@dataclass(frozen=True)
class Figure:
    """One agreement figure on ``n`` items with its interval."""

    value: float
    interval: Interval
    n: int

    def as_dict(self) -> dict:
        return {"value": _finite(self.value), "n": self.n, **_finite_interval(self.interval)}


def _finite(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def _finite_interval(interval: Interval) -> dict:
    d = interval.as_dict()
    d["ci"] = [_finite(v) for v in d["ci"]]
    return d


@dataclass(frozen=True)
class JudgeAgreement:
    """The agreement figures of one judge on one criterion (``None`` where they do not apply)."""

    n_items: int
    kappa: Figure | None
    kappa_linear: Figure | None = None
    kappa_quadratic: Figure | None = None
    alpha_humans: Figure | None = None
    alpha_with_judge: Figure | None = None
    spearman: Figure | None = None
    kendall: Figure | None = None
    extra: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        names = ("kappa", "kappa_linear", "kappa_quadratic", "alpha_humans", "alpha_with_judge", "spearman", "kendall")
        out: dict[str, int | dict | None] = {"n_items": self.n_items}
        for name in names:
            figure = getattr(self, name)
            out[name] = figure.as_dict() if figure is not None else None
        return out


def judge_agreement(
    counts, judge, *, ordered: bool, level: str = "nominal", values=None, key: str = "judge",
    resamples: int = RESAMPLES,
) -> JudgeAgreement:  # fmt: skip
    """The judge's agreement with the humans on the items both labelled.

    Parameters
    ----------
    counts : (items, V) human value counts per item
    judge : (items,) the judge's value index per item, -1 where it gave none
    ordered : whether the scale is ordered (weighted kappa, alpha at ``level``, rank correlations)
    level : Krippendorff's level of measurement for alpha ("nominal", "ordinal", "interval")
    values : the numeric value of each scale point (human means; default 0, 1, ...)
    key : names the random draws (``seed_from``), so recomputation gives the same intervals

    Examples
    --------
    >>> counts = [[3, 0], [0, 3], [2, 1], [1, 2]] * 10
    >>> a = judge_agreement(counts, [0, 1, 0, 1] * 10, ordered=False, resamples=200)
    >>> a.n_items, a.kappa.value, a.kappa.interval.method
    (40, 1.0, 'bootstrap')
    """
    counts = label_counts(counts).astype(np.int64)
    judge = np.asarray(judge, dtype=np.int64)
    n_values = counts.shape[1]
    both = (judge >= 0) & (counts.sum(axis=1) > 0)
    c, j = counts[both], judge[both]
    n = int(both.sum())
    if n == 0:
        return JudgeAgreement(0, None)
    majority = majority_labels(c)
    table = table_resamples(j, majority, n_values, n_values, seed=seed_from(f"{key}:kappa"), resamples=resamples)

    def kappa(weights):
        w = _kappa_weights(n_values, weights)
        value, interval = table.interval(lambda t: cohen_kappa_of_tables(t, w))
        return Figure(value, interval, n)

    with_judge = c + np.eye(n_values, dtype=np.int64)[j]
    alpha_h, alpha_h_ci = krippendorff_alpha_interval(
        c, level, values, seed=seed_from(f"{key}:alpha"), resamples=resamples
    )
    alpha_j, alpha_j_ci = krippendorff_alpha_interval(
        with_judge, level, values, seed=seed_from(f"{key}:alpha"), resamples=resamples
    )
    figures = {
        "kappa": kappa(None),
        "alpha_humans": Figure(alpha_h, alpha_h_ci, n),
        "alpha_with_judge": Figure(alpha_j, alpha_j_ci, n),
    }
    if ordered:
        figures["kappa_linear"] = kappa("linear")
        figures["kappa_quadratic"] = kappa("quadratic")
        means = human_means(c, values)
        distinct, code = np.unique(means, return_inverse=True)
        ranks = table_resamples(j, code, n_values, len(distinct), seed=seed_from(f"{key}:rank"), resamples=resamples)
        figures["spearman"] = Figure(*ranks.interval(spearman_of_tables), n)
        figures["kendall"] = Figure(*ranks.interval(kendall_of_tables), n)
    return JudgeAgreement(n, **figures)
