"""Dialogue breakdown detection: gold labels and the classification metrics of Table 1.

Labels are NB (O), PB (T) and B (X). The gold label of a system turn is the most frequent label
if its share reaches the threshold t, else NB (ties go to NB, then PB, then B). The lenient gold
labels apply the same rule to the merged distributions (NB, PB+B) and (NB+PB, B).

Metrics (Tsunomori et al. 2020, Table 1), pooled over system turns as the DBDC3 evaluation
script reports them, or per dialogue:
- Accuracy(NB,PB,B), Accuracy(NB,PB+B), Accuracy(NB+PB,B): predicted labels mapped into the
  grouping against the (lenient) gold label of that grouping;
- F1(B) against the (NB+PB, B) gold label and F1(PB+B) against the (NB, PB+B) gold label, with
  precision and recall (0 when undefined, as 0/0);
- the "+w" forms weight each turn by the Simpson index of its three-label gold distribution,
  w = sum_l p*_l^2 (Eq. 1).
Together with ``scoring.runs.breakdown_distribution_metrics`` (JSD and MSE) these are the 22.

References
----------
Tsunomori, Y., Higashinaka, R., et al. (2020). Selection of evaluation metrics for dialogue
breakdown detection in Dialog Breakdown Detection Challenge 3 (``tsunomori2020_breakdown_metrics.txt``).
"""

from __future__ import annotations

import numpy as np

from scoring.gold import gold_distribution
from scoring.measures import simpson_index
from scoring.metric_names import BREAKDOWN_METRICS, TABLE1  # noqa: F401  (re-exported: the metrics' names)

LABELS = ("O", "T", "X")
# Label groupings of the breakdown metrics: name -> groups of label columns (NB, PB, B) = (O, T, X).
GROUPINGS = {"NB,PB,B": [[0], [1], [2]], "NB,PB+B": [[0], [1, 2]], "NB+PB,B": [[0, 1], [2]]}
F1_TARGETS = {"B": "NB+PB,B", "PB+B": "NB,PB+B"}


def gold_labels(counts, threshold: float = 0.0, groups=None) -> np.ndarray:
    """Gold label index per turn: the most frequent (merged) label if its share >= t, else 0 (NB).

    >>> gold_labels([[3, 3, 4], [5, 5, 0], [2, 4, 4]]).tolist()
    [2, 0, 1]
    >>> gold_labels([[3, 3, 4]], threshold=0.5).tolist(), gold_labels([[3, 3, 4]], groups=[[0], [1, 2]]).tolist()
    ([0], [1])
    """
    p = gold_distribution(counts, groups)
    best = np.argmax(p, axis=-1)  # the first maximum: NB before PB before B
    return np.where(np.take_along_axis(p, best[..., None], axis=-1)[..., 0] >= threshold, best, 0)


def _group_of(groups) -> np.ndarray:
    mapping = np.empty(3, dtype=np.int64)
    for g, members in enumerate(groups):
        mapping[members] = g
    return mapping


def classification_metrics(predicted, gold_counts, threshold: float = 0.0, rows=None) -> dict[str, float]:
    """Accuracy and F1 (with precision and recall), plain and Simpson-weighted, over the selected turns.

    ``predicted``: label index (0 O, 1 T, 2 X) per turn; ``gold_counts``: turns x 3 label counts.
    """
    predicted = np.asarray(predicted, dtype=np.int64)
    gold_counts = np.asarray(gold_counts, dtype=float)
    if rows is not None:
        predicted, gold_counts = predicted[rows], gold_counts[rows]
    if predicted.shape != gold_counts.shape[:1]:
        raise ValueError(f"{len(predicted)} predictions for {len(gold_counts)} turns")
    if len(predicted) == 0:
        raise ValueError("no turns to score")
    w = simpson_index(gold_distribution(gold_counts))
    out: dict[str, float] = {}
    for name, groups in GROUPINGS.items():
        correct = (_group_of(groups)[predicted] == gold_labels(gold_counts, threshold, groups)).astype(float)
        out[f"Accuracy({name})"] = float(correct.mean())
        out[f"Accuracy+w({name})"] = float((correct * w).sum() / w.sum())
    for target, grouping in F1_TARGETS.items():
        groups = GROUPINGS[grouping]
        pred_pos = _group_of(groups)[predicted] == 1
        gold_pos = gold_labels(gold_counts, threshold, groups) == 1
        for suffix, weight in (("", np.ones_like(w)), ("+w", w)):
            tp = (weight * (pred_pos & gold_pos)).sum()
            fp = (weight * (pred_pos & ~gold_pos)).sum()
            fn = (weight * (~pred_pos & gold_pos)).sum()
            precision = tp / (tp + fp) if tp + fp > 0 else 0.0
            recall = tp / (tp + fn) if tp + fn > 0 else 0.0
            f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
            out[f"F1{suffix}({target})"] = float(f1)
            if not suffix:
                out[f"Precision({target})"] = float(precision)
                out[f"Recall({target})"] = float(recall)
    return out
