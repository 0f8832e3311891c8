"""The statistics payload's intervals and the data behind each agreement figure.

Beside each coefficient of an agreement block (a criterion, one speaker's units, a label merge) the payload
keeps its interval (``scoring.agreement.intervals``: bootstrap over units, jackknife below 30 units) and what
it is computed from: the categories in column order, the labels given in each (the marginals behind the
kappas), the coincidence matrix behind alpha (the same at every level of measurement; only the distances
differ), and how many values could be paired. Lists rather than objects: PostgreSQL's jsonb does not keep
key order. The draws are seeded from the block's key, so a recomputation gives the same figures.
"""

from __future__ import annotations

import numpy as np

from scoring.agreement.intervals import (
    CONFIDENCE,
    JACKKNIFE_BELOW,
    RESAMPLES,
    agreement_intervals,
    cohen_kappa_matrix_intervals,
    coincidences,
    seed_from,
)


def _round(x: float, digits: int = 6) -> float:
    return round(float(x), digits) if np.isfinite(x) else float("nan")


def agreement_evidence(
    pairable: np.ndarray, *, key: str, levels: tuple[str, ...], values: np.ndarray, categories: list[str],
    n_categories: int | None = None,
) -> dict:  # fmt: skip
    """The ``intervals`` and the data behind the coefficients of one agreement block (``pairable``: the units
    with two or more labels, units x categories)."""
    result = agreement_intervals(pairable, seed=seed_from(key), levels=levels, values=values, n_categories=n_categories)
    alpha = {level: interval.as_dict() for level, (_a, interval) in result.krippendorff_alpha.items()}
    matrix = coincidences(pairable).sum(axis=0) if len(pairable) else np.zeros((len(categories),) * 2)
    return {
        "intervals": {
            "confidence": CONFIDENCE,
            "jackknife_below": JACKKNIFE_BELOW,
            "fleiss_kappa": result.fleiss_kappa[1].as_dict(),
            "randolph_kappa": result.randolph_kappa[1].as_dict(),
            "krippendorff_alpha": alpha,
        },
        "categories": list(categories),
        "category_counts": pairable.sum(axis=0).astype(int).tolist(),
        "coincidences": [[_round(x) for x in row] for row in matrix],
        "pairable_values": int(pairable.sum()),
    }


def kappa_matrix_evidence(unit, annotator, value, *, key: str, n_annotators: int, n_values: int, weights) -> dict:
    """Pairwise Cohen's kappa with intervals over each pair's shared units, and each annotator's category
    counts (the marginals behind their kappas): the ``reliability.kappa`` entry's figures."""
    m = cohen_kappa_matrix_intervals(
        unit, annotator, value, n_annotators=n_annotators, n_values=n_values, weights=weights,
        seed=seed_from(f"{key}/cohen"),
    )  # fmt: skip
    annotator = np.asarray(annotator, dtype=np.int64)
    value = np.asarray(value, dtype=np.int64)
    marginals = np.bincount(annotator * n_values + value, minlength=n_annotators * n_values)

    def rounded(matrix):
        return [[None if np.isnan(x) else round(float(x), 4) for x in row] for row in matrix]

    return {
        "kappa": rounded(m.kappa),
        "shared": m.shared.tolist(),
        "ci_low": rounded(m.low),
        "ci_high": rounded(m.high),
        "ci_method": [[x or None for x in row] for row in m.method.tolist()],
        "confidence": CONFIDENCE,
        "jackknife_below": JACKKNIFE_BELOW,
        "resamples": RESAMPLES,  # per pair bootstrapped; a jackknifed pair's replicates are its shared units
        "category_counts": marginals.reshape(n_annotators, n_values).tolist(),
    }
