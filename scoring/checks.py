"""The library's one check of numeric input: every public function that takes label counts or distributions reads
them through this module, so that a malformed array is refused the same way everywhere, with a ``ValueError``
that names the argument, the position of the first bad entry and what is wrong with it, instead of a number
computed from it (a negative count read as a vote, a ragged table read as objects).

``label_counts`` takes a table of label counts (units x categories, whole non-negative numbers: how many
annotators gave each unit each label); ``as_distributions`` takes weights to normalise into distributions
(``scoring.measures``); ``numbers`` is the conversion both start with.

Examples
--------
>>> label_counts([[2, 1], [0, 3]]).tolist()
[[2.0, 1.0], [0.0, 3.0]]
>>> label_counts([[-3, 1]])
Traceback (most recent call last):
...
ValueError: counts[0, 0] is -3: a label count cannot be negative
>>> label_counts([[1, 2], [3]])
Traceback (most recent call last):
...
ValueError: counts must be a table of numbers of one shape: its rows have different lengths
"""

from __future__ import annotations

import numpy as np


def numbers(x, name: str) -> np.ndarray:
    """``x`` as a float array, or a ``ValueError`` when it is not a regular array of numbers.

    Parameters
    ----------
    x : array-like
        Nested sequences of numbers, all rows of one length (any shape).
    name : str
        What ``x`` is called in the error message.

    Returns
    -------
    ndarray of float, the shape of ``x``

    Examples
    --------
    >>> numbers([[1, 2]], "counts").dtype
    dtype('float64')
    >>> numbers([["a", 2]], "counts")
    Traceback (most recent call last):
    ...
    ValueError: counts must hold numbers, got text
    """
    try:
        array = np.asarray(x)
    except ValueError:  # numpy refuses ragged nesting ("inhomogeneous shape")
        raise ValueError(f"{name} must be a table of numbers of one shape: its rows have different lengths") from None
    if array.dtype == object:
        raise ValueError(f"{name} must be a table of numbers of one shape: its rows have different lengths")
    if array.dtype.kind not in "iuf":
        kind = {"U": "text", "S": "bytes", "b": "true/false values", "c": "complex numbers"}.get(array.dtype.kind)
        raise ValueError(f"{name} must hold numbers, got {kind or array.dtype.name}")
    return array.astype(float, copy=False)


def _position(index: tuple) -> str:
    return ", ".join(str(int(i)) for i in index)


def _number_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def label_counts(counts, name: str = "counts", *, ndim: int | None = 2, min_categories: int = 1) -> np.ndarray:
    """``counts`` checked as label counts and returned as a float array; ``ValueError`` naming the first bad entry.

    A table of label counts gives, for each unit (a row; the last axis is the categories), how many annotators
    chose each category: whole, finite, non-negative numbers.

    Parameters
    ----------
    counts : array-like, shape (n_units, n_categories) (or ``ndim`` axes, categories last)
        The label counts.
    name : str
        What ``counts`` is called in the error message.
    ndim : int or None
        The number of axes ``counts`` must have (2: units x categories; 1: one unit's counts; None: one or more).
    min_categories : int
        The fewest categories (length of the last axis) the caller can work with.

    Returns
    -------
    ndarray of float, the shape of ``counts``

    Examples
    --------
    >>> label_counts([1, 2], ndim=1).tolist()
    [1.0, 2.0]
    >>> label_counts([[1, 0.5]])
    Traceback (most recent call last):
    ...
    ValueError: counts[0, 1] is 0.5: a label count is a whole number of annotators
    >>> label_counts([1, 2])
    Traceback (most recent call last):
    ...
    ValueError: counts must have two axes (units x categories), got shape (2,)
    """
    array = numbers(counts, name)
    if (array.ndim != ndim) if ndim is not None else array.ndim == 0:
        axes = {1: "one axis (categories)", 2: "two axes (units x categories)"}.get(
            ndim or 0, "one or more axes (categories last)"
        )
        raise ValueError(f"{name} must have {axes}, got shape {array.shape}")
    if array.shape[-1] < min_categories:
        raise ValueError(f"{name} must have at least {min_categories} categories, got shape {array.shape}")
    for bad, why in (
        (~np.isfinite(array), "a label count must be a finite number"),
        (array < 0, "a label count cannot be negative"),
        (array != np.floor(array), "a label count is a whole number of annotators"),
    ):
        if bad.any():
            index = tuple(np.argwhere(bad)[0])
            value = array[index]
            shown = _number_text(value) if np.isfinite(value) else repr(float(value))
            raise ValueError(f"{name}[{_position(index)}] is {shown}: {why}")
    return array


def as_distributions(x, name: str = "p") -> np.ndarray:
    """Normalise ``x`` along the last axis; raise ``ValueError`` naming the first bad row.

    Parameters
    ----------
    x : array-like, shape (..., L)
        Non-negative, finite weights over L bins, not all zero in a row.
    name : str
        What ``x`` is called in the error message.

    Returns
    -------
    ndarray of float, the shape of ``x``, each row summing to 1

    Examples
    --------
    >>> as_distributions([[1, 3], [2, 2]]).tolist()
    [[0.25, 0.75], [0.5, 0.5]]
    """
    x = numbers(x, name)
    if x.ndim == 0 or x.shape[-1] == 0:
        raise ValueError(f"{name} needs at least one bin on its last axis")
    totals = (x @ np.ones(x.shape[-1]))[..., None]  # a product with ones: faster than a sum over a short axis
    # NaN fails ">= 0"; an infinite entry makes the total infinite. Checked on the whole array
    # first (fast), row by row only to name the culprit.
    if not ((x >= 0).all() and np.isfinite(totals).all() and (totals > 0).all()):
        bad = ~((x >= 0).all(axis=-1) & np.isfinite(totals[..., 0]) & (totals[..., 0] > 0))
        row = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.ndim else ()
        raise ValueError(
            f"{name} row {row if len(row) != 1 else row[0]} is not a distribution: {x[row].tolist()} "
            "(entries must be finite, non-negative and not all zero)"
        )
    return x / totals
