"""Calibration of a judge that gives probabilities: expected calibration error, Brier score, the
reliability diagram, and the distance of its distributions to the humans'.

With the judge's probabilities ``p_i`` over the scale for item ``i``, its prediction ``argmax p_i`` and
confidence ``c_i = max p_i``, and the human majority label ``y_i`` as the truth:

* reliability diagram: the items in ``M`` equal-width confidence bins ``((m-1)/M, m/M]`` (the first bin
  also holds 0); per bin the mean confidence ``conf(B_m)``, the accuracy ``acc(B_m)`` (share of items whose
  prediction is ``y_i``) and the count;
* expected calibration error ``ECE = sum_m |B_m| / n * |acc(B_m) - conf(B_m)|`` (Naeini et al. 2015;
  Guo et al. 2017, eq. 3), with ``M = 10`` bins;
* Brier score, multi-class (Brier 1950): ``mean_i sum_v (p_iv - 1[y_i = v])^2``, 0 best, 2 worst;
* distance to the human distribution per item with the project's measures (``scoring.measures``: JSD,
  NMD, RSNOD), averaged over items: how far the judge's distribution is from the humans' shares.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scoring.checks import label_counts, numbers
from scoring.judges.agreement import majority_labels
from scoring.measures import jsd, nmd, rsnod

BINS = 10


@dataclass(frozen=True)
class Calibration:
    """ECE, Brier, the reliability diagram (per bin) and the mean distances to the human distributions."""

    n_items: int
    ece: float
    brier: float
    bins: list[dict]
    distance: dict

    def as_dict(self) -> dict:
        return {
            "n_items": self.n_items,
            "ece": self.ece,
            "brier": self.brier,
            "bins": self.bins,
            "distance": self.distance,
        }


def reliability_bins(confidence, correct, bins: int = BINS) -> list[dict]:
    """Per equal-width bin ``((m-1)/M, m/M]``: its range, item count, mean confidence and accuracy.

    >>> reliability_bins([0.95, 0.9, 0.55], [1, 0, 1], bins=2)[1]
    {'low': 0.5, 'high': 1.0, 'count': 3, 'confidence': 0.8, 'accuracy': 0.6667}
    """
    confidence, correct = np.asarray(confidence, dtype=float), np.asarray(correct, dtype=float)
    which = np.clip(np.ceil(confidence * bins).astype(np.int64) - 1, 0, bins - 1)
    n = np.bincount(which, minlength=bins)
    conf = np.bincount(which, confidence, minlength=bins)
    acc = np.bincount(which, correct, minlength=bins)
    out = []
    for m in range(bins):
        filled = n[m] > 0
        out.append(
            {
                "low": round(m / bins, 6),
                "high": round((m + 1) / bins, 6),
                "count": int(n[m]),
                "confidence": round(float(conf[m] / n[m]), 4) if filled else None,
                "accuracy": round(float(acc[m] / n[m]), 4) if filled else None,
            }
        )
    return out


def expected_calibration_error(confidence, correct, bins: int = BINS) -> float:
    """ECE with ``bins`` equal-width bins: sum_m |B_m| / n |acc(B_m) - conf(B_m)|.

    >>> round(expected_calibration_error([0.9, 0.9, 0.6, 0.6], [1, 0, 1, 1]), 4)
    0.4
    """
    confidence, correct = np.asarray(confidence, dtype=float), np.asarray(correct, dtype=float)
    which = np.clip(np.ceil(confidence * bins).astype(np.int64) - 1, 0, bins - 1)
    gap = np.bincount(which, correct - confidence, minlength=bins)
    return float(np.abs(gap).sum() / len(confidence)) if len(confidence) else float("nan")


def brier_score(probabilities, labels) -> float:
    """Multi-class Brier score: mean_i sum_v (p_iv - 1[y_i = v])^2.

    >>> brier_score([[0.5, 0.5], [1.0, 0.0]], [0, 0])
    0.25
    """
    p = np.asarray(probabilities, dtype=float)
    onehot = np.eye(p.shape[1])[np.asarray(labels, dtype=np.int64)]
    return float(((p - onehot) ** 2).sum(axis=1).mean()) if len(p) else float("nan")


def calibration(counts, probabilities, *, ordered: bool, bins: int = BINS) -> Calibration | None:
    """Calibration of the judge's probabilities (items x V, NaN rows where it gave none) against the humans.

    NMD and RSNOD are order-aware and apply to ordered scales only; JSD to every scale.

    >>> c = calibration([[2, 0], [0, 2], [1, 1]], [[0.9, 0.1], [0.2, 0.8], [0.5, 0.5]], ordered=False)
    >>> c.n_items, round(c.brier, 4), c.distance["jsd"] > 0
    (3, 0.2, True)
    """
    counts = label_counts(counts)
    p = numbers(probabilities, "probabilities")
    if p.shape != counts.shape:
        raise ValueError(f"probabilities must be shaped as counts {counts.shape}, got {p.shape}")
    keep = np.isfinite(p).all(axis=1) & (counts.sum(axis=1) > 0) & (p.sum(axis=1) > 0)
    if not keep.any():
        return None
    counts, p = counts[keep], p[keep] / p[keep].sum(axis=1, keepdims=True)
    labels = majority_labels(counts)
    prediction = p.argmax(axis=1)
    confidence = p.max(axis=1)
    correct = prediction == labels
    shares = counts / counts.sum(axis=1, keepdims=True)
    distance = {"jsd": float(np.mean(jsd(p, shares)))}
    if ordered and p.shape[1] > 1:
        distance["nmd"] = float(np.mean(nmd(p, shares)))
        distance["rsnod"] = float(np.mean(rsnod(p, shares)))
    return Calibration(
        n_items=int(keep.sum()),
        ece=expected_calibration_error(confidence, correct, bins),
        brier=brier_score(p, labels),
        bins=reliability_bins(confidence, correct, bins),
        distance=distance,
    )
