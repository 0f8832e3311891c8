"""An import's progress is visible to the page polling it while the import's transaction is still open."""

from __future__ import annotations

import pytest
from django.db import DEFAULT_DB_ALIAS, connections, transaction

from annotator.models import Dialogue, ImportBatch, ImportStatus
from annotator.services.import_batches import _BatchProgress
from annotator.services.imports import ImportProgress


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres(reason="a second connection writes while the import's transaction is open; SQLite has one writer")
def test_progress_is_visible_to_others_while_the_import_transaction_is_open(make_project):
    """PostgreSQL: the counters are written through a second connection, so a page polling sees them."""
    project = make_project("stc3", slug="side")
    batch = ImportBatch.objects.create(project=project, file_names="x.json", status=ImportStatus.RUNNING)
    progress = _BatchProgress(batch.pk)
    observer = connections.create_connection(DEFAULT_DB_ALIAS)
    try:
        with transaction.atomic():
            Dialogue.objects.create(project=project, external_id="inside", batch=batch)  # holds a key lock
            progress(ImportProgress(read=7, total=7, written=3, rows=40))
            with observer.cursor() as cursor:
                cursor.execute(
                    "SELECT dialogues_written, rows_written FROM annotator_importbatch WHERE id = %s", [batch.pk]
                )
                assert cursor.fetchone() == (3, 40)
                cursor.execute("SELECT count(*) FROM annotator_dialogue WHERE external_id = 'inside'")
                assert cursor.fetchone() == (0,)  # the import's own rows stay invisible until it commits
    finally:
        progress.close()
        observer.close()
