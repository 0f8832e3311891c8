"""Prediction-powered system scores of a judge (``scoring.judges.ppi``), per system and criterion.

Rated projects: a system is the dialogue's ``source_meta["system"]`` (one row "all" when dialogues name
none); its score on an ordered criterion is the mean of the humans' mean score per unit, on a nominal
criterion the share of the humans' labels that are each value. Pairwise projects: a system's score is its
win rate over the comparisons it is in (the humans' share of votes for it, ties half; the judge's verdict).

Labelled items are the units humans judged; the judge's labels on units no human judged are the
unlabelled items. When every judged unit also has human labels (a judge evaluated on the gold itself), the
report shows what the judge would save: a share ``LABELLED_SHARE`` of the units (drawn with a seed from the
judge's name) is kept as labelled and the rest treated as unlabelled; the estimate from every human label
is shown beside it as the reference (``design: "subsample"``).
"""

from __future__ import annotations

import numpy as np

from scoring.agreement.intervals import seed_from
from scoring.judges import classical_mean, ppi_mean

LABELLED_SHARE = 0.1
MIN_LABELLED = 10


def _split(n_labelled_units: int, has_unlabelled: bool, key: str) -> np.ndarray | None:
    """Which labelled units stay labelled: all (observed design), or a seeded subsample."""
    if has_unlabelled:
        return None
    rng = np.random.default_rng(seed_from(f"{key}:ppi"))
    k = max(MIN_LABELLED, round(LABELLED_SHARE * n_labelled_units))
    keep = np.zeros(n_labelled_units, dtype=bool)
    keep[rng.choice(n_labelled_units, size=min(k, n_labelled_units), replace=False)] = True
    return keep


def system_estimate(y, f, f_extra, *, key: str) -> dict | None:
    """PPI and human-only estimates of the mean of ``y`` (human target on labelled units), with the judge's
    ``f`` on those units and ``f_extra`` on units no human judged."""
    y, f, f_extra = (np.asarray(a, dtype=float) for a in (y, f, f_extra))
    if len(y) < 2:
        return None
    keep = _split(len(y), len(f_extra) > 0, key)
    if keep is None:
        design, y_l, f_l, f_u = "observed", y, f, f_extra
    else:
        design, y_l, f_l, f_u = "subsample", y[keep], f[keep], np.concatenate([f[~keep], f_extra])
    pp, human = ppi_mean(y_l, f_l, f_u), classical_mean(y_l)
    ratio = pp.width / human.width if human.width and np.isfinite(pp.width) and human.width > 0 else None
    out = {
        "design": design,
        "ppi": pp.as_dict(),
        "human_only": human.as_dict(),
        "width_ratio": float(ratio) if ratio is not None and np.isfinite(ratio) else None,
    }
    if design == "subsample":
        out["all_humans"] = classical_mean(y).as_dict()
    return out
