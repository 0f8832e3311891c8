"""The alternative annotator test (alt-test): can the judge replace one of the human annotators?

Calderon, Reichart & Dror (ACL 2025), section 3, as in their reference code (github.com/nitaytech/AltTest,
``alt_test_example.ipynb``). For each human annotator ``j``, leave ``j`` out; on every item ``i`` that ``j``
labelled (and that at least ``min_humans`` humans labelled in all, and the judge labelled), compare

* the judge's alignment with the remaining humans, ``S(f, i, j) = s(f(x_i), H_-j(x_i))``, and
* annotator ``j``'s alignment with them, ``S(h_j, i, j) = s(h_j(x_i), H_-j(x_i))``,

where the alignment ``s`` is the accuracy ``mean_k 1[p = h_k]`` for categorical labels, or the negative RMSE
``-sqrt(mean_k (p - h_k)^2)`` for numeric ones. The indicators ``W_f = 1[S_f >= S_h]`` and
``W_h = 1[S_h >= S_f]`` (a tie counts for both) estimate ``rho_f`` and ``rho_h``; the one-sided paired
t-test of ``H0: rho_f <= rho_h - epsilon`` against ``H1: rho_f > rho_h - epsilon`` is the one-sample t-test
of ``d = W_h - W_f`` with ``H0: mean(d) >= epsilon`` (alternative "less"). The annotators' p-values are
corrected with Benjamini & Yekutieli (2001) at ``q`` (0.05); the winning rate ``omega`` is the share of
tested annotators whose null is rejected, the judge passes when ``omega >= 0.5``, and the average advantage
probability ``rho = mean_j mean_i W_f`` compares judges (higher is better). Annotators with fewer than
``min_items`` (30) items are not tested, as in the reference code (the t-test needs them for normality).

When ``d`` is constant its t statistic is infinite: the p-value is then 0 if ``d < epsilon`` and 1
otherwise (scipy returns NaN there; the reference code would then never reject).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

ACCURACY, NEG_RMSE = "accuracy", "neg_rmse"
EPSILON, Q_FDR, MIN_ITEMS, MIN_HUMANS = 0.2, 0.05, 30, 2


def benjamini_yekutieli(p_values, q: float = Q_FDR) -> np.ndarray:
    """Which hypotheses the Benjamini-Yekutieli step-up procedure rejects at false discovery rate ``q``.

    Sort the m p-values, p_(1) <= ... <= p_(m); reject the k smallest for the largest k with
    p_(k) <= k q / (m H_m), H_m = 1 + 1/2 + ... + 1/m (valid under any dependence). NaN is never rejected.

    >>> benjamini_yekutieli([0.001, 0.01, 0.04, 0.5]).tolist()
    [True, True, False, False]
    """
    p = np.asarray(p_values, dtype=float)
    m = len(p)
    rejected = np.zeros(m, dtype=bool)
    if m == 0:
        return rejected
    order = np.argsort(np.where(np.isnan(p), np.inf, p), kind="stable")
    harmonic = (1.0 / np.arange(1, m + 1)).sum()
    below = np.flatnonzero(p[order] <= np.arange(1, m + 1) * q / (m * harmonic))
    if len(below):
        rejected[order[: below[-1] + 1]] = True
    return rejected


def _one_sided_p(d: np.ndarray, epsilon: float) -> tuple[float, float]:
    """(t, p) of the one-sample t-test of H0: mean(d) >= epsilon against mean(d) < epsilon."""
    t, p = _grouped_one_sided(np.asarray(d, dtype=float), np.zeros(len(d), dtype=np.int64), 1, epsilon)
    return float(t[0]), float(p[0])


def _grouped_one_sided(d: np.ndarray, group: np.ndarray, n_groups: int, epsilon: float):
    """(t, p) per group of the one-sample t-test of H0: mean(d) >= epsilon (alternative "less"), as
    ``scipy.stats.ttest_1samp(d_g, epsilon, alternative="less")`` for every group ``g`` at once; a group
    whose ``d`` is constant gets t = -inf, p = 0 when that constant is below epsilon, else t = inf, p = 1."""
    from scipy import special  # here, not at import: the web process starts without scipy

    n = np.bincount(group, minlength=n_groups).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.bincount(group, weights=d, minlength=n_groups) / n
        low = np.full(n_groups, np.inf)
        high = np.full(n_groups, -np.inf)
        np.minimum.at(low, group, d)
        np.maximum.at(high, group, d)
        squares = np.bincount(group, weights=(d - mean[group]) ** 2, minlength=n_groups)
        t = (mean - epsilon) / np.sqrt(squares / (n - 1) / n)
        p = special.stdtr(n - 1, t)
    constant = low == high
    t = np.where(constant, np.where(low < epsilon, -np.inf, np.inf), t)
    p = np.where(constant, np.where(low < epsilon, 0.0, 1.0), p)
    return t, p


def _alignment(candidate: np.ndarray, others: np.ndarray, m: np.ndarray, values: np.ndarray, scoring: str):
    """s(candidate, remaining humans) per row; ``others`` (rows x V) the remaining humans' counts."""
    if scoring == ACCURACY:
        return others[np.arange(len(candidate)), candidate] / m
    if scoring != NEG_RMSE:
        raise ValueError(f"scoring must be {ACCURACY!r} or {NEG_RMSE!r}, not {scoring!r}")
    squared = (values[candidate][:, None] - values[None, :]) ** 2
    return -np.sqrt((others * squared).sum(axis=1) / m)


@dataclass(frozen=True)
class AltTest:
    """The alt-test's result; ``per_annotator`` lists each tested annotator (index into the humans)."""

    epsilon: float
    q: float
    scoring: str
    winning_rate: float
    passed: bool
    rho: float
    per_annotator: list[dict]
    skipped: list[int]

    @property
    def rho_by_annotator(self) -> dict[int, float]:
        """Each tested annotator's advantage probability of the judge, ``rho_f`` (what judges are compared on)."""
        return {row["annotator"]: row["rho_judge"] for row in self.per_annotator}

    def as_dict(self, names=None) -> dict:
        name = (lambda a: names[a]) if names is not None else (lambda a: a)
        return {
            "epsilon": self.epsilon,
            "q": self.q,
            "scoring": self.scoring,
            "winning_rate": self.winning_rate if np.isfinite(self.winning_rate) else None,
            "passed": self.passed,
            "rho": self.rho if np.isfinite(self.rho) else None,
            "per_annotator": [{**row, "annotator": name(row["annotator"])} for row in self.per_annotator],
            "skipped": [name(a) for a in self.skipped],
        }

    def summary(self) -> dict:
        """The figures without the per-annotator rows: ``winning_rate``, ``passed``, ``rho``, ``annotators``."""
        return {
            "scoring": self.scoring,
            "winning_rate": self.winning_rate if np.isfinite(self.winning_rate) else None,
            "passed": self.passed,
            "rho": self.rho if np.isfinite(self.rho) else None,
            "annotators": len(self.per_annotator),
        }


@dataclass(frozen=True)
class AltTestPool:
    """The humans' side of the alt-test, computed once and shared by every judge tested against them.

    Each row is one human judgement on an item that ``min_humans`` or more humans labelled: its annotator,
    item and ``S(h_j, i, j)``, the annotator's alignment with the remaining humans. A judge then adds only
    its own alignment per row (``test``), so the references of a report cost a vector operation each.
    """

    unit: np.ndarray
    annotator: np.ndarray
    others: np.ndarray  # rows x V: the remaining humans' counts
    m: np.ndarray
    s_human: np.ndarray
    annotators: np.ndarray  # every annotator index with a judgement, sorted
    values: np.ndarray
    scoring: str
    n_values: int
    min_items: int

    @classmethod
    def of(
        cls, unit, annotator, value, *, n_values: int, scoring: str = ACCURACY, values=None,
        min_items: int = MIN_ITEMS, min_humans: int = MIN_HUMANS,
    ) -> AltTestPool:  # fmt: skip
        unit, annotator, value = (np.asarray(a, dtype=np.int64) for a in (unit, annotator, value))
        n_items = int(unit.max()) + 1 if len(unit) else 0
        x = np.arange(n_values, dtype=float) if values is None else np.asarray(values, dtype=float)
        counts = np.bincount(unit * n_values + value, minlength=n_items * n_values).reshape(n_items, n_values)
        rows = counts.sum(axis=1)[unit] >= min_humans
        others = counts[unit[rows]] - np.eye(n_values, dtype=np.int64)[value[rows]]
        m = others.sum(axis=1)
        return cls(
            unit[rows], annotator[rows], others, m, _alignment(value[rows], others, m, x, scoring),
            np.unique(annotator), x, scoring, n_values, min_items,
        )  # fmt: skip

    def test(self, judge, *, epsilon: float = EPSILON, q: float = Q_FDR) -> AltTest:
        """The alt-test of ``judge`` ((items,) value index per item, -1 where it gave none) against the pool."""
        judge = np.asarray(judge, dtype=np.int64)
        inside = self.unit < len(judge)
        labelled = np.zeros(len(self.unit), dtype=bool)
        labelled[inside] = judge[self.unit[inside]] >= 0
        unit, annotator = self.unit[labelled], self.annotator[labelled]
        s_judge = _alignment(judge[unit], self.others[labelled], self.m[labelled], self.values, self.scoring)
        s_human = self.s_human[labelled]
        w_judge, w_human = (s_judge >= s_human).astype(float), (s_human >= s_judge).astype(float)
        n_annotators = int(self.annotators.max()) + 1 if len(self.annotators) else 0
        items = np.bincount(annotator, minlength=n_annotators)
        tested = np.flatnonzero(items >= self.min_items)
        skipped = [int(a) for a in self.annotators if items[a] < self.min_items]
        t, p = _grouped_one_sided(w_human - w_judge, annotator, n_annotators, epsilon)
        with np.errstate(invalid="ignore", divide="ignore"):
            rho_judge = np.bincount(annotator, weights=w_judge, minlength=n_annotators) / items
            rho_human = np.bincount(annotator, weights=w_human, minlength=n_annotators) / items
        rejected = benjamini_yekutieli(p[tested], q)
        rows = [
            {
                "annotator": int(a),
                "items": int(items[a]),
                "rho_judge": float(rho_judge[a]),
                "rho_human": float(rho_human[a]),
                "t": float(t[a]) if np.isfinite(t[a]) else None,
                "p_value": float(p[a]),
                "judge_wins": bool(won),
            }
            for a, won in zip(tested.tolist(), rejected.tolist())
        ]
        winning_rate = float(rejected.mean()) if rows else float("nan")
        rho = float(np.mean([r["rho_judge"] for r in rows])) if rows else float("nan")
        return AltTest(epsilon, q, self.scoring, winning_rate, bool(rows) and winning_rate >= 0.5, rho, rows, skipped)


def alt_test(
    unit, annotator, value, judge, *, n_values: int, scoring: str = ACCURACY, values=None,
    epsilon: float = EPSILON, q: float = Q_FDR, min_items: int = MIN_ITEMS, min_humans: int = MIN_HUMANS,
) -> AltTest:  # fmt: skip
    """The alt-test of a judge against the humans' judgements in long form.

    Parameters
    ----------
    unit, annotator, value : the humans' judgements (item index, annotator index, value index)
    judge : (items,) the judge's value index per item, -1 where it gave none
    scoring : "accuracy" (categorical labels) or "neg_rmse" (numeric, with ``values`` per scale point)
    epsilon : the cost-benefit margin (0.2 for experts, 0.15 skilled, 0.1 crowd workers, per the paper)

    Examples
    --------
    Three annotators and a judge that always gives the majority label, on 30 items:

    >>> unit = np.repeat(np.arange(30), 3); annotator = np.tile([0, 1, 2], 30)
    >>> value = np.array([0, 0, 1] * 15 + [1, 1, 0] * 15)
    >>> r = alt_test(unit, annotator, value, np.array([0] * 15 + [1] * 15), n_values=2)
    >>> r.winning_rate, r.passed, round(r.rho, 4)
    (1.0, True, 1.0)
    """
    pool = AltTestPool.of(
        unit, annotator, value, n_values=n_values, scoring=scoring, values=values, min_items=min_items,
        min_humans=min_humans,
    )  # fmt: skip
    return pool.test(judge, epsilon=epsilon, q=q)


def combined_alt_test(tests: dict[str, AltTest], *, q: float = Q_FDR) -> dict:
    """Several criteria's alt-tests as one: Benjamini-Yekutieli over every (criterion, annotator) comparison
    together, as the paper's FAQ advises for several domains; the winning rate is the share of comparisons
    won, ``rho`` their mean advantage probability, and each criterion keeps its own winning rate.

    >>> unit = np.repeat(np.arange(30), 3); annotator = np.tile([0, 1, 2], 30)
    >>> value = np.array([0, 0, 1] * 15 + [1, 1, 0] * 15)
    >>> one = alt_test(unit, annotator, value, np.array([0] * 15 + [1] * 15), n_values=2)
    >>> c = combined_alt_test({"a": one, "b": one})
    >>> per_criterion = c["criteria"]
    >>> c["winning_rate"], c["passed"], len(c["per_annotator"]), per_criterion.get("a").get("winning_rate")
    (1.0, True, 6, 1.0)
    """
    rows = [{**row, "criterion": key} for key, test in tests.items() for row in test.per_annotator]
    rejected = benjamini_yekutieli([r["p_value"] for r in rows], q)
    for row, won in zip(rows, rejected):
        row["judge_wins"] = bool(won)
    criteria = {}
    for key in tests:
        mine = [r for r in rows if r["criterion"] == key]
        rate = float(np.mean([r["judge_wins"] for r in mine])) if mine else None
        criteria[key] = {
            "winning_rate": rate,
            "passed": rate is not None and rate >= 0.5,
            "rho": float(np.mean([r["rho_judge"] for r in mine])) if mine else None,
            "scoring": tests[key].scoring,
            "annotators": len(mine),
        }
    rate = float(rejected.mean()) if rows else None
    epsilon = next(iter(tests.values())).epsilon if tests else EPSILON
    return {
        "epsilon": epsilon,
        "q": q,
        "winning_rate": rate,
        "passed": rate is not None and rate >= 0.5,
        "rho": float(np.mean([r["rho_judge"] for r in rows])) if rows else None,
        "per_annotator": rows,
        "criteria": criteria,
    }
