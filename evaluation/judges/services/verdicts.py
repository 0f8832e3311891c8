"""The alt-test verdicts of a judge's report: per criterion, the judge and its reference judges under each
alignment that fits the scale, the alignment the verdict uses, and the verdict (``scoring.judges.references``);
over all criteria, the combined test against the combined best trivial references.

On an ordered scale both of the paper's alignments are run, accuracy and the negative RMSE; a nominal scale
has accuracy only. The references answer the items the judge answered; the random reference's draws are
seeded by the criterion alone, so that every judge of a project meets the same draws.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from annotator.selectors.judgement_arrays import CriterionJudgements
from scoring.agreement.intervals import seed_from
from scoring.judges import combined_alt_test
from scoring.judges.alt_test import ACCURACY, NEG_RMSE, AltTest, AltTestPool
from scoring.judges.references import (
    NOT_INFORMATIVE,
    NOT_TESTED,
    Reference,
    References,
    alignment_choice,
    reference_tests,
    rho_comparison,
    verdict,
)


@dataclass(frozen=True)
class CriterionTests:
    """A criterion's alt-tests: the judge's and its references' under each alignment, and the one chosen."""

    scoring: str  # the alignment the verdict uses
    default: str  # the paper's for this scale
    judge: dict[str, AltTest]
    references: dict[str, References]

    @property
    def test(self) -> AltTest:
        return self.judge[self.scoring]

    @property
    def chosen(self) -> References:
        return self.references[self.scoring]


def _scales(data: CriterionJudgements):
    """One scale per speaker where the criterion's values depend on the speaker (STC-3's nuggets)."""
    if not data.criterion.speakers:
        return None
    return [(data.unit_speaker == speaker, data.scale(speaker)) for speaker in data.criterion.speakers]


def criterion_tests(data: CriterionJudgements, judge: np.ndarray, *, x: np.ndarray, epsilon: float) -> CriterionTests:
    """The judge (value index per unit, -1 where none) and its references on ``data`` at margin ``epsilon``."""
    ordered = data.criterion.level != "nominal"
    scorings = (NEG_RMSE, ACCURACY) if ordered else (ACCURACY,)
    n_values = len(data.values)
    tests, references = {}, {}
    for scoring in scorings:
        pool = AltTestPool.of(data.unit, data.annotator, data.value, n_values=n_values, scoring=scoring, values=x)
        tests[scoring] = pool.test(judge, epsilon=epsilon)
        references[scoring] = reference_tests(
            data.unit, data.annotator, data.value, n_values=n_values, scoring=scoring, values=x, epsilon=epsilon,
            covered=judge >= 0, scales=_scales(data), seed=seed_from(f"reference:{data.criterion.key}"), pool=pool,
        )  # fmt: skip
    default = scorings[0]
    return CriterionTests(alignment_choice(references, default), default, tests, references)


def _reference(ref: Reference | None, values: list[str], name_of) -> dict | None:
    return None if ref is None else ref.as_dict(values, name_of)


def _as_dict(comparison) -> dict | None:
    return None if comparison is None else comparison.as_dict()


def criterion_verdict(tests: CriterionTests, values: list[str], name_of) -> dict:
    """The JSON of a criterion's verdict: the chosen alignment's verdict with its best trivial reference and
    held-out human, and every alignment's figures."""
    alignments = {}
    for scoring, test in tests.judge.items():
        refs = tests.references[scoring]
        v = verdict(test, refs)
        alignments[scoring] = {
            "judge": test.summary(),
            "verdict": v.state,
            "references": [r.as_dict(values, name_of) for r in refs.references],
            "best_trivial": _reference(v.best_trivial, values, name_of),
            "against_best": v.against_best.as_dict() if v.against_best else None,
            "held_out": _reference(refs.held_out, values, name_of),
            "held_out_against_best": _as_dict(refs.held_out_comparison()),
            "held_out_baseline": refs.held_out_baseline.summary() if refs.held_out_baseline else None,
        }
    chosen = alignments[tests.scoring]
    return {
        "verdict": chosen["verdict"],
        "scoring": tests.scoring,
        "scoring_default": tests.default,
        "best_trivial": chosen["best_trivial"],
        "against_best": chosen["against_best"],
        "held_out": chosen["held_out"],
        "held_out_against_best": chosen["held_out_against_best"],
        "held_out_baseline": chosen["held_out_baseline"],
        "trivial_passes": any(r.test.passed for r in tests.chosen.trivial),
        "alignments": alignments,
    }


def _combined_summary(tests: dict[str, AltTest]) -> dict:
    combined = combined_alt_test(tests)
    return {
        "winning_rate": combined["winning_rate"],
        "passed": combined["passed"],
        "rho": combined["rho"],
        "annotators": len(combined["per_annotator"]),
    }


def _rhos(tests: dict[str, AltTest]) -> dict:
    return {(key, a): rho for key, test in tests.items() for a, rho in test.rho_by_annotator.items()}


def overall_verdict(by_criterion: dict[str, CriterionTests], combined: dict, values_of: dict, names_of: dict):
    """The verdict over every criterion: the combined test (``combined``, Benjamini-Yekutieli over every
    comparison) against each criterion's best trivial reference combined the same way, and the held-out
    humans combined. ``values_of`` and ``names_of`` give each criterion's scale and its annotators' names.
    Returns ``(state, references)``."""
    best = {key: t.chosen.best_trivial for key, t in by_criterion.items() if t.chosen.best_trivial is not None}
    held = {key: t.chosen.held_out for key, t in by_criterion.items() if t.chosen.held_out is not None}
    judge_tests = {key: t.test for key, t in by_criterion.items()}
    out = {
        "best_trivial": None,
        "held_out": None,
        "against_best": None,
        "trivial_passes": any(r.test.passed for t in by_criterion.values() for r in t.chosen.trivial),
    }
    if best:
        out["best_trivial"] = {
            **_combined_summary({key: r.test for key, r in best.items()}),
            "criteria": {key: r.as_dict(values_of[key], names_of[key]) for key, r in best.items()},
        }
    if held:
        out["held_out"] = {
            **_combined_summary({key: r.test for key, r in held.items()}),
            "criteria": {key: r.as_dict(values_of[key], names_of[key]) for key, r in held.items()},
        }
    if combined["winning_rate"] is None:
        state = NOT_TESTED
    elif not best:
        state = "passed" if combined["passed"] else "failed"
    else:
        against = rho_comparison(_rhos(judge_tests), _rhos({key: r.test for key, r in best.items()}))
        out["against_best"] = against.as_dict()
        state = NOT_INFORMATIVE if not against.beats else "passed" if combined["passed"] else "failed"
    return state, out
