"""Restoring a project from its archive (``evaluation.archive``): all of it, or nothing.

Every value is checked before it is written, the way collection imports are: types and choices, text that
fits its column (``annotator.importers.limits``, ``evaluation.archive.fields``), references between the parts
(a judgement's assignment, an assignment's dialogue, an adjudication's criterion), and values against the
criteria and the dialogue's units. A bad archive raises ``InputError`` naming the file, the record and the
field (``scoring.input``), and the transaction leaves nothing behind.

The people the archive names are mapped by one rule, which depends on who restores it
(``evaluation.archive.people``): whoever restores it leads the new project, and a lead's restore creates at most
the archive's annotators as imported accounts. Times are kept as archived. The runs' scores stay current when
they were current against the archived gold; the statistics and the live figures are rebuilt from the restored
judgements.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from django.contrib.auth.models import AbstractBaseUser
from django.db import DatabaseError, connection, transaction
from django.utils.translation import gettext

from annotator.models import (
    AppliesTo,
    Assignment,
    AssignmentStatus,
    Candidate,
    Criterion,
    Dialogue,
    GoldCount,
    Judgement,
    Level,
    Post,
    Project,
    Reordering,
    Role,
    Unit,
)
from annotator.presets import CUSTOM, PRESETS
from annotator.presets.document import scheme_document, scheme_from_document
from annotator.presets.of_project import project_scheme
from annotator.selectors.structure import DialogueShape
from annotator.services.blocks import utterance_blocks
from annotator.services.projects import membership_add
from annotator.units import UnitError, check_value, unit_speaker
from evaluation.archive import ARCHIVE_MEMBER
from evaluation.archive.context import Restoring
from evaluation.archive.fields import fields_restore, plain_fields
from evaluation.archive.parts import batches, judges, quality, settings, studies, webhooks
from evaluation.archive.people import people_named, people_restore
from evaluation.archive.reader import archive_document
from evaluation.models import Run, RunKind, RunStatus
from evaluation.selectors.fingerprint import judgements_fingerprint
from scoring.errors import N_, InputError
from scoring.input import Record, text_problem

INT32 = (0, 2_147_483_647)
SMALL = (0, 32_767)
ASSIGNMENT_STATUSES = AssignmentStatus.values  # (the enum's property builds the list at every call)
ARCHIVED_STALE = "archived-stale"  # a run's gold mark no fingerprint equals: scored again after the restore


def _max(model, column: str) -> int:
    return model._meta.get_field(column).max_length


@dataclass(frozen=True)
class Restored:
    """The restored project, and what the restore did not restore as archived (for the person restoring)."""

    project: Project
    notes: list[str] = field(default_factory=list)


def project_archive_import(
    *, raw: bytes, display: str = "archive", slug: str | None = None, actor: AbstractBaseUser | None = None
) -> Restored:
    """Create the archived project (under ``slug`` if given) with everything in it, or raise ``InputError``.

    ``actor`` is the lead or staff member restoring it, who becomes its lead (None: the operator,
    ``manage.py import_project``); the people the archive names are mapped as ``evaluation.archive.people``
    says."""
    document = archive_document(raw, display)
    r = Record(f"{display}:{ARCHIVE_MEMBER}")
    try:
        with transaction.atomic():
            return _import(r, document, slug, actor)
    except DatabaseError as exc:  # a constraint the checks above did not foresee: still a clear refusal
        first_line = (str(exc).splitlines() or [""])[0]
        raise InputError(display, N_("cannot be stored: %(exc)s"), params={"exc": first_line}) from None


def _slug(r: Record, meta: dict, slug: str | None) -> str:
    """The new project's slug: given, or the archived one; a slug no project has yet."""
    if not slug:
        slug = r.text(meta, "slug", "project", max_length=_max(Project, "slug"))
    r.check_text(slug, "slug", max_length=_max(Project, "slug"))
    if not slug or not all(c.isascii() and (c.isalnum() or c in "-_") for c in slug):
        raise r.error(N_("%(slug)s is not a slug (letters, digits, - and _)"), "project.slug", slug=repr(slug))
    if Project.objects.filter(slug=slug).exists():
        raise r.error(N_("a project %(slug)s already exists; import it under another --slug"), "slug", slug=repr(slug))
    return slug


# the project's fields every archive has held (version 1 wrote these and the slug and preset)
PROJECT_V1 = ("name", "guidelines", "annotators_per_dialogue", "created_at")


def _project(r: Record, document: dict, slug: str | None, actor: AbstractBaseUser | None) -> tuple[Project, list]:
    meta = r.field(document, "project", dict)
    slug = _slug(r, meta, slug)
    preset = r.field(meta, "preset", str, "project")
    kept = r.json(meta, "scheme", "project", dict, optional=True) or {}
    if kept:
        try:
            scheme_from_document(kept, display=r.file)
        except InputError as exc:
            raise r.error(
                N_("%(problem)s"), "project.scheme" + (f".{exc.field}" if exc.field else ""), problem=exc.message
            ) from None
    if preset not in PRESETS and not (preset == CUSTOM and kept):
        message = N_("unknown preset %(preset)s; this instance has %(presets)s")
        raise r.error(message, "project.preset", preset=repr(preset), presets=", ".join(PRESETS))
    values = fields_restore(r, meta, Project, PROJECT_V1, "project")
    # every other field: required from version 2 on (the export writes every one), kept where a version 1 has it
    newer = [n for n in plain_fields(Project, without=("slug", "preset", *PROJECT_V1))
             if n in meta or document.get("version", 1) >= 2]  # fmt: skip
    values |= fields_restore(r, meta, Project, newer, "project")
    notes = []
    groups = values.get("sso_groups") or {}
    for group, role in groups.items():
        if role not in Role.values:
            raise r.error(N_("%(value)s is not one of %(choices)s"), f"project.sso_groups.{group[:40]}",
                          value=repr(str(role)[:40]), choices=", ".join(Role.values))  # fmt: skip
    if actor is not None and not actor.is_staff and Role.LEAD in groups.values():
        values["sso_groups"] = {g: role for g, role in groups.items() if role != Role.LEAD}
        notes.append(
            gettext("Single sign-on groups not made leads (you lead the restored project): %(groups)s.")
            % {"groups": ", ".join(sorted(g for g, role in groups.items() if role == Role.LEAD))}
        )
    if not values.get("scheme"):  # an archive written before schemes were data: its preset's shipped scheme
        values["scheme"] = scheme_document(PRESETS[preset])
    created_at = values.pop("created_at")
    project = Project.objects.create(slug=slug, preset=preset, **values)
    Project.objects.filter(pk=project.pk).update(created_at=created_at)
    project.created_at = created_at
    return project, notes


def _import(r: Record, document: dict, slug: str | None, actor: AbstractBaseUser | None) -> Restored:
    project, notes = _project(r, document, slug, actor)
    restoring = Restoring(r=r, document=document, project=project, version=document["version"], notes=notes)
    restoring.criteria = _criteria(r, document, project)
    participants = studies.studies_restore(restoring)
    named = set()
    for part, fields in HISTORY_PEOPLE.items():
        named |= people_named(r, restoring.part(part), fields, part)
    restoring.people = people_restore(
        r=r, document=document, project=project, actor=actor, participants=participants, named=named
    )
    batches.restore(restoring)
    restoring.dialogues, restoring.shapes = _dialogues(
        r, document, project, comparison=project_scheme(project).comparison is not None, batches=restoring.batches
    )
    assignments = _assignments(restoring)
    _judgements(restoring, assignments)
    _gold_counts(restoring)
    gold_current = _runs(restoring)
    settings.restore(restoring)
    quality.restore(restoring)
    studies.participants_restore(restoring)
    judges.restore(restoring)
    webhooks.restore(restoring)
    # the gold the runs were scored against is the archived one: those current then are current now
    Run.objects.filter(pk__in=gold_current).update(gold_fingerprint=judgements_fingerprint(project))
    if actor is not None:
        membership_add(project=project, user=actor, role=Role.LEAD)
    return Restored(project=project, notes=restoring.notes + restoring.people.notes)


# the parts whose rows name people in history fields (who excluded, settled, created...)
HISTORY_PEOPLE = {
    "import_batches": ("created_by", "removed_by"),
    "qualifications": ("admitted_by",),
    "exclusions": ("excluded_by",),
    "adjudications": ("adjudicator",),
    "judges": ("created_by",),
    "webhooks": ("created_by",),
}


def _criteria(r: Record, document: dict, project: Project) -> dict[str, Criterion]:
    rows = []
    for i, c in enumerate(r.field(document, "criteria", list)):
        where = f"criteria[{i}]"
        values = r.json(c, "values", where, list)
        for v, value in enumerate(values):
            r.text(r.value(value, dict, f"{where}.values[{v}]"), "value", f"{where}.values[{v}]")
        rows.append(
            Criterion(
                project=project,
                key=r.text(c, "key", where, max_length=_max(Criterion, "key")),
                label=r.text(c, "label", where, max_length=_max(Criterion, "label")),
                question=r.text(c, "question", where),
                unit=r.choice(c, "unit", Unit.values, where),
                values=values,
                level=r.choice(c, "level", Level.values, where),
                speaker=r.text(c, "speaker", where, max_length=_max(Criterion, "speaker")),
                applies_to=_applies_to(r, c, where, project),
                not_applicable=_not_applicable(r, c, where),
                position=r.integer(c, "position", where, bounds=SMALL),
            )
        )
    if len({c.key for c in rows}) != len(rows):
        raise r.error(N_("two criteria share a key"), "criteria")
    return {c.key: c for c in Criterion.objects.bulk_create(rows)}


def _applies_to(r: Record, c: dict, where: str, project: Project) -> str:
    """The criterion's unit rule; an archive written before criteria had one takes its scheme's."""
    if "applies_to" in c:
        return r.choice(c, "applies_to", AppliesTo.values, where)
    spec = project_scheme(project).criterion(c.get("key"))
    return spec.applies_to if spec is not None else AppliesTo.EVERY


def _not_applicable(r: Record, c: dict, where: str) -> dict | None:
    na = r.json(c, "not_applicable", where, dict, optional=True)
    if na is not None:
        r.text(na, "value", f"{where}.not_applicable", max_length=_max(Judgement, "value"), non_empty=True)
        r.text(na, "label", f"{where}.not_applicable")
    return na


def _posts(at: Record, d: dict) -> list[Post]:
    posts = []
    for p, post in enumerate(at.field(d, "posts", list)):
        where = f"posts[{p}]"
        posts.append(
            Post(
                position=at.integer(post, "position", where, bounds=INT32),
                speaker=at.text(post, "speaker", where, max_length=_max(Post, "speaker")),
                text=at.text(post, "text", where),
                utterance_block=at.integer(post, "utterance_block", where, bounds=INT32),
                source_turn_index=at.integer(
                    post, "source_turn_index", where, bounds=(-(2**31), 2**31 - 1), optional=True
                ),
                source_annotated=at.field(post, "source_annotated", bool, where, optional=True),
                source_meta=at.json(post, "source_meta", where, dict),
            )
        )
    if sorted(p.position for p in posts) != list(range(len(posts))):
        raise at.error(N_("post positions must be 0, 1, 2, ..."), "posts")
    return posts


SHOWN_FIRST = ("a", "b")


def _candidates(at: Record, d: dict, comparison: bool) -> list[Candidate]:
    """A comparison item's two candidates (A, B), in a comparison project only."""
    listed = at.field(d, "candidates", list, optional=True)
    if listed is None and not comparison:
        return []
    if not comparison:
        raise at.error(N_("has candidates, and only comparison projects have them"), "candidates")
    if listed is None or len(listed) != 2:
        raise at.error(N_("a comparison item has exactly two candidates"), "candidates")
    candidates = [
        Candidate(
            slot=slot,
            system=at.text(c, "system", f"candidates[{slot}]", max_length=_max(Candidate, "system"), non_empty=True),
            text=at.text(c, "text", f"candidates[{slot}]"),
        )
        for slot, c in enumerate(listed)
    ]
    if candidates[0].system == candidates[1].system:
        raise at.error(N_("both candidates are by the same system"), "candidates[1].system")
    return candidates


def _dialogues(
    r: Record, document: dict, project: Project, *, comparison: bool, batches: list[int]
) -> tuple[dict[str, Dialogue], dict]:
    rows, posts_of, created, shapes, candidates_of = [], [], [], {}, []
    for i, d in enumerate(r.field(document, "dialogues", list)):
        at = r.at(r.at(f"#{i}").text(d, "external_id", max_length=_max(Dialogue, "external_id")))
        if at.id in shapes:
            raise at.error(N_("appears twice"), "external_id")
        rows.append(
            Dialogue(
                project=project,
                external_id=at.id,
                language=at.text(d, "language", max_length=_max(Dialogue, "language")),
                source_meta=at.json(d, "source_meta", "", dict),
                position=at.integer(d, "position", bounds=INT32),
                batch_id=_batch(at, d, batches),
            )
        )
        created.append(at.time(d, "created_at"))
        posts = _posts(at, d)
        candidates_of.append(_candidates(at, d, comparison))
        ordered = sorted(posts, key=lambda p: p.position)
        speakers = [p.speaker for p in ordered]
        blocks = utterance_blocks(speakers)
        shapes[at.id] = DialogueShape.of_posts(zip(speakers, blocks, (p.source_annotated for p in ordered)))
        posts_of.append(posts)
    dialogues = Dialogue.objects.bulk_create(rows, batch_size=2000)
    for dialogue, when in zip(dialogues, created):
        dialogue.created_at = when
    Dialogue.objects.bulk_update(dialogues, ["created_at"], batch_size=2000)
    for dialogue, posts in zip(dialogues, posts_of):
        for post in posts:
            post.dialogue_id = dialogue.pk
    Post.objects.bulk_create([p for posts in posts_of for p in posts], batch_size=2000)
    for dialogue, candidates in zip(dialogues, candidates_of):
        for candidate in candidates:
            candidate.dialogue_id = dialogue.pk
    Candidate.objects.bulk_create([c for candidates in candidates_of for c in candidates], batch_size=2000)
    return {d.external_id: d for d in dialogues}, shapes


def _batch(at: Record, d: dict, batches: list[int]) -> int | None:
    """The dialogue's import batch, by its place in ``import_batches`` (None: none, or a version 1 archive)."""
    place = at.integer(d, "batch", optional=True)
    if place is None:
        return None
    if not 0 <= place < len(batches):
        raise at.error(N_("import batch %(index)s is not in the archive"), "batch", index=place)
    return batches[place]


def _assignment(at: Record, a: dict, where: str, *, annotator_id: int, dialogue_id: int) -> Assignment:
    return Assignment(
        annotator_id=annotator_id,
        dialogue_id=dialogue_id,
        status=at.choice(a, "status", ASSIGNMENT_STATUSES, where),
        imported=at.field(a, "imported", bool, where),
        started_at=at.time(a, "started_at", where, optional=True),
        submitted_at=at.time(a, "submitted_at", where, optional=True),
        seconds_spent=at.integer(a, "seconds_spent", where, bounds=INT32),
        shown_order=at.items(a, "shown_order", int, where, bounds=INT32, optional=True),
        permutation_set=at.integer(a, "permutation_set", where, bounds=SMALL, optional=True),
        queue_rank=at.integer(a, "queue_rank", where, bounds=INT32),
        version=at.integer(a, "version", where, bounds=INT32, optional=True) or 0,
        reopened_at=at.time(a, "reopened_at", where, optional=True),
        reopen_reason=at.field(a, "reopen_reason", str, where, optional=True) or "",
        shown_first=_shown_first(at, at.field(a, "shown_first", str, where, optional=True), f"{where}.shown_first"),
    )


def _shown_first(at: Record, value: str | None, field: str) -> str:
    """A comparison's candidate shown first: "a", "b", or absent (empty)."""
    if value in (None, ""):
        return ""
    if value not in SHOWN_FIRST:
        raise at.error(N_("%(value)s is not one of %(choices)s"), field, value=repr(value[:40]), choices="a, b")
    return value


def _removed(at: Record, a: dict, where: str, criteria: dict[str, Criterion]) -> dict[str, int]:
    """``Assignment.removed`` from the archive's criterion keys back to criterion ids."""
    removed = {}
    for pair, version in (at.field(a, "removed", dict, where, optional=True) or {}).items():
        key, _, unit = pair.rpartition(":")
        if key not in criteria or not unit.isdigit():
            raise at.error(N_("%(pair)s is not a criterion key and a unit"), f"{where}.removed", pair=repr(pair[:40]))
        removed[f"{criteria[key].pk}:{int(unit)}"] = at.check_int(at.value(version, int, f"{where}.removed"),
                                                                 f"{where}.removed", INT32)  # fmt: skip
    return removed


def _assignments(restoring: Restoring) -> list:
    r, document, dialogues, users = restoring.r, restoring.document, restoring.dialogues, restoring.people.users
    rows, reorderings, seen, of_dialogue = [], [], set(), []
    for i, a in enumerate(r.field(document, "assignments", list)):
        where = f"assignments[{i}]"
        external_id = r.field(a, "dialogue", str, where)
        if external_id not in dialogues:
            message = N_("dialogue %(dialogue)s is not in the archive")
            raise r.error(message, f"{where}.dialogue", dialogue=repr(external_id[:40]))
        at = r.at(external_id)
        annotator = at.field(a, "annotator", str, where)
        if (annotator, external_id) in seen:
            raise at.error(N_("%(annotator)s has two assignments of this dialogue"), where, annotator=annotator)
        seen.add((annotator, external_id))
        of_dialogue.append(external_id)
        ids = {"annotator_id": users[annotator], "dialogue_id": dialogues[external_id].pk}
        row = _assignment(at, a, where, **ids)
        row.removed = _removed(at, a, where, restoring.criteria)
        rows.append(row)
        reordering = at.field(a, "reordering", dict, where, optional=True)
        if reordering is not None:
            here = f"{where}.reordering"
            reorderings.append((i, Reordering(
                submitted_order=at.items(reordering, "submitted_order", int, here, bounds=INT32),
                kept_shown_order=at.field(reordering, "kept_shown_order", bool, here, optional=True) or False,
                revision=at.integer(reordering, "revision", here, bounds=INT32, optional=True) or 0,
            ), at.time(reordering, "updated_at", here)))  # fmt: skip
    assignments = Assignment.objects.bulk_create(rows, batch_size=2000)
    for i, reordering, _when in reorderings:
        reordering.assignment_id = assignments[i].pk
    made = Reordering.objects.bulk_create([reordering for _i, reordering, _when in reorderings], batch_size=2000)
    for reordering, (_i, _reordering, when) in zip(made, reorderings):
        reordering.updated_at = when
    Reordering.objects.bulk_update(made, ["updated_at"], batch_size=2000)
    return list(zip(assignments, of_dialogue))


def _row(r: Record, row, length: int, field: str, *, optional: int = 0) -> list:
    """``row`` if it is a list of ``length`` values (up to ``optional`` more allowed); absent ones are None."""
    if not isinstance(row, list) or not length <= len(row) <= length + optional:
        raise r.error(N_("expected a list of %(length)s values"), field, length=length)
    return row + [None] * (length + optional - len(row))


def _judgement(r: Record, row, where: str, assignments: list, restoring: Restoring) -> tuple:
    """One judgement row checked: its assignment, criterion, unit, value, extra, time, revision and the candidate
    shown first. Version 1 rows end with the time (and, on comparison items, the candidate shown first);
    version 2 rows always have eight values."""
    if restoring.version < 2:
        index, key, unit, value, extra, updated, shown = _row(r, row, 6, where, optional=1)
        revision = 0
    else:
        index, key, unit, value, extra, updated, revision, shown = _row(r, row, 8, where)
    index = r.value(index, int, f"{where}[0]")
    if not 0 <= index < len(assignments):
        raise r.error(N_("assignment %(index)s is not in the archive"), f"{where}[0]", index=index)
    assignment, external_id = assignments[index]
    at = r.at(external_id)
    criterion = restoring.criteria.get(at.value(key, str, f"{where}[1]"))
    if criterion is None:
        raise at.error(N_("criterion %(key)s is not in the archive"), f"{where}[1]", key=repr(key[:40]))
    unit, value = restoring.unit_value(at, criterion, external_id, unit, value, where)
    if extra is not None:
        at.check_json(at.value(extra, dict, f"{where}[4]"), where)
    when = at.time({"t": at.value(updated, str, f"{where}[5]")}, "t", where)
    revision = at.check_int(at.value(revision, int, f"{where}[6]"), f"{where}[6]", INT32)
    shown = _shown_first(at, at.value(shown, str, f"{where}[7]", optional=True), f"{where}[7]")
    return assignment, criterion, unit, value, extra, when, revision, shown


class _PlainJudgements:
    """The judgement rows every check accepts at a glance, read without building the names of the fields an error
    would give (``_judgement`` reads a row this refuses, and names what is wrong, or reads it after all).

    A unit's speaker is found once per criterion, dialogue and unit (STC-3's 19 annotators judge each), a value
    checked once per criterion and speaker. Refused here: rows of a version 1 archive, of another length, and any
    value not of the type and range ``_judgement`` requires."""

    def __init__(self, restoring: Restoring, assignments: list):
        self.restoring, self.assignments = restoring, assignments
        self.speakers: dict[tuple, str] = {}
        self.values: set[tuple] = set()

    def read(self, row) -> tuple | None:
        if self.restoring.version < 2 or type(row) is not list or len(row) != 8:
            return None
        index, key, unit, value, extra, updated, revision, shown = row
        if type(index) is not int or not 0 <= index < len(self.assignments) or type(key) is not str:
            return None
        if type(unit) is not int or type(value) is not str or type(updated) is not str:
            return None
        if extra is not None:
            if type(extra) is not dict:
                return None
            try:
                self.restoring.r.check_json(extra, "")
            except InputError:
                return None
        if type(revision) is not int or not INT32[0] <= revision <= INT32[1] or shown not in ("", None, *SHOWN_FIRST):
            return None
        assignment, external_id = self.assignments[index]
        criterion = self.restoring.criteria.get(key)
        if criterion is None or text_problem(value) is not None:
            return None
        try:
            place = (criterion.pk, external_id, unit)
            if place not in self.speakers:
                self.speakers[place] = unit_speaker(criterion, unit, self.restoring.shapes[external_id])
            if (criterion.pk, self.speakers[place], value) not in self.values:
                check_value(criterion, self.speakers[place], value)
                self.values.add((criterion.pk, self.speakers[place], value))
            when = datetime.fromisoformat(updated)
        except (UnitError, KeyError, ValueError):
            return None
        if when.tzinfo is None:
            return None
        return assignment, criterion, unit, value, extra, when, revision, shown or ""


def _judgements(restoring: Restoring, assignments: list) -> None:
    """Inserted with the archived times (plain INSERTs: ``updated_at`` would otherwise be set to now).

    The checked values are already what the columns take (ids, integers, text), except the JSON ``extra`` and the
    time, which the database's adapter gets from their fields: two conversions a row, not eight (a fifth of the
    restore's CPU on STC-3 CN's 500,000 judgements went to the other six, py-spy, 28 November); ``extra`` only
    when there is one, the time by the database's adapter alone (the field's path to it, through the connection
    proxy, was a fifth of this function). Most rows are read by ``_PlainJudgements``."""
    r, prepared, seen = restoring.r, [], set()
    names = ("assignment", "criterion", "unit", "value", "extra", "updated_at", "revision", "shown_first")
    fields = [Judgement._meta.get_field(n) for n in names]
    extra_field = fields[4]
    adapt_time = connection.ops.adapt_datetimefield_value  # what the field's get_db_prep_save ends in for a time
    plain = _PlainJudgements(restoring, assignments)
    for i, row in enumerate(r.field(restoring.document, "judgements", list)):
        checked = plain.read(row) or _judgement(r, row, f"judgements[{i}]", assignments, restoring)
        assignment, criterion, unit, value, extra, when, revision, shown = checked
        if (assignment.pk, criterion.pk, unit) in seen:
            message = N_("the same unit is judged twice in one assignment")
            raise r.at(assignments[row[0]][1]).error(message, f"judgements[{i}]")
        seen.add((assignment.pk, criterion.pk, unit))
        extra = None if extra is None else extra_field.get_db_prep_save(extra, connection)
        when = adapt_time(when)  # with a zone (checked): the field's other steps leave it as it is
        prepared.append((assignment.pk, criterion.pk, unit, value, extra, when, revision, shown))
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    table = connection.ops.quote_name(Judgement._meta.db_table)
    placeholders = "(" + ", ".join(["%s"] * len(fields)) + ")"
    with connection.cursor() as cursor:
        for start in range(0, len(prepared), 1000):
            batch = prepared[start : start + 1000]
            cursor.execute(
                f"INSERT INTO {table} ({columns}) VALUES " + ", ".join([placeholders] * len(batch)),
                [v for row in batch for v in row],
            )


def _gold_counts(restoring: Restoring) -> None:
    r, rows = restoring.r, []
    for i, row in enumerate(r.field(restoring.document, "gold_counts", list)):
        where = f"gold_counts[{i}]"
        external_id, key, unit, value, count, n = _row(r, row, 6, where)
        dialogue = restoring.dialogue(external_id, f"{where}[0]")
        at = r.at(external_id)
        criterion = restoring.criterion(at, key, f"{where}[1]")
        unit, value = restoring.unit_value(at, criterion, external_id, unit, value, where)
        counts = [at.check_int(at.value(x, int, f"{where}[{4 + k}]"), where, INT32) for k, x in enumerate((count, n))]
        rows.append(GoldCount(dialogue=dialogue, criterion=criterion, unit=unit, value=value,
                              count=counts[0], n_annotators=counts[1]))  # fmt: skip
    GoldCount.objects.bulk_create(rows, batch_size=2000)


def _run_source(at: Record, run: dict, where: str) -> bytes | None:
    source = at.field(run, "source", str, where, optional=True)
    try:
        return None if source is None else base64.b64decode(source, validate=True)
    except (binascii.Error, ValueError):
        raise at.error(N_("is not base64"), f"{where}.source") from None


def _runs(restoring: Restoring) -> list[int]:
    """The runs, each with its scores; the ids of those whose scores were current against the archived gold."""
    r, project, current = restoring.r, restoring.project, []
    names = set()
    for i, run in enumerate(r.field(restoring.document, "runs", list)):
        where = f"runs[{i}]"
        at = r.at(r.text(run, "name", where, max_length=_max(Run, "name")))
        if at.id in names:
            raise at.error(N_("two runs share a name"), f"{where}.name")
        names.add(at.id)
        made = Run.objects.create(
            project=project,
            name=at.id,
            kind=at.choice(run, "kind", RunKind.values, where),
            status=at.choice(run, "status", RunStatus.values, where),
            error=at.text(run, "error", where),
            source=_run_source(at, run, where),
            source_name=at.text(run, "source_name", where, max_length=_max(Run, "source_name")),
            options=at.json(run, "options", where, dict),
            scores=at.json(run, "scores", where, dict),
            per_dialogue=at.json(run, "per_dialogue", where, dict),
            scored_at=at.time(run, "scored_at", where, optional=True),
            gold_fingerprint=ARCHIVED_STALE,
        )
        Run.objects.filter(pk=made.pk).update(created_at=at.time(run, "created_at", where))
        restoring.runs[made.name] = made.pk
        if at.field(run, "gold_current", bool, where, optional=restoring.version < 2):
            current.append(made.pk)
    return current


def project_archive_import_path(*, path: Path | str, slug: str | None = None) -> Restored:
    path = Path(path)
    if not path.is_file():
        raise InputError(str(path), N_("does not exist"))
    return project_archive_import(raw=path.read_bytes(), display=str(path), slug=slug)
