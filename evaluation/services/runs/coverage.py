"""How much of the gold a run covers: a run that leaves out dialogues (or, in DBDC, annotated turns) is scored
on what it gives, and its scores say so (``scores["coverage"]``), so that the leaderboard and the API never show
it as complete or rank it beside complete runs without a mark."""

from __future__ import annotations

MISSING_LISTED = 20  # the first missing dialogues, by id, kept with the scores


def run_coverage(*, covered, gold, covered_turns: int | None = None, gold_turns: int | None = None) -> dict:
    """``{"dialogues", "gold_dialogues", "complete", "missing", "n_missing"}`` (and ``turns``, ``gold_turns``
    where the gold's units are turns): the gold dialogues the run scored, out of all of them.

    >>> run_coverage(covered=["a", "b"], gold=["a", "b", "c"])
    {'dialogues': 2, 'gold_dialogues': 3, 'complete': False, 'missing': ['c'], 'n_missing': 1}
    """
    gold, covered = set(gold), set(covered)
    missing = sorted(gold - covered)
    out = {
        "dialogues": len(gold & covered),
        "gold_dialogues": len(gold),
        "complete": not missing and (covered_turns is None or covered_turns == gold_turns),
        "missing": missing[:MISSING_LISTED],
        "n_missing": len(missing),
    }
    if covered_turns is not None:
        out.update({"turns": covered_turns, "gold_turns": gold_turns})
    return out
