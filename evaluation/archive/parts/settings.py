"""The project's one-row settings: quality control, comparisons (pairwise), the adaptive budget.

A project without a row has each model's defaults: the archive says ``null`` and a restore writes no row. A
restore checks each field as its column takes it (``evaluation.archive.fields``: the quality settings' bounds, the
label-gold error rate...) and the adaptive budget as its settings page does: label gold names criteria of the
project with one scale, with shares between 0 and 1, and the minimum per item is not above the maximum.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError

from annotator.handout.services.adaptive import label_gold_checked
from annotator.models import AdaptiveBudget, PairwiseSettings, QualitySettings
from evaluation.archive.context import Names, Restoring
from evaluation.archive.fields import fields_export, fields_restore, plain_fields, rows_create
from scoring.errors import N_

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
        if model is AdaptiveBudget:
            _adaptive_check(restoring, values)
        rows_create(model, [model(project=restoring.project, **values)])


def _adaptive_check(restoring: Restoring, values: dict) -> None:
    """The adaptive budget's fields that depend on each other or on the criteria, checked as
    ``annotator.handout.services.adaptive.adaptive_budget_update`` checks them."""
    r = restoring.r
    try:
        values["label_gold"] = label_gold_checked(restoring.project, values["label_gold"])
    except ValidationError as exc:
        raise r.error(N_("%(problem)s"), "adaptive_budget.label_gold", problem=" ".join(exc.messages)) from None
    if values["min_k"] > values["max_k"]:
        raise r.error(N_("the minimum per item cannot exceed the maximum"), "adaptive_budget.min_k")
