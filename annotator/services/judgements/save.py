"""Saving an annotator's work: drafts as they go, and the submission.

The design (why it works this way, and what it guarantees) is in ``save.md`` beside this module.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.core.exceptions import PermissionDenied
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext

from annotator import events
from annotator.access import MembershipEnded
from annotator.models import (
    Assignment,
    AssignmentStatus,
    Dialogue,
    Reordering,
)
from annotator.presets.of_project import project_scheme
from annotator.selectors.qualification import is_training
from annotator.selectors.structure import dialogue_shape, project_criteria
from annotator.services.judgements.checks import check_complete, check_conflicts, reordering_problems
from annotator.services.judgements.errors import Given, ItemClosed, SubmissionError
from annotator.services.judgements.rows import (
    ReadsSeen,
    assignment_lock_own,
    judgements_write,
    stored_order,
    stored_values,
)
from annotator.services.qualification import qualification_pass_record
from annotator.services.webhooks import submission_emit
from annotator.studies.selectors import saves_end, time_over_message
from annotator.units import (
    ShownFrame,
    UnitError,
    check_value,
    unit_speaker,
)


def judgements_save(
    *,
    assignment_id: int,
    user,
    values: Iterable[Given],
    reordering: list[int] | None = None,
    reordering_base: list[int] | None = None,
    version: int | None = None,
    seconds: int = 0,
    submit: bool = False,
) -> Assignment:
    """Merge the annotator's judgements into their assignment (a draft, or with ``submit`` the submission).

    Units and the reordering are numbered as the annotator sees the item (``ShownFrame``: turns
    and posts by their place in the shown dialogue); they are stored under the source positions.
    Every value is checked against its criterion; a submission must also be complete (the stored
    judgements with these merged in). An answer never replaces a stored value the client has not seen:
    one written (or removed) after the ``version`` the client read, or one that is not the ``base`` the
    client brings (``save.md``). On any problem nothing
    is saved: ``SubmissionError`` lists the problems, ``ConflictError`` the conflicts. A submitted
    assignment is read-only until a lead reopens it, except that repeating the identical submission
    succeeds (a retried request). A study participant's unsubmitted item takes saves until the time
    limit's end plus the grace (``saves_end``), checked under the row lock that the release of expired
    items also takes: a save lands before the release or is refused with ``ItemClosed``, never lost.
    Returns the assignment with its new ``version``.

    On SQLite, which has one writer at a time for the whole database, the reads and checks run before the save
    takes the process's write turn, and are read again under it (``ReadsSeen``): when the rows are the same the
    outcome stands (the writes, or the refusal), else the save reads and checks again under the turn. The turn is
    held for a few statements, not for the checks (``save.md``).
    """
    given = _Save(
        assignment_id=assignment_id,
        user=user,
        values=list(values),
        reordering=reordering,
        reordering_base=reordering_base,
        version=version,
        seconds=seconds,
        submit=submit,
    )
    if connection.features.has_select_for_update or connection.in_atomic_block:
        with transaction.atomic():  # the row lock (PostgreSQL), or a caller's transaction holding the turn already
            return _write(_decide(given, ReadsSeen()))
    reads = ReadsSeen()
    try:
        outcome: _Plan | Exception = _decide(given, reads)
    except (SubmissionError, ItemClosed, Assignment.DoesNotExist, MembershipEnded, PermissionDenied) as exc:
        outcome = exc
    with transaction.atomic():
        if not reads.unchanged():  # another save or a lead's change came in between: check again under the turn
            outcome = _decide(given, ReadsSeen())
        if isinstance(outcome, Exception):
            raise outcome
        return _write(outcome)


@dataclass(frozen=True)
class _Save:
    """What the client sent (``judgements_save``'s arguments)."""

    assignment_id: int
    user: object
    values: list[Given]
    reordering: list[int] | None
    reordering_base: list[int] | None
    version: int | None
    seconds: int
    submit: bool


@dataclass
class _Plan:
    """What a checked save writes: the assignment with its new fields (unsaved), the rows and the removals; or
    nothing (``assignment`` only) for a retried submission."""

    assignment: Assignment
    end: datetime | None = None
    rows: list[tuple[int, int, str]] | None = None
    removals: list[tuple[int, int]] | None = None
    reordering: dict | None = None
    submit: bool = False
    user: object = None
    seconds: int = 0


def _decide(save: _Save, reads: ReadsSeen) -> _Plan:
    """Read the assignment and what the save's checks need (each statement recorded in ``reads``), check the
    save and return what it writes; raise what the save is refused for."""
    assignment = assignment_lock_own(save.assignment_id, save.user, reads)
    end = saves_end(assignment.study_allocated_at, assignment.study_time_limit_minutes)
    if end is not None and timezone.now() > end and assignment.status != AssignmentStatus.SUBMITTED:
        raise ItemClosed(ItemClosed.TIME_OVER, time_over_message())
    project = assignment.dialogue.project
    criteria = project_criteria(project.pk)
    shape = dialogue_shape(assignment.dialogue_id)
    frame = ShownFrame.of(shape.blocks, assignment.shown_order)
    problems: list[str] = []
    given: dict[tuple[str, int], Given] = {}
    for v in save.values:
        criterion = criteria.get(v.criterion)
        if criterion is None:
            problems.append(gettext("unknown criterion %(criterion)s") % {"criterion": repr(v.criterion)})
            continue
        try:
            unit = frame.to_source(criterion.unit, v.unit)
            speaker = unit_speaker(criterion, unit, shape)
            if v.value != "":
                check_value(criterion, speaker, v.value)
        except UnitError as exc:
            problems.append(str(exc))
            continue
        given[(v.criterion, unit)] = v
    reordering, reordering_base = save.reordering, save.reordering_base
    # an order given as the page showed it (0, 1, 2, ...: the shuffle left as it was) is recorded as such
    kept_shown_order = reordering is not None and reordering == list(range(len(reordering)))
    if reordering is not None:
        reordering = frame.order_to_source(reordering)
        problems += reordering_problems(reordering, shape.turn_speakers)
    if reordering_base:
        reordering_base = frame.order_to_source(reordering_base)
    # nothing can have been written after the current version: then only the bases ask for the stored values
    version = save.version
    stale = version is not None and version != assignment.version
    checked = stale or reordering_base is not None or any(g.base is not None for g in given.values())
    stored: dict[tuple[str, int], str] = {}
    revisions: dict[tuple[str, int], int] = {}
    order_stored, order_revision = None, 0
    read = checked or save.submit or assignment.status == AssignmentStatus.SUBMITTED
    if read:
        stored, revisions = stored_values(assignment, criteria, reads)
    if reordering is not None or (read and project_scheme(project).reordering):
        order_stored, order_revision = stored_order(assignment, reads)
    if assignment.status == AssignmentStatus.SUBMITTED:
        same = all(stored.get(key) == (g.value or None) for key, g in given.items())
        if save.submit and not problems and same and reordering in (None, order_stored):
            return _Plan(assignment)  # a retried or doubled submission: already saved
        raise SubmissionError(["this item is already submitted; ask the project lead to reopen it"])
    if problems:
        raise SubmissionError(problems)
    if checked:
        check_conflicts(
            assignment,
            criteria,
            shape,
            given,
            (stored, revisions),
            (reordering, reordering_base),
            (order_stored, order_revision),
            version=version,
        )
    if save.submit:
        check_complete(assignment, criteria, shape, given, stored, reordering, order_stored)
    return _Plan(
        assignment,
        end=end,
        rows=[(criteria[key].pk, unit, g.value) for (key, unit), g in given.items() if g.value != ""],
        removals=[(criteria[key].pk, unit) for (key, unit), g in given.items() if g.value == ""],
        reordering={"submitted_order": reordering, "kept_shown_order": kept_shown_order}
        if reordering is not None and reordering != order_stored
        else None,
        submit=save.submit,
        user=save.user,
        seconds=save.seconds,
    )


def _write(plan: _Plan) -> Assignment:
    """Write a checked save (``_decide``) inside the caller's transaction, holding the row lock or the write turn;
    tell the statistics of a submission."""
    assignment = plan.assignment
    if plan.rows is None:
        return assignment  # a retried submission: nothing to write
    now = timezone.now()
    if plan.end is not None and now > plan.end:  # the time limit ended while the save was checked
        raise ItemClosed(ItemClosed.TIME_OVER, time_over_message())
    project = assignment.dialogue.project
    if plan.reordering is not None:
        Reordering.objects.update_or_create(
            assignment=assignment, defaults={**plan.reordering, "revision": assignment.version + 1}
        )
    assignment.started_at = assignment.started_at or now
    assignment.seconds_spent += max(0, min(int(plan.seconds), 3600))
    assignment.status = AssignmentStatus.SUBMITTED if plan.submit else AssignmentStatus.IN_PROGRESS
    assignment.submitted_at = now if plan.submit else None
    assignment.version += 1
    judgements_write(assignment, plan.rows, plan.removals, now)
    if plan.submit:
        events.judgements_counted(assignment=assignment, sign=+1)
        if assignment.training_required and is_training(assignment):  # only a training item can reach a pass
            qualification_pass_record(project=project, user=plan.user)
        events.statistics_due(project_id=project.pk)
        submission_emit(assignment=assignment, project_id=project.pk, annotator=plan.user)
    return assignment


@transaction.atomic
def assignment_reopen(*, assignment_id: int, reason: str = "") -> Assignment:
    """Let the annotator change a submitted item again (a lead's action); its judgements stay as drafts.

    ``reason`` (optional) is shown to the annotator on the item. Open tabs of the item learn of it by
    its new version.
    """
    assignment = Assignment.objects.select_for_update().get(pk=assignment_id)
    if assignment.status == AssignmentStatus.SUBMITTED:
        events.judgements_counted(assignment=assignment, sign=-1)
        assignment.status = AssignmentStatus.IN_PROGRESS
        assignment.submitted_at = None
        assignment.reopened_at = timezone.now()
        assignment.reopen_reason = reason.strip()
        assignment.version = F("version") + 1
        assignment.save(update_fields=["status", "submitted_at", "reopened_at", "reopen_reason", "version"])
        assignment.refresh_from_db(fields=["version"])
        # the item no longer counts: the statistics (and every result read from the judgements) are out of date
        events.statistics_due(
            project_id=Dialogue.objects.values_list("project_id", flat=True).get(pk=assignment.dialogue_id)
        )
    return assignment
