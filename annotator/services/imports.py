"""Importing collections into a project: check against the project, then write in bulk, all or nothing."""

from __future__ import annotations

import io
import json
import re
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone

from annotator.importers import InputError, ParsedDialogue, read_sources
from annotator.models import (
    Assignment,
    AssignmentStatus,
    Criterion,
    Dialogue,
    GoldCount,
    ImportBatch,
    ImportStatus,
    Judgement,
    Membership,
    Post,
    Project,
    Role,
)
from annotator.presets import PRESETS
from annotator.selectors.structure import DialogueShape
from annotator.services.blocks import utterance_blocks
from annotator.services.import_fit import dialogue_fit_check
from annotator.units import UnitError, check_value, unit_rule, unit_speaker
from scoring.errors import N_


@dataclass(frozen=True)
class ImportReport:
    dialogues: int
    posts: int
    judgements: int
    gold_counts: int
    annotators_created: int
    batch_id: int | None = None


@dataclass(frozen=True)
class ImportProgress:
    """Where an import is: dialogues read and checked, then dialogues and rows written (of ``total``)."""

    read: int = 0
    total: int | None = None
    written: int = 0
    rows: int = 0
    final: bool = False


class _Progress:
    """Calls ``report`` with the counts so far, at most every ``every`` seconds and at each phase's end."""

    def __init__(self, report: Callable[[ImportProgress], None] | None, every: float = 0.5):
        self.report, self.every, self.last = report, every, 0.0
        self.state = ImportProgress()

    def update(self, *, final: bool = False, **counts) -> None:
        self.state = ImportProgress(**{**self.state.__dict__, **counts, "final": final})
        now = time.monotonic()
        if self.report is not None and (final or now - self.last >= self.every):
            self.last = now
            self.report(self.state)


_COPY_SPECIAL = re.compile(r"[\\\t\n\r]")


def _copy_text(value: str | None) -> str:
    """A text field in PostgreSQL's COPY text format: ``\\N`` for null, backslash escapes where needed."""
    if value is None:
        return "\\N"
    if _COPY_SPECIAL.search(value) is None:
        return value
    return value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def _copy_json(value) -> str:
    return "\\N" if value is None else _copy_text(json.dumps(value))


def _copy_int(value: int | None) -> str:
    return "\\N" if value is None else str(int(value))


def _copy_rows(model, columns: Sequence[str], lines: Iterable[str]) -> None:
    """Insert ``lines`` (rows of ``columns`` in COPY text format, each ending in a newline) through
    ``COPY ... FROM STDIN`` (PostgreSQL only).

    An import writes millions of rows (50 million fields for ten times STC-3): COPY takes them several
    times faster than the INSERTs the ORM builds from model instances, which other databases get.
    """
    with connection.cursor() as cursor:
        cursor.copy_expert(
            f"COPY {model._meta.db_table} ({', '.join(columns)}) FROM STDIN", io.StringIO("".join(lines))
        )


def _next_ids(model, n: int) -> list[int]:
    """``n`` ids taken from the table's sequence (PostgreSQL), for rows written by ``_copy_rows``."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)", [model._meta.db_table, n]
        )
        return [row[0] for row in cursor.fetchall()]


def _posts_insert(posts: list[Post]) -> None:
    if connection.vendor != "postgresql":
        Post.objects.bulk_create(posts, batch_size=2000)
        return
    flag = {None: "\\N", True: "t", False: "f"}
    # source_meta as the ORM stores it: JSON, ``null`` included (the column is not nullable)
    _copy_rows(
        Post,
        (
            "dialogue_id", "position", "speaker", "text", "utterance_block", "source_turn_index", "source_meta",
            "source_annotated",
        ),
        (
            f"{p.dialogue_id}\t{p.position}\t{_copy_text(p.speaker)}\t{_copy_text(p.text)}\t{p.utterance_block}\t"
            f"{_copy_int(p.source_turn_index)}\t{_copy_text(json.dumps(p.source_meta))}\t{flag[p.source_annotated]}\n"
            for p in posts
        ),
    )  # fmt: skip


def _assignments_insert(pairs: list[tuple[int, int]], now) -> list[int]:
    """Imported assignments, submitted ``now``, of (annotator id, dialogue id) ``pairs``; returns their ids."""
    if connection.vendor != "postgresql":
        made = Assignment.objects.bulk_create(
            (
                Assignment(
                    annotator_id=annotator_id,
                    dialogue_id=dialogue_id,
                    imported=True,
                    status=AssignmentStatus.SUBMITTED,
                    submitted_at=now,
                )
                for annotator_id, dialogue_id in pairs
            ),
            batch_size=2000,
        )
        return [a.pk for a in made]
    ids = _next_ids(Assignment, len(pairs))
    fixed = f"\t{AssignmentStatus.SUBMITTED}\tt\t{now.isoformat()}\t0\t0\t0\t\n"  # seconds, rank, version, reason
    _copy_rows(
        Assignment,
        ("id", "annotator_id", "dialogue_id", "status", "imported", "submitted_at", "seconds_spent", "queue_rank",
         "version", "reopen_reason"),
        (f"{pk}\t{annotator_id}\t{dialogue_id}{fixed}" for pk, (annotator_id, dialogue_id) in zip(ids, pairs)),
    )  # fmt: skip
    return ids


def _judgements_insert(rows: list[tuple[int, int, int, str, dict | None]], now) -> None:
    """Insert (assignment id, criterion id, unit, value, extra) rows stamped ``now``."""
    if connection.vendor != "postgresql":
        Judgement.objects.bulk_create(
            (Judgement(assignment_id=a, criterion_id=c, unit=u, value=v, extra=e) for a, c, u, v, e in rows),
            batch_size=5000,
        )
        return
    stamp = now.isoformat()
    _copy_rows(
        Judgement,
        ("assignment_id", "criterion_id", "unit", "value", "extra", "updated_at"),
        (f"{a}\t{c}\t{u}\t{_copy_text(v)}\t{_copy_json(e)}\t{stamp}\n" for a, c, u, v, e in rows),
    )


def dialogues_import(
    *,
    project: Project,
    paths: Sequence[Path | str],
    fmt: str = "auto",
    language: str | None = None,
    batch_size: int = 250,
    batch: ImportBatch | None = None,
    user=None,
    progress: Callable[[ImportProgress], None] | None = None,
) -> ImportReport:
    """Import every dialogue in ``paths`` into ``project``, or nothing.

    Two passes over the sources. The first reads every dialogue and checks it against the
    project (``_BatchWriter.validate``: the preset's speakers and units, the format, the criteria and
    their scales, ids already in the project) and writes nothing. The second reads them again as a
    stream and writes them in batches of ``batch_size`` dialogues inside one transaction, so memory
    stays bounded and any error (``InputError``, naming the file, dialogue and field) leaves the
    database as it was. The dialogues are recorded as ``batch`` (a new ``ImportBatch`` by ``user``
    when none is given); ``progress`` is called with an ``ImportProgress`` as the passes go.
    """
    paths = [Path(p) for p in paths]
    tracker = _Progress(progress)
    checker = _BatchWriter(project, format_chosen=fmt != "auto")
    formats: set[str] = set()
    for parsed in read_sources(paths, fmt, language):
        checker.validate(parsed)
        formats.add(parsed.source_meta.get("format", fmt))
        tracker.update(read=tracker.state.read + 1)
    if not checker.seen_new:
        raise InputError(", ".join(map(str, paths)), N_("contains no dialogues"))
    tracker.update(total=tracker.state.read, final=True)
    with transaction.atomic():
        Project.objects.select_for_update().filter(pk=project.pk).first()  # one import or removal at a time
        if batch is None:
            batch = ImportBatch.objects.create(
                project=project,
                created_by=user,
                file_names=", ".join(p.name for p in paths)[:500],
                requested_format=fmt,
                language=language or "",
                status=ImportStatus.RUNNING,
                started_at=timezone.now(),
            )
        writer = _BatchWriter(project, format_chosen=fmt != "auto", batch=batch)
        pending: list[ParsedDialogue] = []
        for parsed in read_sources(paths, fmt, language):
            pending.append(parsed)
            if len(pending) >= batch_size:
                writer.write(pending)
                pending = []
                tracker.update(written=writer.dialogues, rows=writer.rows)
        if pending:
            writer.write(pending)
        report = ImportReport(
            writer.dialogues, writer.posts, writer.judgements, writer.gold_counts, writer.annotators_created, batch.pk
        )
        ImportBatch.objects.filter(pk=batch.pk).update(
            status=ImportStatus.DONE,
            format=", ".join(sorted(formats))[:40],
            dialogues_read=tracker.state.read,
            dialogues_total=tracker.state.read,
            dialogues_written=writer.dialogues,
            rows_written=writer.rows,
            posts=writer.posts,
            judgements=writer.judgements,
            gold_counts=writer.gold_counts,
            annotators_created=writer.annotators_created,
            finished_at=timezone.now(),
        )
    tracker.update(written=writer.dialogues, rows=writer.rows, final=True)
    planner_statistics_refresh()
    return report


def planner_statistics_refresh() -> None:
    """ANALYZE the tables an import fills (PostgreSQL; other databases need nothing).

    An import can grow them a hundredfold at once; until autovacuum notices, the planner keeps the
    old row counts and reads them with nested loops (the gold counts of the STC-3 training set:
    1.0 s instead of 0.5 s). Sampling them takes about 0.2 s after the largest import.
    """
    if connection.vendor != "postgresql":
        return
    tables = ", ".join(m._meta.db_table for m in (Dialogue, Post, Assignment, Judgement, GoldCount, Membership))
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {tables}")


def dialogues_import_upload(
    *, project: Project, uploaded, fmt: str = "auto", language: str | None = None
) -> ImportReport:
    """``dialogues_import`` of an uploaded file, at once (control and training items; lead uploads of
    collections go through import batches, ``annotator.services.import_batches``). The file is kept
    under its own name in a temporary folder, and error messages name it, not the temporary path.
    """
    name = re.sub(r"[^\w.+-]", "_", Path(str(uploaded.name)).name)[-100:].lstrip(".") or "upload"
    upload_check_size(name=name, size=uploaded.size)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        with open(path, "wb") as out:
            for chunk in uploaded.chunks():
                out.write(chunk)
        try:
            return dialogues_import(project=project, paths=[path], fmt=fmt, language=language)
        except InputError as exc:
            exc.file = exc.file.replace(f"{tmp}/", "")
            raise


def upload_check_size(*, name: str, size: int | None) -> None:
    """Refuse an uploaded file larger than ``UPLOAD_MAX_BYTES`` (the middleware refuses larger requests unread)."""
    limit = settings.UPLOAD_MAX_BYTES
    if size is not None and size > limit:
        raise InputError(
            name,
            N_("is %(size)s bytes; uploads are limited to %(limit)s bytes (UPLOAD_MAX_MB)"),
            params={"size": format(size, ","), "limit": format(limit, ",")},
        )


def _safe_username(text: str) -> str:
    return re.sub(r"[^\w.@+-]", "_", text)[:100]


class _BatchWriter:
    """Validates parsed dialogues against the project and bulk-inserts them."""

    def __init__(self, project: Project, *, format_chosen: bool = True, batch: ImportBatch | None = None):
        self.project, self.batch, self.format_chosen = project, batch, format_chosen
        self.spec = PRESETS[project.preset]
        self.criteria: dict[str, Criterion] = {c.key: c for c in project.criteria.all()}
        self.seen_ids: set[str] = set(project.dialogues.values_list("external_id", flat=True))
        self.seen_new = 0
        self.next_position = (project.dialogues.aggregate(m=Max("position"))["m"] or 0) + (1 if self.seen_ids else 0)
        memberships = Membership.objects.filter(project=project, imported=True).values_list("source_key", "user_id")
        self.annotators: dict[str, int] = dict(memberships)
        self.next_rank = (Membership.objects.filter(project=project).aggregate(m=Max("rank"))["m"] or 0) + 1
        self.dialogues = self.posts = self.judgements = self.gold_counts = self.annotators_created = 0
        self.rows = 0  # dialogues, posts, assignments, judgements and gold counts written
        self.now = timezone.now()
        self.rule = unit_rule(project.preset)
        self.allowed: dict[tuple[str, str], frozenset[str]] = {}  # (criterion, speaker) -> the scale's values

    # -- validation -----------------------------------------------------------------------
    def _criterion(self, parsed: ParsedDialogue, key: str, field: str) -> Criterion:
        criterion = self.criteria.get(key)
        if criterion is None:
            raise parsed.fail(
                f"criterion {key!r} is not in project {self.project.slug} (preset {self.project.preset}; "
                f"criteria: {', '.join(self.criteria)})",
                field,
            )
        return criterion

    def _check(
        self,
        parsed: ParsedDialogue,
        key: str,
        unit: int,
        value: str,
        field: str,
        shape: DialogueShape,
        speakers: dict[tuple[str, int], str] | None = None,
    ) -> None:
        """Raise unless ``value`` is on the scale of ``key`` for ``unit``; ``speakers`` memoises the units'
        speakers within one dialogue (19 annotators judge each unit of STC-3), the writer memoises the scales."""
        criterion = self._criterion(parsed, key, field)
        try:
            speaker = speakers.get((key, unit)) if speakers is not None else None
            if speaker is None:
                speaker = unit_speaker(criterion, unit, shape, rule=self.rule)
                if speakers is not None:
                    speakers[(key, unit)] = speaker
            allowed = self.allowed.get((key, speaker))
            if allowed is None:
                allowed = self.allowed[(key, speaker)] = frozenset(
                    criterion.allowed_values(speaker if criterion.speakers else None)
                )
            if value not in allowed:
                check_value(criterion, speaker, value)  # raises, with the message naming the scale
        except UnitError as exc:
            raise parsed.fail(str(exc), field) from None

    def validate(self, parsed: ParsedDialogue) -> list[int]:
        if not parsed.external_id.strip():
            raise parsed.fail("is empty", "id")
        if parsed.external_id in self.seen_ids:
            raise parsed.fail("duplicate dialogue id (already in the project or earlier in this import)", "id")
        if not parsed.posts:
            raise parsed.fail("has no posts", "turns")
        speakers = [p.speaker for p in parsed.posts]
        blocks = utterance_blocks(speakers)
        shape = DialogueShape.of_posts((p.speaker, b, p.annotated) for p, b in zip(parsed.posts, blocks))
        dialogue_fit_check(
            parsed,
            spec=self.spec,
            criteria=list(self.criteria.values()),
            shape=shape,
            rule=self.rule,
            format_chosen=self.format_chosen,
        )
        seen: set[tuple[str, str, int]] = set()
        speakers_of: dict[tuple[str, int], str] = {}
        for j in parsed.judgements:
            self._check(parsed, j.criterion, j.unit, j.value, j.field, shape, speakers_of)
            key = (j.annotator, j.criterion, j.unit)
            if key in seen:
                raise parsed.fail(f"annotator {j.annotator} judged this unit twice", j.field)
            seen.add(key)
        for g in parsed.gold_counts:
            self._check(parsed, g.criterion, g.unit, g.value, g.field, shape)
        self.seen_ids.add(parsed.external_id)
        self.seen_new += 1
        return blocks

    # -- writing --------------------------------------------------------------------------
    def _ensure_annotators(self, keys: Iterable[str]) -> None:
        missing = [k for k in dict.fromkeys(keys) if k not in self.annotators]
        if not missing:
            return
        User = get_user_model()
        prefix = f"{self.project.slug}.imported."
        # usernames hold 150 characters: room for the suffix that tells two truncated keys apart
        wanted = {k: (prefix + _safe_username(k))[:140] for k in missing}
        taken = set(User.objects.filter(username__in=wanted.values()).values_list("username", flat=True))
        users = []
        for key in missing:
            username = wanted[key]
            suffix = 2
            while username in taken:
                username = f"{wanted[key]}-{suffix}"
                suffix += 1
            taken.add(username)
            users.append(User(username=username, password=make_password(None), first_name=f"Imported {key}"[:150]))
        created = User.objects.bulk_create(users)
        if any(u.pk is None for u in created):  # backends that cannot return ids from bulk inserts
            by_name = dict(User.objects.filter(username__in=[u.username for u in users]).values_list("username", "pk"))
            for u in created:
                u.pk = by_name[u.username]
        Membership.objects.bulk_create(
            Membership(
                project=self.project,
                user_id=user.pk,
                role=Role.ANNOTATOR,
                imported=True,
                source_key=key,
                rank=self.next_rank + i,
            )
            for i, (key, user) in enumerate(zip(missing, created))
        )
        self.next_rank += len(missing)
        self.annotators.update({key: user.pk for key, user in zip(missing, created)})
        self.annotators_created += len(missing)

    def write(self, batch: list[ParsedDialogue]) -> None:
        blocks_of = [self.validate(parsed) for parsed in batch]
        self._ensure_annotators(j.annotator for parsed in batch for j in parsed.judgements)
        dialogues = Dialogue.objects.bulk_create(
            Dialogue(
                project=self.project,
                external_id=p.external_id,
                language=p.language,
                source_meta=p.source_meta,
                position=self.next_position + i,
                batch=self.batch,
            )
            for i, p in enumerate(batch)
        )
        self.next_position += len(batch)
        posts, assignments, judgement_rows, gold = [], [], [], []
        for parsed, dialogue, blocks in zip(batch, dialogues, blocks_of):
            posts.extend(
                Post(
                    dialogue_id=dialogue.pk,
                    position=i,
                    speaker=p.speaker,
                    text=p.text,
                    utterance_block=b,
                    source_turn_index=p.source_turn_index,
                    source_meta=p.source_meta,
                    source_annotated=p.annotated,
                )
                for i, (p, b) in enumerate(zip(parsed.posts, blocks))
            )
            order = list(dict.fromkeys(j.annotator for j in parsed.judgements))
            assignments.extend((self.annotators[key], dialogue.pk) for key in order)
            judgement_rows.append((len(assignments) - len(order), order, parsed))
            gold.extend(
                GoldCount(
                    dialogue_id=dialogue.pk,
                    criterion_id=self.criteria[g.criterion].pk,
                    unit=g.unit,
                    value=g.value,
                    count=g.count,
                    n_annotators=g.n_annotators,
                )
                for g in parsed.gold_counts
            )
        _posts_insert(posts)
        assignment_ids = _assignments_insert(assignments, self.now)
        judgements = [
            (assignment_of[j.annotator], self.criteria[j.criterion].pk, j.unit, j.value, j.extra)
            for first, order, parsed in judgement_rows
            for assignment_of in ({key: assignment_ids[first + i] for i, key in enumerate(order)},)
            for j in parsed.judgements
        ]
        _judgements_insert(judgements, self.now)
        GoldCount.objects.bulk_create(gold, batch_size=2000)
        self.dialogues += len(batch)
        self.posts += len(posts)
        self.judgements += len(judgements)
        self.gold_counts += len(gold)
        self.rows += len(dialogues) + len(posts) + len(assignments) + len(judgements) + len(gold)
