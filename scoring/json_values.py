"""JSON values without NaN or infinities: how the platform stores scores and statistics, and how
``python -m scoring`` prints them.

PostgreSQL's json type refuses NaN, and an undefined statistic (a tau over ties, b3 of a two-turn dialogue,
the mean of nothing) is an honest result, not an error; pages show null as "—".
"""

from __future__ import annotations

import math

import orjson


def json_finite(obj):
    """``obj`` with every non-finite float replaced by None, through dicts, lists and tuples.

    Through orjson when it takes ``obj`` (string keys, plain values: it writes NaN and infinities as
    null), ten times faster on a run's scores per dialogue; else walked here.

    >>> json_finite({"tau": float("nan"), "p": [0.5, float("inf")], "n": 3})
    {'tau': None, 'p': [0.5, None], 'n': 3}
    >>> json_finite({1: float("nan")})  # a key orjson refuses: the walk keeps it as it is
    {1: None}
    """
    try:
        return orjson.loads(orjson.dumps(obj))
    except TypeError:
        return _walk_finite(obj)


def _walk_finite(obj):
    # plain floats (most leaves: per-dialogue scores) are checked inline, without a call each
    if isinstance(obj, dict):
        return {k: (v if math.isfinite(v) else None) if type(v) is float else _walk_finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [(v if math.isfinite(v) else None) if type(v) is float else _walk_finite(v) for v in obj]
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj
