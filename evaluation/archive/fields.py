"""A model's plain fields in the archive and back, each checked by what its column is.

The parts of a project that are rows of settings and history (quality settings, studies, judges, webhooks,
import batches, exclusions...) are written field by field as their model declares them: a time as ISO 8601,
everything else as the JSON value it is. Restoring one reads each field with the check its column calls for
(``scoring.input.Record``): text that fits and holds no NUL, one of the field's choices, an integer within the
column's range, a finite number, storable JSON, a time with a zone, and the field's own validators (a study's
completion code, the quality settings' bounds). So a field added to a model is archived by naming it in the
part's list (``evaluation.archive.coverage`` fails until it is named there or left out with the reason).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import models
from django.db.backends.base.operations import BaseDatabaseOperations

from scoring.errors import N_
from scoring.input import Record


def time_text(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def plain_fields(model: type[models.Model], *, without: Iterable[str] = ()) -> tuple[str, ...]:
    """The model's concrete fields that are neither its id nor a reference to another row, minus ``without``."""
    left = set(without)
    return tuple(
        f.name for f in model._meta.concrete_fields if not f.primary_key and not f.is_relation and f.name not in left
    )


def fields_export(row: dict, names: Sequence[str]) -> dict:
    """``row``'s ``names`` (a ``values()`` row, or a model's ``__dict__``) as JSON values."""
    out = {}
    for name in names:
        value = row[name]
        out[name] = value.isoformat() if isinstance(value, datetime) else value
    return out


def _integer_bounds(field: models.Field) -> tuple[int, int]:
    low, high = BaseDatabaseOperations.integer_field_ranges[field.get_internal_type()]
    return low, high


def field_restore(r: Record, obj: dict, model: type[models.Model], name: str, where: str):
    """One field of ``obj`` read and checked as ``model``'s column ``name`` takes it (see the module)."""
    field = model._meta.get_field(name)
    path = f"{where}.{name}" if where else name
    optional = field.null
    if isinstance(field, models.DateTimeField):
        return r.time(obj, name, where, optional=optional)
    if isinstance(field, models.BooleanField):
        value = r.field(obj, name, bool, where, optional=optional)
    elif isinstance(field, models.JSONField):
        value = r.json(obj, name, where, optional=optional)
    elif isinstance(field, models.FloatField):
        value = r.field(obj, name, (int, float), where, optional=optional)
        if value is not None and not math.isfinite(value):
            raise r.error(N_("%(item)s is not a finite number"), path, item=value)
        value = None if value is None else float(value)
    elif isinstance(field, models.IntegerField):  # every integer type, Positive*, Small*, Big*
        value = r.integer(obj, name, where, bounds=_integer_bounds(field), optional=optional)
    elif isinstance(field, models.CharField | models.TextField):
        if field.choices:
            value = r.choice(obj, name, [str(c) for c, _label in field.flatchoices], where)
        else:
            value = r.text(obj, name, where, max_length=field.max_length)
    else:  # a new kind of column: name how it is archived here first
        raise TypeError(f"{model._meta.label}.{name}: no archive reader for {type(field).__name__}")
    if value is not None and field.validators:
        try:
            field.run_validators(value)
        except ValidationError as exc:
            raise r.error(N_("%(problem)s"), path, problem=" ".join(exc.messages)) from None
    return value


def fields_restore(r: Record, obj, model: type[models.Model], names: Sequence[str], where: str) -> dict:
    """``names`` of ``obj`` read and checked (``field_restore``), as keyword arguments for ``model``."""
    if not isinstance(obj, dict):
        raise r.error(N_("expected an object, got %(type)s"), where or None, type=type(obj).__name__)
    return {name: field_restore(r, obj, model, name, where) for name in names}


def auto_times(model: type[models.Model]) -> tuple[str, ...]:
    """The model's times that Django sets on save (``auto_now``, ``auto_now_add``): set again after a restore."""
    return tuple(
        f.name
        for f in model._meta.concrete_fields
        if isinstance(f, models.DateTimeField) and (f.auto_now or f.auto_now_add)
    )


def rows_create(model: type[models.Model], rows: list[models.Model]) -> list[models.Model]:
    """``rows`` inserted in their order, keeping the archived times they hold in the fields Django sets itself on
    save (``auto_times``); the rows, with their ids."""
    names = auto_times(model)
    archived = [{n: getattr(row, n) for n in names} for row in rows]
    made = model.objects.bulk_create(rows, batch_size=2000)
    if names and made:
        for row, times in zip(made, archived):
            for name, value in times.items():
                setattr(row, name, value)
        model.objects.bulk_update(made, names, batch_size=2000)
    return made
