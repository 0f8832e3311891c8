"""Reads for quality control: annotators' answers on control and training items beside the expected ones."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from annotator.models import Assignment, AssignmentStatus, ExpectedAnswer, Judgement, Project
from scoring.reliability import answers_match

ORDERED_LEVELS = ("ordinal", "interval")


@dataclass(frozen=True)
class CheckedAnswers:
    """One row per expected answer of a submitted control or training assignment (long form).

    ``given`` is None where the annotator left the unit unanswered (it counts as wrong).
    """

    annotator: np.ndarray  # user ids
    assignment: np.ndarray
    dialogue: np.ndarray
    submitted_at: list
    criterion: list[str]
    unit: np.ndarray
    expected: list[str]
    given: list[str | None]
    tolerance: np.ndarray
    correct: np.ndarray


def checked_answers(*, project: Project, kind: str, user=None) -> CheckedAnswers:
    """Every expected answer of every submitted assignment of ``kind`` items (one user's, or everyone's)."""
    rows = Assignment.objects.filter(
        dialogue__project=project, dialogue__quality_item__kind=kind, status=AssignmentStatus.SUBMITTED, imported=False
    )
    if user is not None:
        rows = rows.filter(annotator=user)
    assignments = {
        pk: (annotator_id, dialogue_id, submitted_at)
        for pk, annotator_id, dialogue_id, submitted_at in rows.values_list(
            "pk", "annotator_id", "dialogue_id", "submitted_at"
        )
    }
    expected_rows = list(
        ExpectedAnswer.objects.filter(item__dialogue__project=project, item__kind=kind).values_list(
            "item__dialogue_id",
            "criterion_id",
            "criterion__key",
            "criterion__level",
            "criterion__values",
            "unit",
            "value",
            "tolerance",
        )
    )
    by_dialogue: dict[int, list[tuple]] = {}
    for row in expected_rows:
        by_dialogue.setdefault(row[0], []).append(row[1:])
    given = {
        (a, c, u): v
        for a, c, u, v in Judgement.objects.filter(assignment_id__in=list(assignments)).values_list(
            "assignment_id", "criterion_id", "unit", "value"
        )
    }
    out: dict[str, list] = {k: [] for k in CheckedAnswers.__dataclass_fields__ if k != "correct"}
    given_index, expected_index, ordered = [], [], []
    for pk, (annotator_id, dialogue_id, submitted_at) in sorted(assignments.items(), key=lambda kv: (kv[1][2], kv[0])):
        for criterion_id, key, level, scale_values, unit, value, tolerance in by_dialogue.get(dialogue_id, []):
            scale = list(dict.fromkeys(v["value"] for v in scale_values))
            answer = given.get((pk, criterion_id, unit))
            out["annotator"].append(annotator_id)
            out["assignment"].append(pk)
            out["dialogue"].append(dialogue_id)
            out["submitted_at"].append(submitted_at)
            out["criterion"].append(key)
            out["unit"].append(unit)
            out["expected"].append(value)
            out["given"].append(answer)
            out["tolerance"].append(tolerance)
            expected_index.append(scale.index(value) if value in scale else -1)
            given_index.append(scale.index(answer) if answer in scale else -(10**6))
            ordered.append(level in ORDERED_LEVELS)
    correct = (
        answers_match(given_index, expected_index, tolerance=out["tolerance"], ordered=ordered)
        if given_index
        else np.zeros(0, dtype=bool)
    )
    return CheckedAnswers(
        annotator=np.asarray(out["annotator"], dtype=np.int64),
        assignment=np.asarray(out["assignment"], dtype=np.int64),
        dialogue=np.asarray(out["dialogue"], dtype=np.int64),
        submitted_at=out["submitted_at"],
        criterion=out["criterion"],
        unit=np.asarray(out["unit"], dtype=np.int64),
        expected=out["expected"],
        given=out["given"],
        tolerance=np.asarray(out["tolerance"], dtype=np.int64),
        correct=correct,
    )
