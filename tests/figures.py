"""Comparing two computations of the same figures (a project and its copy: restored from an archive, made from an
exported scheme)."""

from __future__ import annotations

import math


def figures_differences(a, b, path: str = "") -> list[str]:
    """The paths where ``a`` and ``b`` differ: floats to 1e-9 (a sum's last bits follow the order PostgreSQL hands
    rows out in, which its parallel plans do not fix), everything else exactly.

    >>> figures_differences({"kappa": 0.1 + 0.2, "n": [3]}, {"kappa": 0.3, "n": [3]})
    []
    >>> figures_differences({"kappa": 0.3, "n": [3]}, {"kappa": 0.31, "n": [4]})
    ['.kappa: 0.3 != 0.31', '.n[0]: 3 != 4']
    """
    out: list[str] = []
    _compare(a, b, path, out)
    return sorted(out)


def _compare(a, b, path: str, out: list) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            out.append(f"{path}: keys {sorted(set(a) ^ set(b), key=str)[:5]}")
        for key in set(a) & set(b):
            _compare(a[key], b[key], f"{path}.{key}", out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            _compare(x, y, f"{path}[{i}]", out)
    elif isinstance(a, float) and isinstance(b, float):
        if not math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12):
            out.append(f"{path}: {a!r} != {b!r}")
    elif a != b:
        out.append(f"{path}: {str(a)[:80]} != {str(b)[:80]}")
