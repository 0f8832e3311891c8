"""Per-annotator quality figures that are not agreement: control answers, straight-lining, speed, spamming.

Plain numpy, like the rest of the library; the Django side (``evaluation.services.reliability``)
feeds it the judgements of a project and stores the results in the statistics payload.

References
----------
Raykar, V. C. & Yu, S. (2012). Eliminating spammers and ranking annotators for crowdsourced labeling
tasks. Journal of Machine Learning Research 13.
Herzog, A. R. & Bachman, J. G. (1981). Effects of questionnaire length on response quality
(straight-lining: the same answer to every question of a block).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def answers_match(given, expected, *, tolerance=0, ordered=False) -> np.ndarray:
    """Whether each given answer counts as the expected one.

    Answers are indices into a criterion's scale. On an ordered scale (ordinal or interval) an answer
    within ``tolerance`` scale points of the expected one counts, |given - expected| <= tolerance; on a
    nominal scale only the expected value itself does.

    Parameters
    ----------
    given, expected : array-like of int, shape (n_answers,)
        Scale indices.
    tolerance : int or array-like of int, shape (n_answers,)
        Scale points; ignored (taken as 0) where ``ordered`` is false.
    ordered : bool or array-like of bool, shape (n_answers,)

    Examples
    --------
    >>> answers_match([0, 1, 3], [1, 1, 1], tolerance=1, ordered=True).tolist()
    [True, True, False]
    >>> answers_match([0, 1], [1, 1], tolerance=1, ordered=False).tolist()
    [False, True]
    """
    given, expected = np.asarray(given, dtype=np.int64), np.asarray(expected, dtype=np.int64)
    tolerance = np.where(np.asarray(ordered, dtype=bool), np.asarray(tolerance, dtype=np.int64), 0)
    if np.any(tolerance < 0):
        raise ValueError("tolerance must be non-negative")
    return np.abs(given - expected) <= tolerance


@dataclass(frozen=True)
class StraightLining:
    """Per item (``items``, sorted): whether it could be straight-lined (``eligible``) and whether it was."""

    items: np.ndarray
    eligible: np.ndarray
    straight: np.ndarray


def straight_lining(item, group, value) -> StraightLining:
    """Items answered with the same value on every question.

    Questions are grouped by ``group`` (the scale they are asked on, so that "the same value" is
    comparable); a group with two or more questions in an item is a block. An item is eligible if it
    has a block, and straight-lined if every block of it holds a single value (min = max).

    Parameters
    ----------
    item, group, value : array-like of int, shape (n_judgements,)
        Judgement k answered ``value[k]`` on a question of scale ``group[k]`` in item ``item[k]``.

    Examples
    --------
    >>> r = straight_lining([1, 1, 1, 2, 2, 3], [0, 0, 0, 0, 0, 0], [2, 2, 2, 0, 1, 4])
    >>> r.items.tolist(), r.eligible.tolist(), r.straight.tolist()
    ([1, 2, 3], [True, True, False], [True, False, False])
    """
    item, group, value = (np.asarray(x, dtype=np.int64) for x in (item, group, value))
    items, item_index = np.unique(item, return_inverse=True)
    if not len(item):
        empty = np.zeros(0, dtype=bool)
        return StraightLining(items, empty, empty)
    # one sort by (item, group) as a single integer key, then each pair's count, min and max by segment
    n_groups = int(group.max()) + 1
    key = item_index.reshape(-1) * n_groups + group
    order = np.argsort(key)
    key, value = key[order], value[order]
    starts = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
    n = np.diff(np.append(starts, len(key)))
    low, high = np.minimum.reduceat(value, starts), np.maximum.reduceat(value, starts)
    block = n >= 2
    pair_item = key[starts] // n_groups
    blocks = np.bincount(pair_item, weights=block, minlength=len(items))
    flat_blocks = np.bincount(pair_item, weights=block & (low == high), minlength=len(items))
    eligible = blocks > 0
    return StraightLining(items, eligible, eligible & (flat_blocks == blocks))


def spammer_score(confusion) -> np.ndarray:
    """Raykar & Yu's spammer score of each annotator from their confusion matrix.

    A spammer's label does not depend on the true class: every row of their confusion matrix
    (``confusion[a, true, given]``, rows summing to 1) is the same. The score is the mean squared
    distance between the rows, S_a = 1 / (K (K - 1)) sum_{c < c'} sum_k (A_ck - A_c'k)^2, which is 0 for a
    spammer (random or constant answers) and 1 for a perfect annotator (the identity, or any
    permutation of it).

    Parameters
    ----------
    confusion : array-like, shape (n_annotators, K, K)
        ``confusion[a, true, given]``, each row summing to 1.

    Returns
    -------
    ndarray, shape (n_annotators,), in [0, 1]

    Examples
    --------
    >>> spammer_score([np.eye(3), np.full((3, 3), 1 / 3), [[1, 0, 0], [1, 0, 0], [1, 0, 0]]]).round(4).tolist()
    [1.0, 0.0, 0.0]
    """
    a = np.asarray(confusion, dtype=float)
    if a.ndim != 3 or a.shape[1] != a.shape[2]:
        raise ValueError(f"confusion must be annotators x K x K, got shape {a.shape}")
    k = a.shape[1]
    if k < 2:
        return np.zeros(len(a))
    difference = a[:, :, None, :] - a[:, None, :, :]
    return (difference**2).sum(axis=(1, 2, 3)) / 2 / (k * (k - 1))
