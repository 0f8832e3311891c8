"""Saving an annotator's work: drafts as they go, and the submission.

A save is a merge: each judgement given replaces that one judgement (an empty value removes it)
and the judgements a save does not mention stay as they are, so a tab never erases answers it did
not change. Every save counts the assignment's ``version`` up by one. A client sends back the
version it last saw and, for each judgement it changes, the value it last saw (its *base*). When
the item was saved elsewhere in between (the version differs), a judgement whose stored value is
neither that base nor the new value was changed in both places: a conflict, and nothing is saved
(``ConflictError`` names each one). Without a version a save merges without that check.

The assignment row is locked for the duration of a save, so two tabs, a double click or a retried
request are applied one after the other.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.core.exceptions import PermissionDenied
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext

from annotator.access import NOT_QUALIFIED, MembershipEnded
from annotator.models import (
    Assignment,
    AssignmentStatus,
    Criterion,
    Dialogue,
    Judgement,
    Membership,
    Project,
    QualityItem,
    QualityItemKind,
    Reordering,
)
from annotator.presets import PRESETS
from annotator.selectors.qualification import may_open
from annotator.selectors.structure import DialogueShape, dialogue_shape, project_criteria
from annotator.services.qualification import qualification_pass_record
from annotator.units import (
    ShownFrame,
    UnitError,
    check_value,
    names_list,
    required_units,
    shown_rank,
    unit_names,
    unit_rule,
    unit_speaker,
)
from annotator.wording import criterion_wording, speaker_name
from scoring.app.services.schedule import statistics_request_on_commit


class SubmissionError(ValueError):
    """A save that cannot be accepted; ``problems`` lists what is wrong or missing, in words, and
    ``missing`` the form fields (``j:KEY:UNIT``, ``reordering``) a submission still lacks."""

    def __init__(self, problems: list[str], missing: Sequence[str] = ()):
        self.problems = problems
        self.missing = list(missing)
        super().__init__("; ".join(problems))


@dataclass(frozen=True)
class Conflict:
    """One answer changed both by this save and, since its version, elsewhere (another tab, a device)."""

    name: str  # the form field: j:KEY:UNIT, or "reordering"
    criterion: str
    unit: int
    stored: str  # the value saved elsewhere ("" for none; the order as JSON for the reordering)
    given: str  # the value this save brought


class ConflictError(SubmissionError):
    """The item was saved elsewhere since ``version`` the client sent, changing the same answers."""

    def __init__(self, problems: list[str], conflicts: list[Conflict], version: int):
        super().__init__(problems)
        self.conflicts = conflicts
        self.version = version


INSERT_BATCH = 1000  # rows per INSERT: 5,000 parameters, within SQLite's and PostgreSQL's limits
DELETE_BATCH = 400  # (criterion, unit) pairs per DELETE


@dataclass(frozen=True)
class Given:
    """A value for one criterion on one unit; ``value`` "" removes the judgement. ``base`` is the value
    the client last saw there (None or "" for no answer), read only when the client's version is stale."""

    criterion: str
    unit: int
    value: str
    base: str | None = None


def reordering_problems(order: list[int], turn_speakers: Sequence[str]) -> list[str]:
    """Why ``order`` (original turn indices in the new order) breaks the constraints, if it does."""
    n = len(turn_speakers)
    if sorted(order) != list(range(n)):
        return [f"the reordering must use each of the {n} turns once"]
    shown = [turn_speakers[i] for i in order]
    problems = []
    if shown[0] != turn_speakers[0]:
        problems.append(
            gettext("the first turn must be by %(turn_speakers)s") % {"turn_speakers": speaker_name(turn_speakers[0])}
        )
    if any(a == b for a, b in itertools.pairwise(shown)):
        problems.append(gettext("speakers must strictly alternate"))
    return problems


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
    judgements with these merged in). With ``version`` older than the stored one, answers changed
    elsewhere since are compared with each ``base`` (see the module docstring). On any problem nothing
    is saved: ``SubmissionError`` lists the problems, ``ConflictError`` the conflicts. A submitted
    assignment is read-only until a lead reopens it, except that repeating the identical submission
    succeeds (a retried request). Returns the assignment with its new ``version``.
    """
    values = list(values)
    with transaction.atomic():
        assignment = _lock_own_assignment(assignment_id, user)
        project = assignment.dialogue.project
        criteria = project_criteria(project.pk)
        shape = dialogue_shape(assignment.dialogue_id)
        rule = unit_rule(project.preset)
        frame = ShownFrame.of(shape.blocks, assignment.shown_order)
        problems: list[str] = []
        given: dict[tuple[str, int], Given] = {}
        for v in values:
            criterion = criteria.get(v.criterion)
            if criterion is None:
                problems.append(gettext("unknown criterion %(criterion)s") % {"criterion": repr(v.criterion)})
                continue
            try:
                unit = frame.to_source(criterion.unit, v.unit)
                speaker = unit_speaker(criterion, unit, shape, rule=rule)
                if v.value != "":
                    check_value(criterion, speaker, v.value)
            except UnitError as exc:
                problems.append(str(exc))
                continue
            given[(v.criterion, unit)] = v
        if reordering is not None:
            reordering = frame.order_to_source(reordering)
            problems += reordering_problems(reordering, shape.turn_speakers)
        if reordering_base is not None:
            reordering_base = frame.order_to_source(reordering_base)
        stale = version is not None and version != assignment.version
        stored: dict[tuple[str, int], str] = {}
        stored_order = None
        if stale or submit or assignment.status == AssignmentStatus.SUBMITTED:
            stored = _stored_values(assignment.pk, criteria)
            stored_order = Reordering.objects.filter(assignment=assignment).values_list("submitted_order", flat=True)
            stored_order = stored_order.first()
        if assignment.status == AssignmentStatus.SUBMITTED:
            same = all(stored.get(key) == (g.value or None) for key, g in given.items())
            if submit and not problems and same and reordering in (None, stored_order):
                return assignment  # a retried or doubled submission: already saved
            raise SubmissionError(["this item is already submitted; ask the project lead to reopen it"])
        if problems:
            raise SubmissionError(problems)
        if stale:
            _check_conflicts(assignment, criteria, shape, given, stored, reordering, reordering_base, stored_order)
        if submit:
            _check_complete(assignment, criteria, shape, given, stored, reordering, stored_order)
        if reordering is not None:
            Reordering.objects.update_or_create(assignment=assignment, defaults={"submitted_order": reordering})
        now = timezone.now()
        assignment.started_at = assignment.started_at or now
        assignment.seconds_spent += max(0, min(int(seconds), 3600))
        assignment.status = AssignmentStatus.SUBMITTED if submit else AssignmentStatus.IN_PROGRESS
        assignment.submitted_at = now if submit else None
        assignment.version += 1
        _store(
            assignment,
            [(criteria[key].pk, unit, g.value) for (key, unit), g in given.items() if g.value != ""],
            [(criteria[key].pk, unit) for (key, unit), g in given.items() if g.value == ""],
            now,
        )
        if submit:
            if assignment.training_required:
                qualification_pass_record(project=project, user=user)
            statistics_request_on_commit(project_id=project.pk)
    return assignment


def _value_label(project, criterion: Criterion, value: str | None) -> str:
    """The value's label as the annotator's page shows it (their language, ``annotator.wording``)."""
    if not value:
        return gettext("no answer")
    return criterion_wording(project, criterion).values.get(value, value)


def _check_conflicts(
    assignment: Assignment,
    criteria: dict[str, Criterion],
    shape: DialogueShape,
    given: dict[tuple[str, int], Given],
    stored: dict[tuple[str, int], str],
    reordering: list[int] | None,
    reordering_base: list[int] | None,
    stored_order: list[int] | None,
) -> None:
    """Raise ``ConflictError`` for every answer this stale save changes that was also changed elsewhere.

    The conflicts name units and orders as the annotator sees them (``ShownFrame``)."""
    frame = ShownFrame.of(shape.blocks, assignment.shown_order)
    conflicts: list[Conflict] = []
    problems: list[str] = []
    names: dict[str, dict[int, str]] = {}
    for (key, unit), g in given.items():
        now_stored = stored.get((key, unit))
        if now_stored in (g.base or None, g.value or None):
            continue
        criterion = criteria[key]
        if criterion.unit not in names:
            names[criterion.unit] = unit_names(criterion.unit, shape.speakers, shape.blocks, assignment.shown_order)
        shown = frame.to_shown(criterion.unit, unit)
        conflicts.append(Conflict(f"j:{key}:{shown}", key, shown, now_stored or "", g.value))
        problems.append(
            gettext("%(label)s for %(names)s: %(value_label)s there, %(value_label2)s here")
            % {
                "label": criterion_wording(assignment.dialogue.project, criterion).label,
                "names": names[criterion.unit][unit],
                "value_label": _value_label(assignment.dialogue.project, criterion, now_stored),
                "value_label2": _value_label(assignment.dialogue.project, criterion, g.value),
            }
        )
    if reordering is not None and stored_order not in (reordering_base, reordering):
        theirs = frame.order_to_shown(stored_order) if stored_order is not None else None
        conflicts.append(
            Conflict("reordering", "", 0, json.dumps(theirs), json.dumps(frame.order_to_shown(reordering)))
        )
        problems.append(gettext("the order of the turns was changed there and here"))
    if conflicts:
        raise ConflictError(
            ["this item was changed in another tab or window since you last saved: " + "; ".join(problems)],
            conflicts,
            assignment.version,
        )


def _check_complete(
    assignment: Assignment,
    criteria: dict[str, Criterion],
    shape: DialogueShape,
    given: dict[tuple[str, int], Given],
    stored: dict[tuple[str, int], str],
    reordering: list[int] | None,
    stored_order: list[int] | None,
) -> None:
    """Raise ``SubmissionError`` naming, as the page shows them, the questions the submission lacks."""
    answered = {key for key, value in stored.items() if value}
    for key, g in given.items():
        if g.value:
            answered.add(key)
        else:
            answered.discard(key)
    problems: list[str] = []
    missing: list[str] = []
    for criterion in criteria.values():
        rule = unit_rule(assignment.dialogue.project.preset)
        units = [u for u in required_units(criterion, shape, rule=rule) if (criterion.key, u) not in answered]
        if not units:
            continue
        rank = shown_rank(criterion.unit, shape.blocks, assignment.shown_order)
        units.sort(key=rank.__getitem__)
        frame = ShownFrame.of(shape.blocks, assignment.shown_order)
        missing += [f"j:{criterion.key}:{frame.to_shown(criterion.unit, u)}" for u in units]
        names = unit_names(criterion.unit, shape.speakers, shape.blocks, assignment.shown_order)
        problems.append(
            gettext("%(label)s is missing for %(names_list)s")
            % {
                "label": criterion_wording(assignment.dialogue.project, criterion).label,
                "names_list": names_list([names[u] for u in units]),
            }
        )
    if PRESETS[assignment.dialogue.project.preset].reordering and reordering is None and stored_order is None:
        missing.append("reordering")
        problems.append(gettext("the reordering is missing"))
    if problems:
        raise SubmissionError(problems, missing)


# The row lock, and what a save and its callers' answers (the API's AssignmentOut) read: the
# assignment with its dialogue's id and project, and whether the annotator is still an active member
# of the project (the same rule as annotator.access; one more index lookup on the membership's
# unique (project, user) key). The dialogue's source metadata and the project's guidelines stay in
# the database.
LOCK_SQL = """
    SELECT a.id, a.annotator_id, a.dialogue_id, a.status, a.started_at, a.submitted_at, a.seconds_spent,
           a.shown_order, a.version, d.external_id AS dialogue_external_id, d.project_id AS dialogue_project_id,
           p.slug AS project_slug, p.preset AS project_preset, m.active AS member_active,
           EXISTS (SELECT 1 FROM {quality_item} q JOIN {dialogue} qd ON qd.id = q.dialogue_id
                   WHERE qd.project_id = d.project_id AND q.kind = %s) AS training_required
    FROM {assignment} a JOIN {dialogue} d ON d.id = a.dialogue_id JOIN {project} p ON p.id = d.project_id
    LEFT JOIN {membership} m ON m.project_id = d.project_id AND m.user_id = a.annotator_id
    WHERE a.id = %s AND a.annotator_id = %s AND NOT a.imported{lock}
"""


def _lock_own_assignment(assignment_id: int, user) -> Assignment:
    """The user's own (not imported) assignment, locked until the transaction ends, with its dialogue
    and project attached; ``Assignment.DoesNotExist`` otherwise, ``MembershipEnded`` when the
    user is no longer an active member of the project, and ``PermissionDenied`` for a real item of a
    project with training items before the user qualified (``may_open``; only then asked, the row's
    own query having said whether the project has training items).

    Plain SQL for the reason ``_store`` gives: compiling the equivalent ORM query (select_related,
    only, select_for_update) costs three times as much CPU as running it. SQLite, which has no
    row locks, serialises writers instead (as Django's select_for_update does there).
    """
    sql = LOCK_SQL.format(
        assignment=Assignment._meta.db_table,
        dialogue=Dialogue._meta.db_table,
        project=Project._meta.db_table,
        membership=Membership._meta.db_table,
        quality_item=QualityItem._meta.db_table,
        lock=" FOR UPDATE OF a" if connection.features.has_select_for_update_of else "",
    )
    found = list(Assignment.objects.raw(sql, [QualityItemKind.TRAINING, assignment_id, user.pk]))
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
    if assignment.training_required and not may_open(assignment=assignment, user=user):
        raise PermissionDenied(NOT_QUALIFIED)
    return assignment


def _store(assignment: Assignment, rows: list[tuple[int, int, str]], removals: list[tuple[int, int]], now) -> None:
    """Merge ``rows`` (criterion id, unit, value) into the assignment's judgements, remove ``removals``
    (criterion id, unit) and record its new status, time, seconds and version: two statements for a
    draft (three when it clears an answer), inside the caller's transaction and row lock.

    This runs on every autosave, so it is written in the plain SQL both PostgreSQL and SQLite take
    (``INSERT ... ON CONFLICT DO UPDATE``): the ORM's model instances and save() cost about three
    times the CPU (``bench/api_load.py``; tests compare the stored rows on both databases). A row
    whose value does not change keeps its ``updated_at``.
    """
    judgements, assignments = Judgement._meta.db_table, Assignment._meta.db_table
    stamp = connection.ops.adapt_datetimefield_value
    with connection.cursor() as cursor:
        for start in range(0, len(removals), DELETE_BATCH):
            batch = removals[start : start + DELETE_BATCH]
            cursor.execute(
                f"DELETE FROM {judgements} WHERE assignment_id = %s AND ("
                + " OR ".join(["(criterion_id = %s AND unit = %s)"] * len(batch))
                + ")",
                [assignment.pk, *(field for pair in batch for field in pair)],
            )
        for start in range(0, len(rows), INSERT_BATCH):
            batch = rows[start : start + INSERT_BATCH]
            cursor.execute(
                f"INSERT INTO {judgements} (assignment_id, criterion_id, unit, value, updated_at) VALUES "
                + ", ".join(["(%s, %s, %s, %s, %s)"] * len(batch))
                + " ON CONFLICT (assignment_id, criterion_id, unit) DO UPDATE"
                f" SET value = excluded.value, updated_at = excluded.updated_at"
                f" WHERE {judgements}.value <> excluded.value",
                [
                    field
                    for criterion_id, unit, value in batch
                    for field in (assignment.pk, criterion_id, unit, value, stamp(now))
                ],
            )
        cursor.execute(
            f"UPDATE {assignments} SET started_at = %s, seconds_spent = %s, status = %s, submitted_at = %s, "
            "version = %s WHERE id = %s",
            [
                stamp(assignment.started_at),
                assignment.seconds_spent,
                assignment.status,
                stamp(assignment.submitted_at),
                assignment.version,
                assignment.pk,
            ],
        )


def _stored_values(assignment_id: int, criteria: dict[str, Criterion]) -> dict[tuple[str, int], str]:
    """The assignment's stored judgements, (criterion key, unit) -> value, in one plain statement."""
    key_of = {c.pk: key for key, c in criteria.items()}
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT criterion_id, unit, value FROM {Judgement._meta.db_table} WHERE assignment_id = %s",
            [assignment_id],
        )
        return {(key_of[c], u): v for c, u, v in cursor.fetchall() if c in key_of}


@transaction.atomic
def assignment_reopen(*, assignment_id: int, reason: str = "") -> Assignment:
    """Let the annotator change a submitted item again (a lead's action); its judgements stay as drafts.

    ``reason`` (optional) is shown to the annotator on the item. Open tabs of the item learn of it by
    its new version.
    """
    assignment = Assignment.objects.select_for_update().get(pk=assignment_id)
    if assignment.status == AssignmentStatus.SUBMITTED:
        assignment.status = AssignmentStatus.IN_PROGRESS
        assignment.submitted_at = None
        assignment.reopened_at = timezone.now()
        assignment.reopen_reason = reason.strip()
        assignment.version = F("version") + 1
        assignment.save(update_fields=["status", "submitted_at", "reopened_at", "reopen_reason", "version"])
        assignment.refresh_from_db(fields=["version"])
    return assignment
