"""The rows of a save: the assignment locked (with the checks of who may save), judgements written and
removed in batches, the stored values read back."""

from __future__ import annotations

from datetime import UTC
from functools import cache

from django.core.exceptions import PermissionDenied
from django.db import connection
from django.utils.dateparse import parse_datetime
from django.utils.timezone import is_aware, make_aware

from annotator.access import NOT_QUALIFIED, MembershipEnded
from annotator.models import (
    Assignment,
    Criterion,
    Dialogue,
    Judgement,
    Membership,
    Participant,
    Project,
    QualityItem,
    QualityItemKind,
    Reordering,
    Study,
)
from annotator.selectors.qualification import may_open
from config.plain_rows import instance_from_row

INSERT_BATCH = 1000  # rows per INSERT: 7,000 parameters, within SQLite's and PostgreSQL's limits
DELETE_BATCH = 400  # (criterion, unit) pairs per DELETE


# the assignment's fields a save reads, then what it needs from the dialogue, project, membership and study
LOCKED_FIELDS = (
    "id",
    "annotator_id",
    "dialogue_id",
    "status",
    "started_at",
    "submitted_at",
    "seconds_spent",
    "shown_order",
    "shown_first",
    "version",
    "removed",
)
LOCK_SQL = """
    SELECT {fields}, d.external_id, d.project_id, p.slug, p.preset, m.active,
           EXISTS (SELECT 1 FROM {quality_item} q JOIN {dialogue} qd ON qd.id = q.dialogue_id
                   WHERE qd.project_id = d.project_id AND q.kind = %s),
           pt.allocated_at, s.time_limit_minutes
    FROM {assignment} a JOIN {dialogue} d ON d.id = a.dialogue_id JOIN {project} p ON p.id = d.project_id
    LEFT JOIN {membership} m ON m.project_id = d.project_id AND m.user_id = a.annotator_id
    LEFT JOIN {participant} pt ON pt.user_id = a.annotator_id
    LEFT JOIN {study} s ON s.id = pt.study_id AND s.project_id = d.project_id
    WHERE a.id = %s AND a.annotator_id = %s AND NOT a.imported{lock}
"""


class ReadsSeen:
    """The statements a save's checks read and the rows they returned, to read again under the write turn.

    On SQLite a save reads and checks before it takes the process's write turn (``judgements_save``); once it
    holds the turn, ``unchanged`` reads the same statements again: the same rows mean the checks' outcome is the
    one they would have had under the turn.
    """

    def __init__(self) -> None:
        self.seen: list[tuple[str, list, list]] = []

    def fetch(self, sql: str, params: list) -> list[tuple]:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        self.seen.append((sql, params, rows))
        return rows

    def unchanged(self) -> bool:
        with connection.cursor() as cursor:
            for sql, params, rows in self.seen:
                cursor.execute(sql, params)
                if cursor.fetchall() != rows:
                    return False
        return True


def assignment_lock_own(assignment_id: int, user, reads: ReadsSeen | None = None) -> Assignment:
    """The user's own (not imported) assignment, locked until the transaction ends, with its dialogue
    and project attached; ``Assignment.DoesNotExist`` otherwise, ``MembershipEnded`` when the
    user is no longer an active member of the project, and ``PermissionDenied`` for a real item of a
    project with training items before the user qualified (``may_open``; only then asked, the row's
    own query having said whether the project has training items). For a study participant's item the
    row also brings ``study_allocated_at`` and ``study_time_limit_minutes`` (None otherwise), which the
    save checks against the time limit under the same lock.

    Plain SQL for the reason ``judgements_write`` gives: compiling the equivalent ORM query (select_related,
    only, select_for_update) costs three times as much CPU as running it, and a raw queryset's set-up
    (its columns matched to fields, its converters) about as much again: the row is read with a cursor
    and converted once (``config.plain_rows``). SQLite, which has no row locks, serialises writers instead
    (as Django's select_for_update does there). ``reads`` records the statement and its row.
    """
    sql, params = _lock_sql(connection.vendor), [QualityItemKind.TRAINING, assignment_id, user.pk]
    rows = (reads or ReadsSeen()).fetch(sql, params)
    row = rows[0] if rows else None
    if row is None:
        raise Assignment.DoesNotExist(f"no assignment {assignment_id} of {user}")
    assignment = instance_from_row(Assignment, LOCKED_FIELDS, row[: len(LOCKED_FIELDS)])
    external_id, project_id, slug, preset, member_active, training_required, allocated, limit = row[
        len(LOCKED_FIELDS) :
    ]
    if not member_active:
        raise MembershipEnded(slug)
    db = connection.alias
    # from_db takes the values in the model's field order (id, project, external_id), whatever the names' order
    dialogue = Dialogue.from_db(
        db, ["id", "project_id", "external_id"], [assignment.dialogue_id, project_id, external_id]
    )
    dialogue.project = Project.from_db(db, ["id", "slug", "preset"], [project_id, slug, preset])
    assignment.dialogue = dialogue
    assignment.training_required = bool(training_required)
    assignment.study_time_limit_minutes = limit
    if isinstance(allocated, str):  # SQLite hands a plain column over as text or naive UTC
        allocated = parse_datetime(allocated)
    if allocated is not None and not is_aware(allocated):
        allocated = make_aware(allocated, UTC)
    assignment.study_allocated_at = allocated
    if assignment.training_required and not may_open(assignment=assignment, user=user):
        raise PermissionDenied(NOT_QUALIFIED)
    return assignment


@cache
def _lock_sql(vendor: str) -> str:
    """``LOCK_SQL`` for the database (``vendor``: the cache's key), formatted once per process."""
    return LOCK_SQL.format(
        fields=", ".join(f"a.{Assignment._meta.get_field(name).column}" for name in LOCKED_FIELDS),
        assignment=Assignment._meta.db_table,
        dialogue=Dialogue._meta.db_table,
        project=Project._meta.db_table,
        membership=Membership._meta.db_table,
        quality_item=QualityItem._meta.db_table,
        participant=Participant._meta.db_table,
        study=Study._meta.db_table,
        lock=" FOR UPDATE OF a" if connection.features.has_select_for_update_of else "",
    )


def judgements_write(
    assignment: Assignment, rows: list[tuple[int, int, str]], removals: list[tuple[int, int]], now
) -> None:
    """Merge ``rows`` (criterion id, unit, value) into the assignment's judgements, remove ``removals``
    (criterion id, unit) and record its new status, time, seconds and version (and which answers were
    removed at which version): one statement for a draft on PostgreSQL (the assignment's update is a
    ``WITH`` of the insert), two on SQLite, one more when it clears an answer, inside the caller's
    transaction and row lock. Each written row's ``revision`` is the assignment's new version, and so is each
    removal's in ``Assignment.removed``, even where the value stays the same (the person chose it again,
    later than a value another tab still holds): a later save can tell what was chosen after the
    version its client read, a removal included.

    This runs on every autosave, so it is written in the plain SQL both PostgreSQL and SQLite take
    (``INSERT ... ON CONFLICT DO UPDATE``): the ORM's model instances and save() cost about three
    times the CPU (``bench/api_load.py``; tests compare the stored rows on both databases). A row
    whose value does not change keeps its ``updated_at`` (and takes the new revision).
    """
    judgements, assignments = Judgement._meta.db_table, Assignment._meta.db_table
    stamp = connection.ops.adapt_datetimefield_value
    shown = assignment.shown_first or ""  # a comparison's candidate shown first, recorded with each value
    removed = dict(assignment.removed or {})
    for criterion_id, unit, _value in rows:
        removed.pop(f"{criterion_id}:{unit}", None)
    removed.update({f"{criterion_id}:{unit}": assignment.version for criterion_id, unit in removals})
    update_sql = (
        f"UPDATE {assignments} SET started_at = %s, seconds_spent = %s, status = %s, submitted_at = %s, version = %s"
    )
    update_params = [
        stamp(assignment.started_at),
        assignment.seconds_spent,
        assignment.status,
        stamp(assignment.submitted_at),
        assignment.version,
    ]
    if removed != (assignment.removed or {}):
        update_sql += ", removed = %s"
        update_params.append(Assignment._meta.get_field("removed").get_db_prep_save(removed, connection))
        assignment.removed = removed
    update_sql += " WHERE id = %s"
    update_params.append(assignment.pk)
    # PostgreSQL runs the assignment's update as a data-modifying WITH of the first insert: one round trip less
    update_pending = True
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
            with_update = update_pending and connection.vendor == "postgresql"
            cursor.execute(
                (f"WITH assignment_update AS ({update_sql}) " if with_update else "") + f"INSERT INTO {judgements}"
                " (assignment_id, criterion_id, unit, value, updated_at, revision, shown_first) VALUES "
                + ", ".join(["(%s, %s, %s, %s, %s, %s, %s)"] * len(batch))
                + " ON CONFLICT (assignment_id, criterion_id, unit) DO UPDATE"
                f" SET updated_at = CASE WHEN {judgements}.value = excluded.value THEN {judgements}.updated_at"
                " ELSE excluded.updated_at END, value = excluded.value, revision = excluded.revision,"
                " shown_first = excluded.shown_first",
                (update_params if with_update else [])
                + [
                    field
                    for criterion_id, unit, value in batch
                    for field in (assignment.pk, criterion_id, unit, value, stamp(now), assignment.version, shown)
                ],
            )
            update_pending = update_pending and not with_update
        if update_pending:
            cursor.execute(update_sql, update_params)


def stored_values(
    assignment: Assignment, criteria: dict[str, Criterion], reads: ReadsSeen
) -> tuple[dict[tuple[str, int], str], dict[tuple[str, int], int]]:
    """The assignment's stored judgements, (criterion key, unit) -> value, and the version that last
    wrote or removed each, (criterion key, unit) -> revision, in one plain statement (recorded in ``reads``)."""
    key_of = {c.pk: key for key, c in criteria.items()}
    fetched = reads.fetch(
        f"SELECT criterion_id, unit, value, revision FROM {Judgement._meta.db_table} WHERE assignment_id = %s"
        " ORDER BY criterion_id, unit",
        [assignment.pk],
    )
    rows = [(key_of[c], u, v, r) for c, u, v, r in fetched if c in key_of]
    revisions = {}
    for pair, revision in (assignment.removed or {}).items():
        criterion_id, unit = (int(part) for part in pair.split(":"))
        if criterion_id in key_of:
            revisions[(key_of[criterion_id], unit)] = revision
    revisions.update({(key, unit): revision for key, unit, _value, revision in rows})
    return {(key, unit): value for key, unit, value, _revision in rows}, revisions


def stored_order(assignment: Assignment, reads: ReadsSeen) -> tuple[list[int] | None, int]:
    """The assignment's stored reordering (source turn indices) and the version that wrote it; (None, 0) when
    there is none. One plain statement, recorded in ``reads``."""
    field = Reordering._meta.get_field("submitted_order")
    rows = reads.fetch(
        f"SELECT submitted_order, revision FROM {Reordering._meta.db_table} WHERE assignment_id = %s", [assignment.pk]
    )
    if not rows:
        return None, 0
    return field.from_db_value(rows[0][0], None, connection), rows[0][1]
