"""Every archived table of a project as comparable rows, ids replaced by what the rows they name hold.

``project_tables(project)`` reads each model ``evaluation.archive.coverage.ARCHIVED`` names, row by row, and turns
each row into a tuple of its fields but the id and those the coverage leaves out or restores in another form; a
reference to another archived row becomes that row's own tuple (so two databases' rows compare whatever their
ids), a reference to an account the account's name (a study participant's: their study and platform id, since a
restore gives participants new accounts). Two projects hold the same state when the two results are equal.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime

from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import models

from annotator.models import Participant, Project
from evaluation.archive.coverage import ARCHIVED, FIELDS_LEFT_OUT, FIELDS_RESTORED_AS


def _plain(value):
    if isinstance(value, memoryview | bytearray):
        return bytes(value)
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True)
    if isinstance(value, datetime):
        return value.isoformat(timespec="microseconds")
    return value


class _Canon:
    def __init__(self):
        self.cache: dict[tuple[str, object], tuple] = {}
        self.participants = {
            user_id: ("participant", study, external_id)
            for user_id, study, external_id in Participant.objects.values_list("user_id", "study__name", "external_id")
        }
        self.usernames = dict(get_user_model().objects.values_list("pk", "username"))
        self.read: dict[tuple[str, object], dict] = {}  # every archived row of the project, read once

    def user(self, user_id):
        if user_id is None:
            return None
        return self.participants.get(user_id) or self.usernames[user_id]

    def fields(self, model: type[models.Model]) -> list[models.Field]:
        label = model._meta.label
        skipped = set(FIELDS_LEFT_OUT.get(label, {})) | set(FIELDS_RESTORED_AS.get(label, {}))
        return [f for f in model._meta.concrete_fields if not f.primary_key and f.name not in skipped]

    def row(self, model: type[models.Model], pk) -> tuple:
        key = (model._meta.label, pk)
        if key not in self.cache:
            values = self.read.get(key) or model.objects.filter(pk=pk).values(*self.names(model)).get()
            self.cache[key] = self.of(model, values)
        return self.cache[key]

    def names(self, model: type[models.Model]) -> list[str]:
        return ["pk", *[f.attname for f in self.fields(model)]]

    def of(self, model: type[models.Model], values: dict) -> tuple:
        out = []
        for f in self.fields(model):
            value = values[f.attname]
            if f.is_relation:
                target = f.related_model
                if target is get_user_model():
                    value = self.user(value)
                elif value is not None:
                    value = self.row(target, value)
            out.append((f.name, _plain(value)))
        return tuple(out)


def project_tables(project: Project) -> dict[str, Counter]:
    """model label -> the multiset of its rows of ``project`` (see the module)."""
    canon = _Canon()
    rows = {}
    for label, lookup in ARCHIVED.items():
        model = apps.get_model(label)
        found = model.objects.filter(**{lookup or "pk": project if lookup else project.pk}).values(*canon.names(model))
        rows[label] = list(found.iterator(chunk_size=20000))
        canon.read.update(((label, values["pk"]), values) for values in rows[label])
    return {label: Counter(canon.row(apps.get_model(label), v["pk"]) for v in found) for label, found in rows.items()}
