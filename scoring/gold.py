"""Gold distributions: every annotator's view of a unit kept as a distribution over labels.

Sakai (2017), "Towards automatic evaluation of multi-turn dialogues: a task design that
leverages inherently subjective annotations" (``sakai2017_snod_task_design.txt``): rather than
forcing a single gold label, the gold data of a unit is the distribution of the labels its
annotators gave.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scoring.checks import label_counts


def merge_counts(counts: np.ndarray, groups: Sequence[Sequence[int]]) -> np.ndarray:
    """Add up count columns by group: ``groups[g]`` lists the columns that become column ``g``.

    Every column must be in exactly one group.

    Parameters
    ----------
    counts : array-like, shape (..., n_labels)
    groups : sequence of sequences of int
        ``groups[g]`` lists the columns of ``counts`` summed into column ``g``.

    Returns
    -------
    ndarray, shape (..., len(groups))

    Examples
    --------
    >>> merge_counts(np.array([[3, 1, 2]]), [[0, 1], [2]]).tolist()
    [[4, 2]]
    """
    counts = np.asarray(counts)
    n = counts.shape[-1]
    flat = sorted(i for g in groups for i in g)
    if flat != list(range(n)):
        raise ValueError(f"label groups {list(map(list, groups))} must cover each of the {n} columns exactly once")
    matrix = np.zeros((n, len(groups)), dtype=counts.dtype if counts.dtype.kind in "iuf" else float)
    for g, members in enumerate(groups):
        matrix[list(members), g] = 1
    return counts @ matrix


def group_indices(labels: Sequence[str], groups: Sequence[Sequence[str]]) -> list[list[int]]:
    """Label groups (``[["NB", "PB"], ["B"]]``) as column indices of ``labels``.

    Parameters
    ----------
    labels : sequence of str, length n_labels
        The label of each column.
    groups : sequence of sequences of str
        Each group's labels; an unknown label raises ``ValueError``.

    Examples
    --------
    >>> group_indices(["NB", "PB", "B"], [["NB", "PB"], ["B"]])
    [[0, 1], [2]]
    """
    index = {label: i for i, label in enumerate(labels)}
    try:
        return [[index[label] for label in group] for group in groups]
    except KeyError as exc:
        raise ValueError(f"label {exc.args[0]!r} is not one of {list(labels)}") from None


def gold_distribution(counts: np.ndarray, groups: Sequence[Sequence[int]] | None = None) -> np.ndarray:
    """Gold distributions from per-unit label counts.

    Parameters
    ----------
    counts : array-like, shape (..., L)
        ``counts[..., l]`` is the number of annotators who gave label ``l`` to the unit.
    groups : list of lists of column indices, optional
        Label merges, e.g. DBDC (NB+PB, B) is ``[[0, 1], [2]]`` for columns (NB, PB, B).

    Returns
    -------
    array (..., L) or (..., len(groups))
        p*_l = n_l / sum_k n_k. A unit nobody judged has an all-NaN row.

    Examples
    --------
    >>> gold_distribution(np.array([[2, 1, 1], [0, 0, 4]])).tolist()
    [[0.5, 0.25, 0.25], [0.0, 0.0, 1.0]]
    >>> gold_distribution(np.array([[2, 1, 1]]), [[0, 1], [2]]).tolist()
    [[0.75, 0.25]]
    """
    counts = label_counts(counts, ndim=None)
    if groups is not None:
        counts = merge_counts(counts, groups)
    totals = counts.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(totals > 0, counts / np.where(totals > 0, totals, 1), np.nan)
