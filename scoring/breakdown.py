"""Dialogue breakdown detection: gold labels and the classification metrics of Table 1.

Labels are NB (O), PB (T) and B (X). A system turn's gold distribution is p*_l = n_l / n over
its n annotators. Its gold label is the most frequent label if that label's share reaches the
threshold t, else NB; ties go to NB, then PB, then B (``majority_label`` of the DBDC3 evaluation
script, ``prog/eval/eval.py``). The lenient gold labels apply the same rule to the merged
distributions (NB, PB+B) and (NB+PB, B), whose merged shares are sums of the three-label shares
(p*_PB + p*_B), computed as the script computes them (``majority_label_lenient``), so that ties
and the threshold fall on the same side in floating point.

Metrics (Tsunomori et al. 2020, Table 1; the DBDC3 evaluation script), pooled over system turns
as the script reports them, or per dialogue:
- Accuracy(NB,PB,B), Accuracy(NB,PB+B), Accuracy(NB+PB,B): predicted labels mapped into the
  grouping against the gold label of that grouping;
- F1(B): B against the **three-label** gold label (the script's "Precision/Recall/F-measure (X)":
  a turn is positive when its gold label under (NB, PB, B) is B, the same gold label as
  Accuracy(NB,PB,B); not the gold label of the (NB+PB, B) grouping, which would need B to
  outweigh NB and PB together);
- F1(PB+B): PB or B predicted against the (NB, PB+B) gold label (the script's "(T+X)");
- precision = TP / (TP + FP), recall = TP / (TP + FN), F1 = 2PR / (P + R), each 0 when its
  denominator is 0, as in the script;
- the "+w" forms weight each turn by the Simpson index of its three-label gold distribution,
  w = sum_l p*_l^2 (Eq. 1).
Together with ``scoring.runs.breakdown_distribution_metrics`` (JSD and MSE) these are the 22.

References
----------
Tsunomori, Y., Higashinaka, R., et al. (2020). Selection of evaluation metrics for dialogue
breakdown detection in Dialog Breakdown Detection Challenge 3 (``tsunomori2020_breakdown_metrics.txt``).
Higashinaka, R., et al. (2017). DBDC3 evaluation script ``prog/eval/eval.py``
(github.com/dbd-challenge/dbdc3).
"""

from __future__ import annotations

import numpy as np

from scoring.gold import gold_distribution, merge_counts
from scoring.measures import simpson_index

LABELS = ("O", "T", "X")
# Label groupings of the breakdown metrics: name -> groups of label columns (NB, PB, B) = (O, T, X).
GROUPINGS = {"NB,PB,B": [[0], [1], [2]], "NB,PB+B": [[0], [1, 2]], "NB+PB,B": [[0, 1], [2]]}
# F-measure targets: name -> (grouping whose gold label decides, the positive group in it).
F1_TARGETS = {"B": ("NB,PB,B", 2), "PB+B": ("NB,PB+B", 1)}


def gold_shares(counts, groups=None) -> np.ndarray:
    """Gold shares per turn: p*_l = n_l / n, merged by summing the shares of a group (as the DBDC3 script).

    Parameters
    ----------
    counts : array-like, shape (n_turns, n_labels)
        Label counts per turn (NB, PB, B).
    groups : sequence of sequences of int, optional
        Columns merged into one share, e.g. ``[[0], [1, 2]]`` for NB, PB+B.

    Returns
    -------
    ndarray, shape (n_turns, n_labels) or (n_turns, len(groups))

    Examples
    --------
    >>> gold_shares([[15, 7, 8]], [[0], [1, 2]]).tolist()
    [[0.5, 0.5]]
    """
    p = gold_distribution(counts)
    return p if groups is None else merge_counts(p, groups)


def gold_labels(counts, threshold: float = 0.0, groups=None) -> np.ndarray:
    """Gold label index per turn: the most frequent (merged) label if its share >= t, else 0 (NB).

    Ties go to the first label (NB before PB before B; NB before PB+B; NB+PB before B), as the
    DBDC3 script's ``majority_label`` and ``majority_label_lenient``.

    Parameters
    ----------
    counts : array-like, shape (n_turns, n_labels)
        Label counts per turn (NB, PB, B).
    threshold : float
        t, the share the most frequent label needs (DBDC3 uses 0.0 and 0.5).
    groups : sequence of sequences of int, optional
        Columns merged before the majority is taken.

    Returns
    -------
    ndarray of int, shape (n_turns,)

    Examples
    --------
    >>> gold_labels([[3, 3, 4], [5, 5, 0], [2, 4, 4]]).tolist()
    [2, 0, 1]
    >>> gold_labels([[3, 3, 4]], threshold=0.5).tolist(), gold_labels([[3, 3, 4]], groups=[[0], [1, 2]]).tolist()
    ([0], [1])
    """
    p = gold_shares(counts, groups)
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
    A turn with counts (3, 3, 4) has gold label B: predicting B there is a true positive of F1(B)
    (the DBDC3 script), although B does not outweigh NB+PB.

    Parameters
    ----------
    predicted : array-like of int, shape (n_turns,)
        The predicted label index per turn.
    gold_counts : array-like, shape (n_turns, 3)
        The annotators' NB, PB, B counts per turn.
    threshold : float
        As in ``gold_labels``.
    rows : array-like of int or bool, shape (n_selected,) or (n_turns,), optional
        The turns to evaluate (default all).

    Examples
    --------
    >>> m = classification_metrics([2, 0], [[3, 3, 4], [8, 1, 1]])
    >>> m["Precision(B)"], m["Recall(B)"], m["F1(B)"], m["Accuracy(NB+PB,B)"]
    (1.0, 1.0, 1.0, 0.5)
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
    gold = {name: gold_labels(gold_counts, threshold, groups) for name, groups in GROUPINGS.items()}
    out: dict[str, float] = {}
    for name, groups in GROUPINGS.items():
        correct = (_group_of(groups)[predicted] == gold[name]).astype(float)
        out[f"Accuracy({name})"] = float(correct.mean())
        out[f"Accuracy+w({name})"] = float((correct * w).sum() / w.sum())
    for target, (grouping, positive) in F1_TARGETS.items():
        pred_pos = _group_of(GROUPINGS[grouping])[predicted] == positive
        gold_pos = gold[grouping] == positive
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
