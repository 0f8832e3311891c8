"""Paired labels as contingency tables, resampled over items, and the rank correlations of a table.

A judge's label ``x`` and a human summary ``y`` (majority label, mean score) of the same item are a cell of
an ``X x Y`` table. Items in the same cell are interchangeable, so the bootstrap over items is a draw of
cell weights (``scoring.agreement.intervals``: the patterns are the filled cells), and every statistic of
the table (Cohen's kappa, Spearman's rho, Kendall's tau-b) is computed for all resamples at once on the
stack of tables ``B x X x Y``. The jackknife replaces the bootstrap below ``JACKKNIFE_BELOW`` items.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scoring.agreement.intervals import (
    CONFIDENCE,
    JACKKNIFE_BELOW,
    RESAMPLES,
    Interval,
    UnitResamples,
    _resample_patterns,
    interval_from_replicates,
)


@dataclass(frozen=True)
class TableResamples:
    """The observed table (``X x Y``), its resampled tables (``B x X x Y``) and the resampling used."""

    observed: np.ndarray
    resampled: np.ndarray
    resamples: UnitResamples

    def interval(self, statistic) -> tuple[float, Interval]:
        """``statistic`` (stack of tables -> values) on the observed table, with its interval."""
        estimate = float(statistic(self.observed[None])[0])
        return estimate, interval_from_replicates(estimate, statistic(self.resampled), self.resamples)


def table_resamples(
    x, y, n_x: int, n_y: int, *, seed: int, resamples: int = RESAMPLES, confidence: float = CONFIDENCE,
    jackknife_below: int = JACKKNIFE_BELOW,
) -> TableResamples:  # fmt: skip
    """The ``n_x x n_y`` table of the pairs ``(x[i], y[i])`` and its resamples over items.

    >>> t = table_resamples([0, 0, 1], [0, 1, 1], 2, 2, seed=1)
    >>> t.observed.tolist(), t.resamples.method, t.resampled.shape
    ([[1, 1], [0, 1]], 'jackknife', (3, 2, 2))
    """
    cell = np.asarray(x, dtype=np.int64) * n_y + np.asarray(y, dtype=np.int64)
    cells, multiplicity = np.unique(cell, return_counts=True)
    r = _resample_patterns(
        np.eye(n_x * n_y, dtype=np.int64)[cells], multiplicity, seed=seed, resamples=resamples,
        jackknife_below=jackknife_below,
    )  # fmt: skip
    observed = np.bincount(cell, minlength=n_x * n_y).reshape(n_x, n_y)
    stack = np.zeros((len(r.weights), n_x * n_y), dtype=np.int64)
    stack[:, cells] = r.weights
    return TableResamples(observed, stack.reshape(-1, n_x, n_y), r)


def _midranks(margin: np.ndarray) -> np.ndarray:
    """Mid-ranks of each row/column category from its margin (..., K): items below + (count + 1) / 2."""
    below = np.cumsum(margin, axis=-1) - margin
    return below + (margin + 1) / 2


def spearman_of_tables(tables) -> np.ndarray:
    """Spearman's rho of each table in a stack (..., X, Y): Pearson's r of the items' mid-ranks.

    The rank of an item is the mid-rank of its row (column) category, so rho is the cell-weighted
    correlation of row and column mid-ranks (ties get the average rank, as scipy.stats.spearmanr).

    >>> round(float(spearman_of_tables(np.array([[[2, 0], [1, 2]]]))[0]), 4)
    0.6667
    """
    t = np.asarray(tables, dtype=float)
    rows, columns = t.sum(axis=-1), t.sum(axis=-2)
    n = rows.sum(axis=-1)
    r, c = _midranks(rows), _midranks(columns)
    mean = (n + 1) / 2
    rd, cd = r - mean[..., None], c - mean[..., None]
    cov = np.einsum("...x,...xy,...y->...", rd, t, cd)
    var_r, var_c = (rows * rd**2).sum(axis=-1), (columns * cd**2).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return cov / np.sqrt(var_r * var_c)


def kendall_of_tables(tables) -> np.ndarray:
    """Kendall's tau-b of each table in a stack (..., X, Y), as scipy.stats.kendalltau (variant "b").

    tau_b = (P - Q) / sqrt((n0 - n1)(n0 - n2)): P concordant and Q discordant pairs of items, n0 = n(n-1)/2,
    n1 and n2 the pairs tied in rows and in columns (Kendall 1945). P = sum_xy t_xy * (items strictly below
    and left of the cell), from cumulative sums of the table.

    >>> round(float(kendall_of_tables(np.array([[[2, 0], [1, 2]]]))[0]), 4)
    0.6667
    """
    t = np.asarray(tables, dtype=float)
    # items in rows < x and columns < y (strictly), and in rows < x and columns > y
    cum = np.cumsum(np.cumsum(t, axis=-2), axis=-1)
    lower_left = np.zeros_like(t)
    lower_left[..., 1:, 1:] = cum[..., :-1, :-1]
    row_cum = np.cumsum(t, axis=-2)
    below_rows = np.zeros_like(t)
    below_rows[..., 1:, :] = row_cum[..., :-1, :]  # items in rows < x, per column
    below_total = below_rows.sum(axis=-1, keepdims=True)
    upper_left = below_total - np.cumsum(below_rows, axis=-1)  # rows < x and columns > y
    concordant = (t * lower_left).sum(axis=(-2, -1))
    discordant = (t * upper_left).sum(axis=(-2, -1))
    rows, columns = t.sum(axis=-1), t.sum(axis=-2)
    n = rows.sum(axis=-1)
    n0 = n * (n - 1) / 2
    n1 = (rows * (rows - 1) / 2).sum(axis=-1)
    n2 = (columns * (columns - 1) / 2).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (concordant - discordant) / np.sqrt((n0 - n1) * (n0 - n2))
