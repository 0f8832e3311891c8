"""Saving an annotator's work: drafts as they go, and the submission, all or nothing.

The assignment row is locked for the duration of a save, so two tabs, a double click or a
retried request are applied one after the other; the judgements table is replaced as a whole
by each save, so what is stored always equals the last complete save (no duplicates, nothing lost).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from annotator.models import Assignment, AssignmentStatus, Judgement, Post, Reordering
from annotator.presets import PRESETS
from annotator.services.units import UnitError, check_value, required_units, unit_speaker
from scoring.services.schedule import statistics_request_on_commit


class SubmissionError(ValueError):
    """A save that cannot be accepted; ``problems`` lists what is wrong or missing, in words."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))


@dataclass(frozen=True)
class Given:
    criterion: str
    unit: int
    value: str


def _dialogue_shape(dialogue_id: int) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Speakers and utterance blocks of a dialogue's posts."""
    rows = list(Post.objects.filter(dialogue_id=dialogue_id).order_by("position").values_list("speaker",
                                                                                               "utterance_block"))
    return tuple(s for s, _b in rows), tuple(b for _s, b in rows)


def _turn_speakers(speakers: list[str], blocks: list[int]) -> list[str]:
    out: list[str] = []
    for speaker, block in zip(speakers, blocks):
        if block == len(out):
            out.append(speaker)
    return out


def reordering_problems(order: list[int], turn_speakers: list[str]) -> list[str]:
    """Why ``order`` (original turn indices in the new order) breaks the constraints, if it does."""
    n = len(turn_speakers)
    if sorted(order) != list(range(n)):
        return [f"the reordering must use each of the {n} turns once"]
    shown = [turn_speakers[i] for i in order]
    problems = []
    if shown[0] != turn_speakers[0]:
        problems.append(f"the first turn must be by {turn_speakers[0]}")
    if any(a == b for a, b in zip(shown, shown[1:])):
        problems.append("speakers must strictly alternate")
    return problems


def judgements_save(*, assignment_id: int, user, values: Iterable[Given], reordering: list[int] | None = None,
                    seconds: int = 0, submit: bool = False) -> Assignment:
    """Save the annotator's judgements for their assignment (a draft, or the submission).

    Every value is checked against its criterion; a submission must also be complete. On any
    problem nothing is saved and ``SubmissionError`` lists the problems. A submitted assignment is
    read-only until a lead reopens it, except that repeating the identical submission succeeds
    (a retried request).
    """
    values = list(values)
    with transaction.atomic():
        assignment = (Assignment.objects.select_for_update(of=("self",)).select_related("dialogue__project")
                      .get(pk=assignment_id, annotator=user, imported=False))
        project = assignment.dialogue.project
        criteria = {c.key: c for c in project.criteria.all()}
        speakers, blocks = _dialogue_shape(assignment.dialogue_id)
        problems: list[str] = []
        given: dict[tuple[str, int], str] = {}
        for v in values:
            criterion = criteria.get(v.criterion)
            if criterion is None:
                problems.append(f"unknown criterion {v.criterion!r}")
                continue
            try:
                check_value(criterion, unit_speaker(criterion, v.unit, speakers, blocks), v.value)
            except UnitError as exc:
                problems.append(str(exc))
                continue
            given[(v.criterion, v.unit)] = v.value
        needs_reordering = PRESETS[project.preset].reordering
        turn_speakers = _turn_speakers(speakers, blocks)
        if reordering is not None:
            problems += reordering_problems(reordering, turn_speakers)
        if assignment.status == AssignmentStatus.SUBMITTED:
            if submit and not problems and _same_as_stored(assignment, given, reordering):
                return assignment  # a retried or doubled submission: already saved
            raise SubmissionError(["this item is already submitted; ask the project lead to reopen it"])
        if submit:
            for criterion in criteria.values():
                missing = [u for u in required_units(criterion, speakers, blocks) if (criterion.key, u) not in given]
                if missing:
                    where = "" if criterion.unit == "dialogue" else f" for {len(missing)} unit(s) (first: {missing[0]})"
                    problems.append(f"{criterion.label} ({criterion.key}) is missing{where}")
            if needs_reordering and reordering is None:
                problems.append("the reordering is missing")
        if problems:
            raise SubmissionError(problems)
        Judgement.objects.filter(assignment=assignment).delete()
        Judgement.objects.bulk_create(
            Judgement(assignment=assignment, criterion=criteria[key], unit=unit, value=value)
            for (key, unit), value in given.items()
        )
        if reordering is not None:
            Reordering.objects.update_or_create(assignment=assignment, defaults={"submitted_order": reordering})
        now = timezone.now()
        assignment.started_at = assignment.started_at or now
        assignment.seconds_spent += max(0, min(int(seconds), 3600))
        assignment.status = AssignmentStatus.SUBMITTED if submit else AssignmentStatus.IN_PROGRESS
        assignment.submitted_at = now if submit else None
        assignment.save(update_fields=["started_at", "seconds_spent", "status", "submitted_at"])
        if submit:
            statistics_request_on_commit(project_id=project.pk)
    return assignment


def _same_as_stored(assignment: Assignment, given: dict[tuple[str, int], str], reordering) -> bool:
    stored = {(k, u): v for k, u, v in assignment.judgements.values_list("criterion__key", "unit", "value")}
    stored_order = Reordering.objects.filter(assignment=assignment).values_list("submitted_order", flat=True).first()
    return stored == given and (reordering is None or stored_order == reordering)


@transaction.atomic
def assignment_reopen(*, assignment_id: int) -> Assignment:
    """Let the annotator change a submitted item again (a lead's action); its judgements stay as drafts."""
    assignment = Assignment.objects.select_for_update().get(pk=assignment_id)
    if assignment.status == AssignmentStatus.SUBMITTED:
        assignment.status = AssignmentStatus.IN_PROGRESS
        assignment.submitted_at = None
        assignment.save(update_fields=["status", "submitted_at"])
    return assignment
