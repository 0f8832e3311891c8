"""Model instances from rows read with plain SQL, converted as the ORM converts them.

The save path reads its rows with plain statements (compiling the ORM's queries cost more CPU than
running them, ``bench/save_profile.py``) but hands model instances on. A row's values pass through
the database's converters first (SQLite returns datetimes as text, booleans as integers, JSON as
text), which this module works out once per model, columns and database.
"""

from __future__ import annotations

from functools import cache

from django.db import connection
from django.db.models import Model


def instance_from_row(model: type[Model], attnames: tuple[str, ...], values) -> Model:
    """An instance of ``model`` with the fields ``attnames`` (attribute names, e.g. ``user_id``) set from
    ``values`` as the database returned them; the other fields are deferred, as with ``only()``."""
    converted = []
    for value, (field, converters) in zip(values, _converters(model, attnames, connection.vendor), strict=True):
        for converter in converters:
            value = converter(value, field, connection)
        converted.append(value)
    return model.from_db(connection.alias, list(attnames), converted)


@cache
def _converters(model: type[Model], attnames: tuple[str, ...], vendor: str) -> tuple:
    by_attname = {f.attname: f for f in model._meta.concrete_fields}
    out = []
    for name in attnames:
        column = by_attname[name].get_col(model._meta.db_table)
        out.append((column, connection.ops.get_db_converters(column) + by_attname[name].get_db_converters(connection)))
    return tuple(out)
