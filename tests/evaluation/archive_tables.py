"""Every archived table of a project as comparable rows, ids replaced by digests of what the rows they name hold.

``project_tables(project)`` reads each model ``evaluation.archive.coverage.ARCHIVED`` names (a ``values_list``
of its rows, a chunk at a time) and turns each row into a tuple of its fields but the id and those the coverage
leaves out or restores in another form (``Tables.fields``); a reference to another archived row becomes a digest
of that row's own tuple (BLAKE2b, 16 bytes: so two databases' rows compare whatever their ids, and a change in a
referenced row changes every row that names it), a reference to an account the account's name (a study
participant's: their study and platform id, since a restore gives participants new accounts). Two projects hold
the same state when the two results' ``rows`` are equal; ``Tables.difference`` says which rows of a table differ,
field by field, with each referenced row written out.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from itertools import islice

from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import models

from annotator.models import Participant, Project
from evaluation.archive.coverage import ARCHIVED, FIELDS_LEFT_OUT, FIELDS_RESTORED_AS

CHUNK = 20000  # rows read at a time


def _json(value):
    return json.dumps(value, sort_keys=True) if isinstance(value, dict | list) else value


def _time(value: datetime | None):
    return None if value is None else value.isoformat(timespec="microseconds")


def _binary(value):
    return bytes(value) if isinstance(value, memoryview | bytearray) else value


def _digest(row: tuple) -> bytes:
    return hashlib.blake2b(repr(row).encode("utf-8"), digest_size=16).digest()


@dataclass
class Tables:
    """model label -> the multiset of its rows (``rows``), the fields each row's tuple holds (``fields``) and the
    referenced rows by digest (``named``: label and tuple, to write a difference out)."""

    rows: dict[str, Counter] = field(default_factory=dict)
    fields: dict[str, tuple[str, ...]] = field(default_factory=dict)
    named: dict[bytes, tuple[str, tuple]] = field(default_factory=dict)

    def written(self, label: str, row: tuple, depth: int = 0) -> dict:
        """``row`` of ``label`` as {field: value} (long texts cut), each row it references written out in its place
        (their own references by label and digest)."""
        return {name: self.value(value, depth) for name, value in zip(self.fields[label], row)}

    def value(self, value, depth: int):
        if isinstance(value, bytes) and value in self.named:
            label, row = self.named[value]
            return {label: self.written(label, row, depth + 1)} if depth == 0 else f"<{label} {value.hex()[:8]}>"
        return value[:80] if isinstance(value, str) else value

    def difference(self, label: str, other: Tables, shown: int = 3) -> str:
        """The rows of ``label`` only here and only in ``other`` (the first ``shown`` of each), written out."""
        here, there = self.rows[label], other.rows[label]
        only_here, only_there = list((here - there).elements()), list((there - here).elements())
        return (
            f"{label}: {len(only_here)} rows only before, {len(only_there)} only after; "
            f"before: {[self.written(label, r) for r in only_here[:shown]]}; "
            f"after: {[other.written(label, r) for r in only_there[:shown]]}"
        )


class _Canon:
    def __init__(self):
        self.participants = {
            user_id: ("participant", study, external_id)
            for user_id, study, external_id in Participant.objects.values_list("user_id", "study__name", "external_id")
        }
        self.usernames = dict(get_user_model().objects.values_list("pk", "username"))
        self.read: dict[str, dict] = {}  # label -> pk -> the row as read (every archived row of the project, once)
        self.digests: dict[tuple[str, object], bytes] = {}
        self.tables = Tables()
        self._converters: dict[str, list] = {}

    def user(self, user_id):
        if user_id is None:
            return None
        return self.participants.get(user_id) or self.usernames[user_id]

    def fields(self, model: type[models.Model]) -> list[models.Field]:
        label = model._meta.label
        skipped = set(FIELDS_LEFT_OUT.get(label, {})) | set(FIELDS_RESTORED_AS.get(label, {}))
        return [f for f in model._meta.concrete_fields if not f.primary_key and f.name not in skipped]

    def names(self, model: type[models.Model]) -> list[str]:
        return ["pk", *[f.attname for f in self.fields(model)]]

    def converters(self, model: type[models.Model]) -> list:
        """For each field, what turns its value into the comparable one (None: the value itself)."""
        label = model._meta.label
        if label not in self._converters:
            out = []
            for f in self.fields(model):
                if f.is_relation and f.related_model is get_user_model():
                    out.append(self.user)
                elif f.is_relation:
                    target, of = f.related_model, f.related_model._meta.label
                    out.append(lambda pk, target=target, of=of: None if pk is None else self.digest(target, pk, of))
                elif isinstance(f, models.JSONField):
                    out.append(_json)
                elif isinstance(f, models.DateTimeField):
                    out.append(_time)
                elif isinstance(f, models.BinaryField):
                    out.append(_binary)
                else:
                    out.append(None)
            self._converters[label] = out
            self.tables.fields[label] = tuple(f.name for f in self.fields(model))
        return self._converters[label]

    def of(self, model: type[models.Model], rows: list[tuple]) -> list[tuple]:
        """Rows read as ``names(model)`` (id first) as their comparable tuples, a column at a time."""
        if not rows:
            return []
        columns = list(zip(*rows))[1:]
        if not columns:  # (a model of nothing but its id)
            return [() for _ in rows]
        converted = [column if c is None else map(c, column) for c, column in zip(self.converters(model), columns)]
        return list(zip(*converted))

    def digest(self, model: type[models.Model], pk, label: str) -> bytes:
        key = (label, pk)
        if key not in self.digests:
            values = self.read.get(label, {}).get(pk)
            if values is None:
                values = model.objects.filter(pk=pk).values_list(*self.names(model)).get()
            (row,) = self.of(model, [values])
            self.digests[key] = _digest(row)
            self.tables.named[self.digests[key]] = (label, row)
        return self.digests[key]


def project_tables(project: Project) -> Tables:
    """Every archived table of ``project`` (see the module)."""
    canon = _Canon()
    read = {}
    for label, lookup in ARCHIVED.items():
        model = apps.get_model(label)
        found = model.objects.filter(**{lookup or "pk": project if lookup else project.pk})
        rows = found.values_list(*canon.names(model)).iterator(chunk_size=CHUNK)
        read[label] = canon.read[label] = {}
        while chunk := list(islice(rows, CHUNK)):
            canon.read[label].update((values[0], values) for values in chunk)
    for label, by_pk in read.items():
        model = apps.get_model(label)
        canon.tables.rows[label] = Counter(canon.of(model, list(by_pk.values())))
    return canon.tables
