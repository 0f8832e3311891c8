"""Restoring a project from its archive (``evaluation.archive``): all of it, or nothing.

Every value is checked before anything is written, the way collection imports are: types and
choices, text that fits its column (``annotator.importers.limits``), references between the parts
(a judgement's assignment, an assignment's dialogue), and judgement values against the criteria and
the dialogue's units. A bad archive raises ``InputError`` naming the file, the record and the field
(``scoring.input``).

People are matched by username as the members page adds them (``accounts_addable``): an existing
account the importing lead may add (its owner agreed to be found by leads, or it is a member of a
project the lead leads; any account for staff and for ``manage.py import_project``) becomes a member
with the archived role; a missing one is created without a usable password (an administrator sets
one, or the person resets it). Any other existing account - and a superuser always: no import grants
a superuser a role - is left alone: the person becomes an imported annotator of the new project
(``annotator.services.imports.annotators``) whose judgements are kept under the archived name.
Times are kept as archived.
"""

from __future__ import annotations

import base64
import binascii
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import AbstractBaseUser
from django.db import DatabaseError, connection, transaction

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
    Membership,
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
from annotator.services.accounts import accounts_addable
from annotator.services.blocks import utterance_blocks
from annotator.services.imports.annotators import imported_annotators_create
from annotator.units import UnitError, check_value, unit_speaker
from evaluation.archive import ARCHIVE_MEMBER
from evaluation.archive.reader import archive_document
from evaluation.models import Run, RunKind, RunStatus
from scoring.errors import N_, InputError
from scoring.input import Record

INT32 = (0, 2_147_483_647)
SMALL = (0, 32_767)


def _max(model, column: str) -> int:
    return model._meta.get_field(column).max_length


def project_archive_import(
    *, raw: bytes, display: str = "archive", slug: str | None = None, actor: AbstractBaseUser | None = None
) -> Project:
    """Create the archived project (under ``slug`` if given) with everything in it, or raise ``InputError``.

    ``actor`` is the lead importing it (None: the operator, ``manage.py import_project``); the people the
    archive names are mapped as the module's docstring says."""
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


def _import(r: Record, document: dict, slug: str | None, actor: AbstractBaseUser | None) -> Project:
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
    project = Project.objects.create(
        slug=slug,
        preset=preset,
        scheme=kept or scheme_document(PRESETS[preset]),
        scheme_version=r.integer(meta, "scheme_version", "project", bounds=INT32, optional=True) or 1,
        name=r.text(meta, "name", "project", max_length=_max(Project, "name")),
        guidelines=r.text(meta, "guidelines", "project"),
        annotators_per_dialogue=r.integer(meta, "annotators_per_dialogue", "project", bounds=SMALL),
    )
    project.created_at = r.time(meta, "created_at", "project")
    Project.objects.filter(pk=project.pk).update(created_at=project.created_at)
    criteria = _criteria(r, document, project)
    users = _members(r, document, project, actor)
    dialogues, shapes = _dialogues(r, document, project, comparison=project_scheme(project).comparison is not None)
    assignments = _assignments(r, document, dialogues, users)
    _judgements(r, document, assignments, criteria, shapes)
    _gold_counts(r, document, dialogues, criteria, shapes)
    _runs(r, document, project)
    return project


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


def _members(r: Record, document: dict, project: Project, actor: AbstractBaseUser | None) -> dict[str, int]:
    """The archived members, and the annotators of its assignments, mapped to accounts as the module's
    docstring says; username -> user id for each."""
    User = get_user_model()
    limit = User._meta.get_field(User.USERNAME_FIELD).max_length
    members: dict[str, Membership] = {}
    for i, m in enumerate(r.field(document, "members", list)):
        where = f"members[{i}]"
        name = r.text(m, "username", where, max_length=limit, non_empty=True)
        members[name] = Membership(
            project=project,
            role=r.choice(m, "role", Role.values, where),
            imported=r.field(m, "imported", bool, where),
            source_key=r.text(m, "source_key", where, max_length=_max(Membership, "source_key")),
            rank=r.integer(m, "rank", where, bounds=INT32),
            active=r.field(m, "active", bool, where),
        )
    names = dict.fromkeys(members)
    for i, a in enumerate(r.field(document, "assignments", list)):
        names[r.text(a, "annotator", f"assignments[{i}]", max_length=limit, non_empty=True)] = None
    existing = dict(User.objects.filter(username__in=list(names)).values_list("username", "pk"))
    mappable = accounts_addable(actor=actor).filter(pk__in=existing.values(), is_superuser=False)
    live = set(mappable.values_list("username", flat=True))
    missing = [n for n in names if n not in existing]
    User.objects.bulk_create(User(username=n, password=make_password(None)) for n in missing)
    existing.update(User.objects.filter(username__in=missing).values_list("username", "pk"))
    live.update(missing)
    users = {n: existing[n] for n in live}
    for name, membership in members.items():
        if name in live:
            membership.user_id = users[name]
    Membership.objects.bulk_create(m for name, m in members.items() if name in live)
    # the others: imported annotators under the archived name (an imported member keeps its source key)
    kept = [n for n in names if n not in live]
    keys = {
        n: (members[n].source_key if n in members and members[n].imported and members[n].source_key else n)[:100]
        for n in kept
    }
    if len(set(keys.values())) < len(keys):
        keys = {n: n[:100] for n in kept}
    rank = max((m.rank for m in members.values()), default=0) + 1
    ids = imported_annotators_create(project=project, keys=list(keys.values()), first_rank=rank)
    users.update({n: ids[keys[n]] for n in kept})
    return users


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


def _dialogues(r: Record, document: dict, project: Project, *, comparison: bool) -> tuple[dict[str, Dialogue], dict]:
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


def _assignment(at: Record, a: dict, where: str, *, annotator_id: int, dialogue_id: int) -> Assignment:
    return Assignment(
        annotator_id=annotator_id,
        dialogue_id=dialogue_id,
        status=at.choice(a, "status", AssignmentStatus.values, where),
        imported=at.field(a, "imported", bool, where),
        started_at=at.time(a, "started_at", where, optional=True),
        submitted_at=at.time(a, "submitted_at", where, optional=True),
        seconds_spent=at.integer(a, "seconds_spent", where, bounds=INT32),
        shown_order=at.items(a, "shown_order", int, where, bounds=INT32, optional=True),
        permutation_set=at.integer(a, "permutation_set", where, bounds=SMALL, optional=True),
        queue_rank=at.integer(a, "queue_rank", where, bounds=INT32),
        version=at.integer(a, "version", where, bounds=INT32, optional=True) or 0,
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


def _assignments(r: Record, document: dict, dialogues: dict[str, Dialogue], users: dict[str, int]) -> list:
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
        rows.append(_assignment(at, a, where, **ids))
        reordering = at.field(a, "reordering", dict, where, optional=True)
        if reordering is not None:
            order = at.items(reordering, "submitted_order", int, f"{where}.reordering", bounds=INT32)
            kept = at.field(reordering, "kept_shown_order", bool, f"{where}.reordering", optional=True) or False
            reorderings.append((i, order, at.time(reordering, "updated_at", f"{where}.reordering"), kept))
    assignments = Assignment.objects.bulk_create(rows, batch_size=2000)
    made = Reordering.objects.bulk_create(
        Reordering(assignment_id=assignments[i].pk, submitted_order=order, kept_shown_order=kept)
        for i, order, _when, kept in reorderings
    )
    for reordering, (_i, _order, when, _kept) in zip(made, reorderings):
        reordering.updated_at = when
    Reordering.objects.bulk_update(made, ["updated_at"], batch_size=2000)
    return list(zip(assignments, of_dialogue))


def _check_unit(at: Record, criterion: Criterion, unit: int, value: str, shape, field: str) -> None:
    try:
        check_value(criterion, unit_speaker(criterion, unit, shape), value)
    except UnitError as exc:
        raise at.error(str(exc), field) from None


def _row(r: Record, row, length: int, field: str, *, optional: int = 0) -> list:
    """``row`` if it is a list of ``length`` values (up to ``optional`` more allowed); absent ones are None."""
    if not isinstance(row, list) or not length <= len(row) <= length + optional:
        raise r.error(N_("expected a list of %(length)s values"), field, length=length)
    return row + [None] * (length + optional - len(row))


def _judgement(r: Record, row, where: str, assignments: list, criteria: dict[str, Criterion], shapes) -> tuple:
    """One judgement row checked: its assignment, criterion, unit, value, extra, time and (comparison items)
    the candidate shown first."""
    index, key, unit, value, extra, updated, shown = _row(r, row, 6, where, optional=1)
    index = r.value(index, int, f"{where}[0]")
    if not 0 <= index < len(assignments):
        raise r.error(N_("assignment %(index)s is not in the archive"), f"{where}[0]", index=index)
    assignment, external_id = assignments[index]
    at = r.at(external_id)
    criterion = criteria.get(at.value(key, str, f"{where}[1]"))
    if criterion is None:
        raise at.error(N_("criterion %(key)s is not in the archive"), f"{where}[1]", key=repr(key[:40]))
    unit = at.value(unit, int, f"{where}[2]")
    value = at.check_text(at.value(value, str, f"{where}[3]"), where)
    _check_unit(at, criterion, unit, value, shapes[external_id], where)
    if extra is not None:
        at.check_json(at.value(extra, dict, f"{where}[4]"), where)
    when = at.time({"t": at.value(updated, str, f"{where}[5]")}, "t", where)
    shown = _shown_first(at, at.value(shown, str, f"{where}[6]", optional=True), f"{where}[6]")
    return assignment, criterion, unit, value, extra, when, shown


def _judgements(r: Record, document: dict, assignments: list, criteria: dict[str, Criterion], shapes) -> None:
    """Inserted with the archived times (plain INSERTs: ``updated_at`` would otherwise be set to now)."""
    prepared, seen = [], set()
    names = ("assignment", "criterion", "unit", "value", "extra", "updated_at", "shown_first")
    fields = [Judgement._meta.get_field(n) for n in names]
    for i, row in enumerate(r.field(document, "judgements", list)):
        assignment, criterion, unit, value, extra, when, shown = _judgement(
            r, row, f"judgements[{i}]", assignments, criteria, shapes
        )
        if (assignment.pk, criterion.pk, unit) in seen:
            message = N_("the same unit is judged twice in one assignment")
            raise r.at(assignments[row[0]][1]).error(message, f"judgements[{i}]")
        seen.add((assignment.pk, criterion.pk, unit))
        values = (assignment.pk, criterion.pk, unit, value, extra, when, shown)
        prepared.append([f.get_db_prep_save(v, connection) for f, v in zip(fields, values)])
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    table = connection.ops.quote_name(Judgement._meta.db_table)
    with connection.cursor() as cursor:
        for start in range(0, len(prepared), 1000):
            batch = prepared[start : start + 1000]
            cursor.execute(
                f"INSERT INTO {table} ({columns}) VALUES " + ", ".join(["(%s, %s, %s, %s, %s, %s, %s)"] * len(batch)),
                [v for row in batch for v in row],
            )


def _gold_counts(r: Record, document: dict, dialogues, criteria, shapes) -> None:
    rows = []
    for i, row in enumerate(r.field(document, "gold_counts", list)):
        where = f"gold_counts[{i}]"
        external_id, key, unit, value, count, n = _row(r, row, 6, where)
        if not isinstance(external_id, str) or external_id not in dialogues:
            raise r.error(N_("the dialogue is not in the archive"), f"{where}[0]")
        at = r.at(external_id)
        criterion = criteria.get(key) if isinstance(key, str) else None
        if criterion is None:
            raise at.error(N_("the criterion is not in the archive"), f"{where}[1]")
        unit = at.value(unit, int, f"{where}[2]")
        value = at.value(value, str, f"{where}[3]")
        _check_unit(at, criterion, unit, value, shapes[external_id], where)
        counts = [at.check_int(at.value(x, int, f"{where}[{4 + k}]"), where, INT32) for k, x in enumerate((count, n))]
        rows.append(
            GoldCount(
                dialogue=dialogues[external_id],
                criterion=criterion,
                unit=unit,
                value=value,
                count=counts[0],
                n_annotators=counts[1],
            )
        )
    GoldCount.objects.bulk_create(rows, batch_size=2000)


def _run_source(at: Record, run: dict, where: str) -> bytes | None:
    source = at.field(run, "source", str, where, optional=True)
    try:
        return None if source is None else base64.b64decode(source, validate=True)
    except (binascii.Error, ValueError):
        raise at.error(N_("is not base64"), f"{where}.source") from None


def _runs(r: Record, document: dict, project: Project) -> None:
    names = set()
    for i, run in enumerate(r.field(document, "runs", list)):
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
        )
        Run.objects.filter(pk=made.pk).update(created_at=at.time(run, "created_at", where))


def project_archive_import_path(*, path: Path | str, slug: str | None = None) -> Project:
    path = Path(path)
    if not path.is_file():
        raise InputError(str(path), N_("does not exist"))
    return project_archive_import(raw=path.read_bytes(), display=str(path), slug=slug)
