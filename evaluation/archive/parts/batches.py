"""Import history: every batch of dialogues imported into the project, with its counts, errors and removal.

A dialogue names its batch by the batch's place in this list. The uploaded file a batch keeps until it is
imported is left out: a batch that had not finished when the project was archived is restored as refused, to be
uploaded again.
"""

from __future__ import annotations

from django.utils.translation import gettext

from annotator.models import ImportBatch, ImportStatus
from evaluation.archive.context import Names, Restoring
from evaluation.archive.fields import fields_export, fields_restore, plain_fields, rows_create

FIELDS = plain_fields(ImportBatch, without=["source"])
PEOPLE = ("created_by", "removed_by")
UNFINISHED = (ImportStatus.PENDING, ImportStatus.RUNNING)


def export(names: Names) -> dict:
    rows = list(
        ImportBatch.objects.filter(project=names.project)
        .order_by("pk")
        .values("pk", *FIELDS, "created_by_id", "removed_by_id")
    )
    usernames = names.usernames(row[f"{p}_id"] for row in rows for p in PEOPLE)
    names.batch_index = {row["pk"]: i for i, row in enumerate(rows)}
    return {
        "import_batches": [
            fields_export(row, FIELDS) | {p: usernames.get(row[f"{p}_id"]) for p in PEOPLE} for row in rows
        ]
    }


def restore(restoring: Restoring) -> None:
    r, rows = restoring.r, []
    for i, archived in enumerate(restoring.part("import_batches")):
        where = f"import_batches[{i}]"
        values = fields_restore(r, archived, ImportBatch, FIELDS, where)
        if values["status"] in UNFINISHED:
            values["status"] = ImportStatus.FAILED
            values["error"] = gettext("Not finished when the project was archived: upload the file again.")
        people = {f"{p}_id": restoring.people.someone(r, archived.get(p), f"{where}.{p}") for p in PEOPLE}
        rows.append(ImportBatch(project=restoring.project, **values, **people))
    restoring.batches = [b.pk for b in rows_create(ImportBatch, rows)]
