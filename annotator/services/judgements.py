"""Saving an annotator's work: drafts as they go, and the submission, all or nothing.

The assignment row is locked for the duration of a save, so two tabs, a double click or a
retried request are applied one after the other; the judgements table is replaced as a whole
by each save, so what is stored always equals the last complete save (no duplicates, nothing lost).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db import connection, transaction
from django.utils import timezone

from annotator.access import MembershipEnded
from annotator.models import Assignment, AssignmentStatus, Dialogue, Judgement, Membership, Project, Reordering
from annotator.presets import PRESETS
from annotator.selectors.structure import dialogue_shape, project_criteria
from annotator.services.units import ShownFrame, UnitError, check_value, required_units, unit_speaker
from scoring.app.services.schedule import statistics_request_on_commit


class SubmissionError(ValueError):
    """A save that cannot be accepted; ``problems`` lists what is wrong or missing, in words."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))


INSERT_BATCH = 1000  # rows per INSERT: 5,000 parameters, within SQLite's and PostgreSQL's limits


@dataclass(frozen=True)
class Given:
    criterion: str
    unit: int
    value: str


def reordering_problems(order: list[int], turn_speakers: Sequence[str]) -> list[str]:
    """Why ``order`` (original turn indices in the new order) breaks the constraints, if it does."""
    n = len(turn_speakers)
    if sorted(order) != list(range(n)):
        return [f"the reordering must use each of the {n} turns once"]
    shown = [turn_speakers[i] for i in order]
    problems = []
    if shown[0] != turn_speakers[0]:
        problems.append(f"the first turn must be by {turn_speakers[0]}")
    if any(a == b for a, b in itertools.pairwise(shown)):
        problems.append("speakers must strictly alternate")
    return problems


def judgements_save(
    *,
    assignment_id: int,
    user,
    values: Iterable[Given],
    reordering: list[int] | None = None,
    seconds: int = 0,
    submit: bool = False,
) -> Assignment:
    """Save the annotator's judgements for their assignment (a draft, or the submission).

    Units and the reordering are numbered as the annotator sees the item (``ShownFrame``: turns
    and posts by their place in the shown dialogue); they are stored under the source positions.
    Every value is checked against its criterion; a submission must also be complete. On any
    problem nothing is saved and ``SubmissionError`` lists the problems. A submitted assignment is
    read-only until a lead reopens it, except that repeating the identical submission succeeds
    (a retried request).
    """
    values = list(values)
    with transaction.atomic():
        assignment = _lock_own_assignment(assignment_id, user)
        project = assignment.dialogue.project
        criteria = project_criteria(project.pk)
        shape = dialogue_shape(assignment.dialogue_id)
        speakers, blocks = shape.speakers, shape.blocks
        frame = None if assignment.shown_order is None else ShownFrame.of(blocks, assignment.shown_order)
        if frame is not None and frame.is_identity:
            frame = None
        problems: list[str] = []
        given: dict[tuple[str, int], str] = {}
        for v in values:
            criterion = criteria.get(v.criterion)
            if criterion is None:
                problems.append(f"unknown criterion {v.criterion!r}")
                continue
            try:
                unit = v.unit if frame is None else frame.to_source(criterion.unit, v.unit)
                check_value(criterion, unit_speaker(criterion, unit, speakers, blocks), v.value)
            except UnitError as exc:
                problems.append(str(exc))
                continue
            given[(v.criterion, unit)] = v.value
        needs_reordering = PRESETS[project.preset].reordering
        if reordering is not None:
            if frame is not None:
                reordering = frame.order_to_source(reordering)
            problems += reordering_problems(reordering, shape.turn_speakers)
        if assignment.status == AssignmentStatus.SUBMITTED:
            if submit and not problems and _same_as_stored(assignment, given, reordering):
                return assignment  # a retried or doubled submission: already saved
            raise SubmissionError(["this item is already submitted; ask the project lead to reopen it"])
        if submit:
            for criterion in criteria.values():
                missing = [u for u in required_units(criterion, speakers, blocks) if (criterion.key, u) not in given]
                if missing:
                    if frame is not None:  # name the unit as the annotator sees it
                        missing = sorted(frame.to_shown(criterion.unit, u) for u in missing)
                    where = "" if criterion.unit == "dialogue" else f" for {len(missing)} unit(s) (first: {missing[0]})"
                    problems.append(f"{criterion.label} ({criterion.key}) is missing{where}")
            if needs_reordering and reordering is None:
                problems.append("the reordering is missing")
        if problems:
            raise SubmissionError(problems)
        if reordering is not None:
            Reordering.objects.update_or_create(assignment=assignment, defaults={"submitted_order": reordering})
        now = timezone.now()
        assignment.started_at = assignment.started_at or now
        assignment.seconds_spent += max(0, min(int(seconds), 3600))
        assignment.status = AssignmentStatus.SUBMITTED if submit else AssignmentStatus.IN_PROGRESS
        assignment.submitted_at = now if submit else None
        _store(assignment, [(criteria[key].pk, unit, value) for (key, unit), value in given.items()], now)
        if submit:
            statistics_request_on_commit(project_id=project.pk)
    return assignment


# The row lock, and what a save and its callers' answers (the API's AssignmentOut) read: the
# assignment with its dialogue's id and project, and whether the annotator is still an active member
# of the project (the same rule as annotator.access; one more index lookup on the membership's
# unique (project, user) key). The dialogue's source metadata and the project's guidelines stay in
# the database.
LOCK_SQL = """
    SELECT a.id, a.annotator_id, a.dialogue_id, a.status, a.started_at, a.submitted_at, a.seconds_spent,
           a.shown_order, d.external_id AS dialogue_external_id, d.project_id AS dialogue_project_id,
           p.slug AS project_slug, p.preset AS project_preset, m.active AS member_active
    FROM {assignment} a JOIN {dialogue} d ON d.id = a.dialogue_id JOIN {project} p ON p.id = d.project_id
    LEFT JOIN {membership} m ON m.project_id = d.project_id AND m.user_id = a.annotator_id
    WHERE a.id = %s AND a.annotator_id = %s AND NOT a.imported{lock}
"""


def _lock_own_assignment(assignment_id: int, user) -> Assignment:
    """The user's own (not imported) assignment, locked until the transaction ends, with its dialogue
    and project attached; ``Assignment.DoesNotExist`` otherwise, and ``MembershipEnded`` when the
    user is no longer an active member of the project.

    Plain SQL for the reason ``_store`` gives: compiling the equivalent ORM query (select_related,
    only, select_for_update) costs three times as much CPU as running it. SQLite, which has no
    row locks, serialises writers instead (as Django's select_for_update does there).
    """
    sql = LOCK_SQL.format(
        assignment=Assignment._meta.db_table,
        dialogue=Dialogue._meta.db_table,
        project=Project._meta.db_table,
        membership=Membership._meta.db_table,
        lock=" FOR UPDATE OF a" if connection.features.has_select_for_update_of else "",
    )
    found = list(Assignment.objects.raw(sql, [assignment_id, user.pk]))
    if not found:
        raise Assignment.DoesNotExist(f"no assignment {assignment_id} of {user}")
    assignment = found[0]
    if not assignment.member_active:
        raise MembershipEnded(assignment.project_slug)
    db = connection.alias
    # from_db takes the values in the model's field order (id, project, external_id), whatever the names' order
    dialogue = Dialogue.from_db(
        db,
        ["id", "project_id", "external_id"],
        [assignment.dialogue_id, assignment.dialogue_project_id, assignment.dialogue_external_id],
    )
    dialogue.project = Project.from_db(
        db,
        ["id", "slug", "preset"],
        [assignment.dialogue_project_id, assignment.project_slug, assignment.project_preset],
    )
    assignment.dialogue = dialogue
    return assignment


def _store(assignment: Assignment, rows: list[tuple[int, int, str]], now) -> None:
    """Replace the assignment's judgements by ``rows`` (criterion id, unit, value) and record its new
    status, time and seconds: three statements, inside the caller's transaction and row lock.

    This runs on every autosave, so it is written in the plain SQL both PostgreSQL and SQLite take:
    the ORM's delete collector, model instances and save() cost about three times the CPU
    (``bench/api_load.py``; tests compare the stored rows on both databases).
    """
    judgements, assignments = Judgement._meta.db_table, Assignment._meta.db_table
    stamp = connection.ops.adapt_datetimefield_value
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {judgements} WHERE assignment_id = %s", [assignment.pk])
        for start in range(0, len(rows), INSERT_BATCH):
            batch = rows[start : start + INSERT_BATCH]
            cursor.execute(
                f"INSERT INTO {judgements} (assignment_id, criterion_id, unit, value, updated_at) VALUES "
                + ", ".join(["(%s, %s, %s, %s, %s)"] * len(batch)),
                [
                    field
                    for criterion_id, unit, value in batch
                    for field in (assignment.pk, criterion_id, unit, value, stamp(now))
                ],
            )
        cursor.execute(
            f"UPDATE {assignments} SET started_at = %s, seconds_spent = %s, status = %s, submitted_at = %s "
            "WHERE id = %s",
            [
                stamp(assignment.started_at),
                assignment.seconds_spent,
                assignment.status,
                stamp(assignment.submitted_at),
                assignment.pk,
            ],
        )


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
