"""A run's files (a zip) and its scores per dialogue are stored by PostgreSQL without its own compression.

PostgreSQL compresses large values before storing them (pglz); for the zip that gains nothing, and for the
scores per dialogue of STC-3 Chinese (a megabyte of JSON) it cost 20-40 ms of every ``score_run``, each save
of a run, for a value read far less often than written (docs/performance.md). ``SET STORAGE EXTERNAL``:
out of line, uncompressed; values already stored keep their form until rewritten. Other databases: nothing.
"""

from django.db import migrations

COLUMNS = ("source", "per_dialogue")


def store_uncompressed(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for column in COLUMNS:
        schema_editor.execute(f"ALTER TABLE scoring_run ALTER COLUMN {column} SET STORAGE EXTERNAL")


def store_compressed(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for column in COLUMNS:
        schema_editor.execute(f"ALTER TABLE scoring_run ALTER COLUMN {column} SET STORAGE EXTENDED")


class Migration(migrations.Migration):
    dependencies = [("scoring", "0017_live_state_background_rebuild")]

    operations = [migrations.RunPython(store_uncompressed, store_compressed, elidable=False)]
