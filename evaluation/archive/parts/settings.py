"""The project's one-row settings: quality control, comparisons (pairwise), the adaptive budget.

A project without a row has each model's defaults: the archive says ``null`` and a restore writes no row.
"""

from __future__ import annotations

from annotator.models import AdaptiveBudget, PairwiseSettings, QualitySettings
from evaluation.archive.context import Names, Restoring
from evaluation.archive.fields import fields_export, fields_restore, plain_fields, rows_create

SETTINGS = {
    "quality_settings": QualitySettings,
    "pairwise_settings": PairwiseSettings,
    "adaptive_budget": AdaptiveBudget,
}


def export(names: Names) -> dict:
    out = {}
    for key, model in SETTINGS.items():
        row = model.objects.filter(project=names.project).values().first()
        out[key] = None if row is None else fields_export(row, plain_fields(model))
    return out


def restore(restoring: Restoring) -> None:
    for key, model in SETTINGS.items():
        archived = restoring.part(key, dict)
        if archived is None:
            continue
        values = fields_restore(restoring.r, archived, model, plain_fields(model), key)
        rows_create(model, [model(project=restoring.project, **values)])
