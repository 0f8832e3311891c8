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
    if np.ptp(d) == 0:
        return (-np.inf, 0.0) if d[0] < epsilon else (np.inf, 1.0)
    from scipy import stats  # here, not at import: the web process starts without scipy

    result = stats.ttest_1samp(d, epsilon, alternative="less")
    return float(result.statistic), float(result.pvalue)


def _alignment(candidate: np.ndarray, others: np.ndarray, m: np.ndarray, values: np.ndarray, scoring: str):
    """s(candidate, remaining humans) per item; ``others`` (items x V) the remaining humans' counts."""
    if scoring == ACCURACY:
        return others[np.arange(len(candidate)), candidate] / m
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
    unit, annotator, value = (np.asarray(a, dtype=np.int64) for a in (unit, annotator, value))
    judge = np.asarray(judge, dtype=np.int64)
    n_items = len(judge)
    x = np.arange(n_values, dtype=float) if values is None else np.asarray(values, dtype=float)
    counts = np.bincount(unit * n_values + value, minlength=n_items * n_values).reshape(n_items, n_values)
    kept = (counts.sum(axis=1) >= min_humans) & (judge >= 0)
    rows, skipped = [], []
    for a in np.unique(annotator).tolist():
        mine = (annotator == a) & kept[unit]
        items, own = unit[mine], value[mine]
        if len(items) < min_items:
            skipped.append(a)
            continue
        others = counts[items] - np.eye(n_values, dtype=np.int64)[own]
        m = others.sum(axis=1)
        s_judge = _alignment(judge[items], others, m, x, scoring)
        s_human = _alignment(own, others, m, x, scoring)
        w_judge, w_human = (s_judge >= s_human).astype(float), (s_human >= s_judge).astype(float)
        t, p = _one_sided_p(w_human - w_judge, epsilon)
        rows.append(
            {
                "annotator": a,
                "items": len(items),
                "rho_judge": float(w_judge.mean()),
                "rho_human": float(w_human.mean()),
                "t": t,
                "p_value": p,
            }
        )
    rejected = benjamini_yekutieli([r["p_value"] for r in rows], q)
    for row, won in zip(rows, rejected):
        row["judge_wins"] = bool(won)
        row["t"] = row["t"] if np.isfinite(row["t"]) else None
    winning_rate = float(rejected.mean()) if rows else float("nan")
    rho = float(np.mean([r["rho_judge"] for r in rows])) if rows else float("nan")
    return AltTest(epsilon, q, scoring, winning_rate, bool(rows) and winning_rate >= 0.5, rho, rows, skipped)


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
