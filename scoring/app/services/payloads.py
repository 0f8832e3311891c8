"""Results as stored JSON: undefined numbers (NaN, infinities) become null.

PostgreSQL's json type refuses NaN, and an undefined statistic (a tau over ties, b3 of a
two-turn dialogue, the mean of nothing) is an honest result, not an error; pages show null as "—".
"""

from __future__ import annotations

import math


def json_finite(obj):
    """``obj`` with every non-finite float replaced by None, through dicts, lists and tuples.

    >>> json_finite({"tau": float("nan"), "p": [0.5, float("inf")], "n": 3})
    {'tau': None, 'p': [0.5, None], 'n': 3}
    """
    if isinstance(obj, dict):
        return {k: json_finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_finite(v) for v in obj]
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj
