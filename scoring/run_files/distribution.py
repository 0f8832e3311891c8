"""The one rule for a run's probability distributions, in every run format (STC-3 and DBDC alike).

A distribution's probabilities must sum to 1, give or take ``PROBABILITY_TOLERANCE`` (1e-6: floats
written with full precision, as both tasks' example runs are, always pass). The DBDC3 task asks for
``prob-O + prob-T + prob-X = 1``; the STC-3/DialEval script divides each estimate by its sum, so a
distribution summing to 1.7 would be scored there as if it were another one. We refuse such a run
instead, naming the file, the dialogue, the criterion or turn and the field, rather than score a
distribution the system did not mean.

>>> sums_to_one(1.0 + 1e-9), sums_to_one(1.7)
(True, False)
>>> str(sum_error(Record("run.json", "d1"), "quality.A", 1.7))
'run.json: dialogue d1: field quality.A: probabilities sum to 1.7, not 1 (allowed difference 1e-06)'
"""

from __future__ import annotations

import numpy as np

from scoring.errors import N_, InputError
from scoring.input import Record

PROBABILITY_TOLERANCE = 1e-6  # |sum of a distribution - 1| allowed in any run file


def sums_to_one(totals):
    """True where a distribution's sum is 1 within ``PROBABILITY_TOLERANCE`` (a number or an array of sums)."""
    result = np.abs(np.asarray(totals, dtype=float) - 1.0) <= PROBABILITY_TOLERANCE
    return bool(result) if result.ndim == 0 else result


def sum_error(at: Record, field: str, total: float, *, turn: int | None = None) -> InputError:
    """The error for a distribution at ``field`` (of turn ``turn``, when the format numbers turns) whose
    probabilities sum to ``total``."""
    params = {"total": repr(float(total)), "tolerance": format(PROBABILITY_TOLERANCE, "g")}
    if turn is None:
        return at.error(N_("probabilities sum to %(total)s, not 1 (allowed difference %(tolerance)s)"), field, **params)
    message = N_("turn %(turn)s: probabilities sum to %(total)s, not 1 (allowed difference %(tolerance)s)")
    return at.error(message, field, turn=turn, **params)
