"""Importing a project archive (``scoring.app.selectors.project_archive``): all of it, or nothing.

Every value is checked before anything is written, the way collection imports are: types and
choices, text that fits its column (``annotator.importers.limits``), references between the parts
(a judgement's assignment, an assignment's dialogue), and judgement values against the criteria and
the dialogue's units. A bad archive raises ``InputError`` naming the file, the record and the field.

People are matched by username: an existing account is reused, a missing one is created without a
usable password (an administrator sets one, or the person resets it). Times are kept as archived.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import zipfile
from datetime import datetime
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import DatabaseError, connection, transaction

from annotator.importers.limits import archive_limits, check_json, check_text
from annotator.models import (
    Assignment,
    AssignmentStatus,
    Criterion,
    Dialogue,
    GoldCount,
    Judgement,
    Level,
    Membership,
    Post,
    Project,
    Reordering,
    Role,
    Unit,
)
from annotator.presets import PRESETS
from annotator.selectors.structure import DialogueShape
from annotator.services.blocks import utterance_blocks
from annotator.units import UnitError, check_value, unit_rule, unit_speaker
from scoring.app.models import Run, RunKind, RunStatus
from scoring.app.selectors.project_archive import ARCHIVE_FORMAT, ARCHIVE_MEMBER, ARCHIVE_VERSION
from scoring.errors import N_, InputError
from scoring.files import ZIP_ERRORS, check_listing

INT32 = (0, 2_147_483_647)
SMALL = (0, 32_767)


class _Reader:
    """Typed access to the archive's document; every failure names the record and the field."""

    def __init__(self, file: str):
        self.file = file

    def fail(self, message: str, record: str | None, field: str) -> InputError:
        return InputError(self.file, message, record=record, field=field)

    def get(self, obj, key: str, kind, record: str | None, field: str, *, optional: bool = False):
        if not isinstance(obj, dict):
            raise self.fail("expected an object", record, field)
        if key not in obj:
            if optional:
                return None
            raise self.fail("is missing", record, f"{field}.{key}" if field else key)
        return self.value(obj[key], kind, record, f"{field}.{key}" if field else key, optional=optional)

    def value(self, value, kind, record: str | None, field: str, *, optional: bool = False):
        if value is None and optional:
            return None
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            names = "/".join(k.__name__ for k in kinds)
            raise self.fail(f"expected {names}, got {type(value).__name__}", record, field)
        return value

    def text(self, obj, key: str, record, field: str, *, model=None, column: str | None = None) -> str:
        value = self.get(obj, key, str, record, field)
        limit = model._meta.get_field(column or key).max_length if model is not None else None
        return check_text(value, file=self.file, record=record, field=f"{field}.{key}", max_length=limit)

    def integer(self, obj, key: str, record, field: str, bounds=INT32, *, optional: bool = False) -> int | None:
        value = self.get(obj, key, int, record, field, optional=optional)
        if value is not None and not bounds[0] <= value <= bounds[1]:
            raise self.fail(f"{value} is outside {bounds[0]}..{bounds[1]}", record, f"{field}.{key}")
        return value

    def choice(self, obj, key: str, choices, record, field: str) -> str:
        value = self.get(obj, key, str, record, field)
        allowed = [c for c, _label in choices]
        if value not in allowed:
            raise self.fail(f"{value!r} is not one of {', '.join(allowed)}", record, f"{field}.{key}")
        return value

    def time(self, obj, key: str, record, field: str, *, optional: bool = False) -> datetime | None:
        value = self.get(obj, key, str, record, field, optional=optional)
        if value is None:
            return None
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            raise self.fail(f"{value[:40]!r} is not an ISO 8601 time", record, f"{field}.{key}") from None
        if parsed.tzinfo is None:
            raise self.fail("needs a time zone", record, f"{field}.{key}")
        return parsed

    def json(self, obj, key: str, record, field: str, kind=(dict, list), *, optional: bool = False):
        value = self.get(obj, key, kind, record, field, optional=optional)
        if value is not None:
            check_json(value, file=self.file, record=record, field=f"{field}.{key}")
        return value

    def int_list(self, value, record, field: str) -> list[int] | None:
        if value is None:
            return None
        items = self.value(value, list, record, field)
        for i, item in enumerate(items):
            if type(item) is not int or not INT32[0] <= item <= INT32[1]:
                raise self.fail("expected a list of turn numbers", record, f"{field}[{i}]")
        return items


def archive_document(raw: bytes, display: str) -> dict:
    """The archive's JSON document from zip bytes, within the archive limits."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except ZIP_ERRORS as exc:
        raise InputError(display, N_("not a project archive (a zip): %(exc)s"), params={"exc": exc}) from None
    with archive:
        check_listing(archive.infolist(), display, archive_limits())
        try:
            content = archive.read(ARCHIVE_MEMBER)
        except KeyError:
            raise InputError(
                display,
                N_("has no %(ARCHIVE_MEMBER)s; is it a project archive?"),
                params={"ARCHIVE_MEMBER": ARCHIVE_MEMBER},
            ) from None
        except ZIP_ERRORS as exc:
            raise InputError(
                f"{display}:{ARCHIVE_MEMBER}", N_("cannot be read from the zip: %(exc)s"), params={"exc": exc}
            ) from None
    try:
        document = json.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{display}:{ARCHIVE_MEMBER}", N_("malformed JSON: %(exc)s"), params={"exc": exc}) from None
    except RecursionError:
        raise InputError(f"{display}:{ARCHIVE_MEMBER}", N_("malformed JSON: nested too deeply to read")) from None
    if not isinstance(document, dict) or document.get("format") != ARCHIVE_FORMAT:
        raise InputError(
            display,
            N_("not a project archive (expected format %(ARCHIVE_FORMAT)s)"),
            field="format",
            params={"ARCHIVE_FORMAT": repr(ARCHIVE_FORMAT)},
        )
    if document.get("version") != ARCHIVE_VERSION:
        found = document.get("version")
        raise InputError(
            display,
            N_("archive version %(found)s; this version reads %(ARCHIVE_VERSION)s"),
            field="version",
            params={"found": repr(found), "ARCHIVE_VERSION": ARCHIVE_VERSION},
        )
    return document


def project_archive_import(*, raw: bytes, display: str = "archive", slug: str | None = None) -> Project:
    """Create the archived project (under ``slug`` if given) with everything in it, or raise ``InputError``."""
    document = archive_document(raw, display)
    r = _Reader(f"{display}:{ARCHIVE_MEMBER}")
    try:
        with transaction.atomic():
            return _import(r, document, slug)
    except DatabaseError as exc:  # a constraint the checks above did not foresee: still a clear refusal
        raise InputError(display, f"cannot be stored: {exc}".splitlines()[0]) from None


def _import(r: _Reader, document: dict, slug: str | None) -> Project:
    meta = r.get(document, "project", dict, None, "")
    slug = slug or r.text(meta, "slug", None, "project", model=Project)
    check_text(slug, file=r.file, record=None, field="slug", max_length=Project._meta.get_field("slug").max_length)
    if not slug or not all(c.isascii() and (c.isalnum() or c in "-_") for c in slug):
        raise r.fail(f"{slug!r} is not a slug (letters, digits, - and _)", None, "project.slug")
    if Project.objects.filter(slug=slug).exists():
        raise InputError(
            r.file,
            N_("a project %(slug)s already exists; import it under another --slug"),
            field="slug",
            params={"slug": repr(slug)},
        )
    preset = r.get(meta, "preset", str, None, "project")
    if preset not in PRESETS:
        raise r.fail(f"unknown preset {preset!r}; this instance has {', '.join(PRESETS)}", None, "project.preset")
    project = Project.objects.create(
        slug=slug,
        preset=preset,
        name=r.text(meta, "name", None, "project", model=Project),
        guidelines=r.text(meta, "guidelines", None, "project"),
        annotators_per_dialogue=r.integer(meta, "annotators_per_dialogue", None, "project", SMALL),
    )
    project.created_at = r.time(meta, "created_at", None, "project")
    Project.objects.filter(pk=project.pk).update(created_at=project.created_at)

    criteria = _criteria(r, document, project)
    users = _users(r, document)
    members = r.get(document, "members", list, None, "")
    Membership.objects.bulk_create(
        Membership(
            project=project,
            user_id=users[r.get(m, "username", str, None, f"members[{i}]")],
            role=r.choice(m, "role", Role.choices, None, f"members[{i}]"),
            imported=r.get(m, "imported", bool, None, f"members[{i}]"),
            source_key=r.text(m, "source_key", None, f"members[{i}]", model=Membership),
            rank=r.integer(m, "rank", None, f"members[{i}]"),
            active=r.get(m, "active", bool, None, f"members[{i}]"),
        )
        for i, m in enumerate(members)
    )
    dialogues, shapes = _dialogues(r, document, project)
    assignments = _assignments(r, document, dialogues, users)
    _judgements(r, document, assignments, criteria, shapes)
    _gold_counts(r, document, dialogues, criteria, shapes)
    _runs(r, document, project)
    return project


def _criteria(r: _Reader, document: dict, project: Project) -> dict[str, Criterion]:
    rows = []
    for i, c in enumerate(r.get(document, "criteria", list, None, "")):
        where = f"criteria[{i}]"
        values = r.json(c, "values", None, where, list)
        for v, value in enumerate(values):
            r.text(r.value(value, dict, None, f"{where}.values[{v}]"), "value", None, f"{where}.values[{v}]")
        rows.append(
            Criterion(
                project=project,
                key=r.text(c, "key", None, where, model=Criterion),
                label=r.text(c, "label", None, where, model=Criterion),
                question=r.text(c, "question", None, where),
                unit=r.choice(c, "unit", Unit.choices, None, where),
                values=values,
                level=r.choice(c, "level", Level.choices, None, where),
                speaker=r.text(c, "speaker", None, where, model=Criterion),
                position=r.integer(c, "position", None, where, SMALL),
            )
        )
    if len({c.key for c in rows}) != len(rows):
        raise r.fail("two criteria share a key", None, "criteria")
    return {c.key: c for c in Criterion.objects.bulk_create(rows)}


def _users(r: _Reader, document: dict) -> dict[str, int]:
    """username -> user id for every member and annotator; missing accounts are created without a password."""
    User = get_user_model()
    limit = User._meta.get_field(User.USERNAME_FIELD).max_length
    names: dict[str, None] = {}
    for i, m in enumerate(r.get(document, "members", list, None, "")):
        names[r.text(m, "username", None, f"members[{i}]")] = None
    for i, a in enumerate(r.get(document, "assignments", list, None, "")):
        names[r.text(a, "annotator", None, f"assignments[{i}]")] = None
    for name in names:
        check_text(name, file=r.file, record=None, field="username", max_length=limit)
        if not name.strip():
            raise r.fail("a username is empty", None, "username")
    existing = dict(User.objects.filter(username__in=list(names)).values_list("username", "pk"))
    missing = [n for n in names if n not in existing]
    User.objects.bulk_create(User(username=n, password=make_password(None)) for n in missing)
    existing.update(User.objects.filter(username__in=missing).values_list("username", "pk"))
    return existing


def _dialogues(r: _Reader, document: dict, project: Project) -> tuple[dict[str, Dialogue], dict]:
    records = r.get(document, "dialogues", list, None, "")
    rows, posts_of, created, shapes = [], [], [], {}
    for i, d in enumerate(records):
        external_id = r.text(d, "external_id", f"#{i}", "", model=Dialogue)
        if external_id in shapes:
            raise r.fail("appears twice", external_id, "external_id")
        rows.append(
            Dialogue(
                project=project,
                external_id=external_id,
                language=r.text(d, "language", external_id, "", model=Dialogue),
                source_meta=r.json(d, "source_meta", external_id, "", dict),
                position=r.integer(d, "position", external_id, ""),
            )
        )
        created.append(r.time(d, "created_at", external_id, ""))
        posts = []
        for p, post in enumerate(r.get(d, "posts", list, external_id, "")):
            where = f"posts[{p}]"
            posts.append(
                Post(
                    position=r.integer(post, "position", external_id, where),
                    speaker=r.text(post, "speaker", external_id, where, model=Post),
                    text=r.text(post, "text", external_id, where),
                    utterance_block=r.integer(post, "utterance_block", external_id, where),
                    source_turn_index=r.integer(
                        post, "source_turn_index", external_id, where, (-(2**31), 2**31 - 1), optional=True
                    ),
                    source_annotated=r.get(post, "source_annotated", bool, external_id, where, optional=True),
                    source_meta=r.json(post, "source_meta", external_id, where, dict),
                )
            )
        if sorted(p.position for p in posts) != list(range(len(posts))):
            raise r.fail("post positions must be 0, 1, 2, ...", external_id, "posts")
        ordered = sorted(posts, key=lambda p: p.position)
        speakers = [p.speaker for p in ordered]
        blocks = utterance_blocks(speakers)
        shapes[external_id] = DialogueShape.of_posts(zip(speakers, blocks, (p.source_annotated for p in ordered)))
        posts_of.append(posts)
    dialogues = Dialogue.objects.bulk_create(rows, batch_size=2000)
    for dialogue, when in zip(dialogues, created):
        dialogue.created_at = when
    Dialogue.objects.bulk_update(dialogues, ["created_at"], batch_size=2000)
    for dialogue, posts in zip(dialogues, posts_of):
        for post in posts:
            post.dialogue_id = dialogue.pk
    Post.objects.bulk_create([p for posts in posts_of for p in posts], batch_size=2000)
    return {d.external_id: d for d in dialogues}, shapes


def _assignments(r: _Reader, document: dict, dialogues: dict[str, Dialogue], users: dict[str, int]) -> list:
    rows, reorderings, seen, of_dialogue = [], [], set(), []
    for i, a in enumerate(r.get(document, "assignments", list, None, "")):
        where = f"assignments[{i}]"
        external_id = r.get(a, "dialogue", str, None, where)
        if external_id not in dialogues:
            raise r.fail(f"dialogue {external_id[:40]!r} is not in the archive", None, f"{where}.dialogue")
        annotator = r.get(a, "annotator", str, None, where)
        if (annotator, external_id) in seen:
            raise r.fail(f"{annotator} has two assignments of this dialogue", external_id, where)
        seen.add((annotator, external_id))
        of_dialogue.append(external_id)
        rows.append(
            Assignment(
                annotator_id=users[annotator],
                dialogue_id=dialogues[external_id].pk,
                status=r.choice(a, "status", AssignmentStatus.choices, external_id, where),
                imported=r.get(a, "imported", bool, external_id, where),
                started_at=r.time(a, "started_at", external_id, where, optional=True),
                submitted_at=r.time(a, "submitted_at", external_id, where, optional=True),
                seconds_spent=r.integer(a, "seconds_spent", external_id, where),
                shown_order=r.int_list(a.get("shown_order"), external_id, f"{where}.shown_order"),
                permutation_set=r.integer(a, "permutation_set", external_id, where, SMALL, optional=True),
                queue_rank=r.integer(a, "queue_rank", external_id, where),
                version=r.integer(a, "version", external_id, where, optional=True) or 0,
                reopen_reason=r.get(a, "reopen_reason", str, external_id, where, optional=True) or "",
            )
        )
        reordering = r.get(a, "reordering", dict, external_id, where, optional=True)
        if reordering is not None:
            order = r.int_list(r.get(reordering, "submitted_order", list, external_id, where), external_id, where)
            reorderings.append((i, order, r.time(reordering, "updated_at", external_id, f"{where}.reordering")))
    assignments = Assignment.objects.bulk_create(rows, batch_size=2000)
    made = Reordering.objects.bulk_create(
        Reordering(assignment_id=assignments[i].pk, submitted_order=order) for i, order, _when in reorderings
    )
    for reordering, (_i, _order, when) in zip(made, reorderings):
        reordering.updated_at = when
    Reordering.objects.bulk_update(made, ["updated_at"], batch_size=2000)
    return list(zip(assignments, of_dialogue))


def _check_unit(r: _Reader, criterion: Criterion, unit: int, value: str, shape, record: str, field: str) -> None:
    try:
        check_value(criterion, unit_speaker(criterion, unit, shape, rule=unit_rule(criterion.project.preset)), value)
    except UnitError as exc:
        raise r.fail(str(exc), record, field) from None


def _row(r: _Reader, row, length: int, field: str) -> list:
    if not isinstance(row, list) or len(row) != length:
        raise r.fail(f"expected a list of {length} values", None, field)
    return row


def _judgements(r: _Reader, document: dict, assignments: list, criteria: dict[str, Criterion], shapes) -> None:
    """Inserted with the archived times (plain INSERTs: ``updated_at`` would otherwise be set to now)."""
    prepared, seen = [], set()
    fields = [Judgement._meta.get_field(n) for n in ("assignment", "criterion", "unit", "value", "extra", "updated_at")]
    for i, row in enumerate(r.get(document, "judgements", list, None, "")):
        where = f"judgements[{i}]"
        index, key, unit, value, extra, updated = _row(r, row, 6, where)
        index = r.value(index, int, None, f"{where}[0]")
        if not 0 <= index < len(assignments):
            raise r.fail(f"assignment {index} is not in the archive", None, f"{where}[0]")
        assignment, external_id = assignments[index]
        criterion = criteria.get(r.value(key, str, external_id, f"{where}[1]"))
        if criterion is None:
            raise r.fail(f"criterion {key[:40]!r} is not in the archive", external_id, f"{where}[1]")
        unit = r.value(unit, int, external_id, f"{where}[2]")
        value = r.value(value, str, external_id, f"{where}[3]")
        check_text(value, file=r.file, record=external_id, field=where)
        _check_unit(r, criterion, unit, value, shapes[external_id], external_id, where)
        if (index, key, unit) in seen:
            raise r.fail("the same unit is judged twice in one assignment", external_id, where)
        seen.add((index, key, unit))
        if extra is not None:
            check_json(r.value(extra, dict, external_id, f"{where}[4]"), file=r.file, record=external_id, field=where)
        when = r.time({"t": r.value(updated, str, external_id, f"{where}[5]")}, "t", external_id, where)
        values = (assignment.pk, criterion.pk, unit, value, extra, when)
        prepared.append([f.get_db_prep_save(v, connection) for f, v in zip(fields, values)])
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    table = connection.ops.quote_name(Judgement._meta.db_table)
    with connection.cursor() as cursor:
        for start in range(0, len(prepared), 1000):
            batch = prepared[start : start + 1000]
            cursor.execute(
                f"INSERT INTO {table} ({columns}) VALUES " + ", ".join(["(%s, %s, %s, %s, %s, %s)"] * len(batch)),
                [v for row in batch for v in row],
            )


def _gold_counts(r: _Reader, document: dict, dialogues, criteria, shapes) -> None:
    rows = []
    for i, row in enumerate(r.get(document, "gold_counts", list, None, "")):
        where = f"gold_counts[{i}]"
        external_id, key, unit, value, count, n = _row(r, row, 6, where)
        if not isinstance(external_id, str) or external_id not in dialogues:
            raise r.fail("the dialogue is not in the archive", None, f"{where}[0]")
        criterion = criteria.get(key) if isinstance(key, str) else None
        if criterion is None:
            raise r.fail("the criterion is not in the archive", external_id, f"{where}[1]")
        unit = r.value(unit, int, external_id, f"{where}[2]")
        value = r.value(value, str, external_id, f"{where}[3]")
        _check_unit(r, criterion, unit, value, shapes[external_id], external_id, where)
        counts = [r.value(x, int, external_id, f"{where}[{4 + k}]") for k, x in enumerate((count, n))]
        if not all(INT32[0] <= x <= INT32[1] for x in counts):
            raise r.fail("a count is out of range", external_id, where)
        rows.append(GoldCount(dialogue=dialogues[external_id], criterion=criterion, unit=unit, value=value,
                              count=counts[0], n_annotators=counts[1]))  # fmt: skip
    GoldCount.objects.bulk_create(rows, batch_size=2000)


def _runs(r: _Reader, document: dict, project: Project) -> None:
    names = set()
    for i, run in enumerate(r.get(document, "runs", list, None, "")):
        where = f"runs[{i}]"
        name = r.text(run, "name", None, where, model=Run)
        if name in names:
            raise r.fail("two runs share a name", name, f"{where}.name")
        names.add(name)
        source = r.get(run, "source", str, name, where, optional=True)
        try:
            source = None if source is None else base64.b64decode(source, validate=True)
        except (binascii.Error, ValueError):
            raise r.fail("is not base64", name, f"{where}.source") from None
        made = Run.objects.create(
            project=project,
            name=name,
            kind=r.choice(run, "kind", RunKind.choices, name, where),
            status=r.choice(run, "status", RunStatus.choices, name, where),
            error=r.text(run, "error", name, where),
            source=source,
            source_name=r.text(run, "source_name", name, where, model=Run),
            options=r.json(run, "options", name, where, dict),
            scores=r.json(run, "scores", name, where, dict),
            per_dialogue=r.json(run, "per_dialogue", name, where, dict),
            scored_at=r.time(run, "scored_at", name, where, optional=True),
        )
        Run.objects.filter(pk=made.pk).update(created_at=r.time(run, "created_at", name, where))


def project_archive_import_path(*, path: Path | str, slug: str | None = None) -> Project:
    path = Path(path)
    if not path.is_file():
        raise InputError(str(path), N_("does not exist"))
    return project_archive_import(raw=path.read_bytes(), display=str(path), slug=slug)
