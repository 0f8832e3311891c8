"""A criterion's scale as the agreement statistics read it: its numbers (for the figures that measure
distances: interval and ratio alpha, correlations) and the levels of measurement alpha is given at."""

from __future__ import annotations

import numpy as np


def numeric_values(values: list[str]) -> np.ndarray:
    """The numbers of a scale for interval statistics: the values themselves, or their ranks.

    Examples
    --------
    >>> numeric_values(["-2", "0", "2"]).tolist()
    [-2.0, 0.0, 2.0]
    >>> numeric_values(["bad", "good"]).tolist()
    [0.0, 1.0]
    """
    try:
        return np.array([float(v) for v in values])
    except ValueError:
        return np.arange(len(values), dtype=float)


def alpha_levels(level: str) -> tuple[str, ...]:
    """The levels of measurement alpha is given at for a criterion of ``level``: nominal always; ordinal and
    interval beside it for an ordered scale; ratio too for a ratio scale."""
    levels = ("nominal",) if level == "nominal" else ("nominal", "ordinal", "interval")
    return levels + (("ratio",) if level == "ratio" else ())
