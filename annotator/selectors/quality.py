"""Reads for quality control: annotators' answers on control and training items beside the expected ones."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.core.paginator import Page, Paginator
from django.db.models import Count

from annotator.models import (
    Assignment,
    AssignmentStatus,
    Dialogue,
    ExpectedAnswer,
    Judgement,
    Project,
    QualityItem,
    QualityItemKind,
)
from annotator.selectors.manage import ITEMS_PER_PAGE
from annotator.selectors.structure import dialogue_shape
from annotator.units import POST_UNITS, required_units, unit_speaker
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
        ExpectedAnswer.objects.filter(item__dialogue__project=project, item__kind=kind)
        .order_by("criterion__position", "unit")
        .values_list(
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


def quality_item_questions(*, project: Project, dialogue_id: int) -> dict:
    """What the lead's page for one control or training item shows: the dialogue's posts, and per criterion
    the units it asks about with the values that apply and the expected answer set so far."""
    dialogue = Dialogue.objects.get(project=project, pk=dialogue_id)
    item = QualityItem.objects.filter(dialogue=dialogue).first()
    expected = {}
    if item is not None:
        expected = {(a.criterion.key, a.unit): a for a in item.answers.select_related("criterion")}
    shape = dialogue_shape(dialogue.pk)
    posts = list(dialogue.posts.order_by("position").values("position", "speaker", "text", "utterance_block"))
    criteria = []
    for criterion in project.criteria.all():
        questions = []
        for unit in required_units(criterion, shape):
            speaker = unit_speaker(criterion, unit, shape)
            choices = [v for v in criterion.values if not criterion.speakers or v.get("speaker") in (None, speaker)]
            if criterion.unit in POST_UNITS:
                text = posts[unit]["text"]
            elif criterion.unit == "dialogue":
                text = ""
            else:
                text = " ".join(p["text"] for p in posts if p["utterance_block"] == unit)
            answer = expected.get((criterion.key, unit))
            questions.append(
                {
                    "name": f"e:{criterion.key}:{unit}",
                    "unit": unit,
                    "speaker": speaker,
                    "text": text,
                    "choices": choices,
                    "value": answer.value if answer else "",
                }
            )
        tolerances = [a.tolerance for (k, _u), a in expected.items() if k == criterion.key]
        criteria.append(
            {
                "criterion": criterion,
                "ordered": criterion.level in ORDERED_LEVELS,
                "tolerance": max(tolerances) if tolerances else 0,
                "questions": questions,
            }
        )
    return {"dialogue": dialogue, "item": item, "posts": posts, "criteria": criteria}


def quality_items_of(*, project: Project) -> list[dict]:
    """The project's control and training items for the lead's page."""
    kinds = dict(QualityItemKind.choices)
    return [
        {**item, "kind_label": kinds.get(item["kind"], item["kind"])}
        for item in QualityItem.objects.filter(dialogue__project=project)
        .annotate(n_answers=Count("answers", distinct=True), n_assigned=Count("dialogue__assignments", distinct=True))
        .order_by("kind", "dialogue__position")
        .values("dialogue_id", "dialogue__external_id", "kind", "explanation", "n_answers", "n_assigned")
    ]


def unmarked_dialogues_page(*, project: Project, contains: str, page: str | int | None) -> Page:
    """One page (``ITEMS_PER_PAGE``, as the manage page's items) of the project's dialogues that are not yet a
    control or training item, whose id contains ``contains`` (any case), in import order (2 queries)."""
    dialogues = project.dialogues.filter(quality_item__isnull=True)
    if contains:
        dialogues = dialogues.filter(external_id__icontains=contains)
    dialogues = dialogues.order_by("position", "pk").values("pk", "external_id")
    return Paginator(dialogues, ITEMS_PER_PAGE).get_page(page)
