"""What every coefficient shares: which units can be paired, and what an undefined coefficient gives."""

from __future__ import annotations

import numpy as np

from scoring.checks import label_counts


def _pairable(counts) -> np.ndarray:
    counts = label_counts(counts)
    return counts[counts.sum(axis=1) >= 2]


def _undefined(on_undefined: str, why: str) -> float:
    if on_undefined == "raise":
        raise ValueError(f"undefined: {why}")
    if on_undefined != "nan":
        raise ValueError(f"on_undefined must be 'nan' or 'raise', got {on_undefined!r}")
    return float("nan")
