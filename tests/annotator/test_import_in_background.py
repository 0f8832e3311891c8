"""Without a broker, an import runs in a thread of the web process (``config.enqueue`` with ``background``):
the request that uploads answers at once, the batch records the thread's progress and outcome, a crash
leaves a clear error on the batch, and a batch an earlier process left (a restart) is sent again - once."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from annotator.models import ImportBatch, ImportStatus
from annotator.services import import_batches
from annotator.services.import_batches import import_batch_create, import_batches_requeue
from tests.fixtures.collections import stc3_dialogues
from tests.waiting import wait_for

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.both_databases(
        reason=(
            "without a broker an import runs in a thread of the web process while pages read: SQLite's write-ahead "
            "log and IMMEDIATE transactions"
        )
    ),
]


@pytest.fixture
def in_background(settings):
    settings.TASKS_IN_PROCESS_IN_BACKGROUND = True


def upload(project, content: bytes, name: str = "s.json"):
    return import_batch_create(project=project, user=None, uploaded=SimpleUploadedFile(name, content))


def test_an_import_runs_after_the_request_and_records_its_outcome(in_background, make_project):
    import json
    import threading

    project = make_project("stc3", slug="bg")
    release = threading.Event()
    real = import_batches.dialogues_import

    def held(**kwargs):  # the import waits until the test has seen that the upload came back without it
        release.wait(30)
        return real(**kwargs)

    with mock.patch("annotator.services.import_batches.dialogues_import", side_effect=held):
        batch = upload(project, json.dumps(stc3_dialogues()).encode())
        assert wait_for(lambda: ImportBatch.objects.get(pk=batch.pk).status == ImportStatus.RUNNING, timeout=30)
        assert project.dialogues.count() == 0  # the upload returned while its import had not run
        release.set()
        finished = ImportBatch.objects.filter(pk=batch.pk, status=ImportStatus.DONE, source__isnull=True)
        assert wait_for(finished.exists, timeout=60)  # the upload's bytes are dropped last
    done = ImportBatch.objects.get(pk=batch.pk)
    assert done.dialogues_written == done.dialogues_total == 2 and project.dialogues.count() == 2
    assert done.source is None and batch.pk not in import_batches._SENT_HERE


def test_a_crash_in_the_thread_leaves_a_clear_error_on_the_batch(in_background, make_project):
    project = make_project("stc3", slug="bg-crash")
    with mock.patch("annotator.services.import_batches.dialogues_import", side_effect=RuntimeError("boom")):
        batch = upload(project, b"[]")
        failed = ImportBatch.objects.filter(pk=batch.pk, status=ImportStatus.FAILED, source__isnull=True)
        assert wait_for(failed.exists, timeout=60)
    failed = ImportBatch.objects.get(pk=batch.pk)
    assert failed.error.startswith("Nothing was imported. s.json: the file could not be read")
    assert "boom" in failed.error and project.dialogues.count() == 0


def test_a_batch_an_earlier_process_left_is_sent_again_and_one_sent_here_is_not(in_background, make_project):
    import json

    project = make_project("stc3", slug="bg-restart")
    source = json.dumps(stc3_dialogues()).encode()
    before = import_batches._PROCESS_STARTED - timedelta(seconds=5)
    left = ImportBatch.objects.create(project=project, file_names="s.json", source=source)
    ImportBatch.objects.filter(pk=left.pk).update(status=ImportStatus.RUNNING, started_at=before, created_at=before)
    ours = ImportBatch.objects.create(project=project, file_names="t.json", source=source)
    ImportBatch.objects.filter(pk=ours.pk).update(status=ImportStatus.RUNNING, started_at=timezone.now())
    import_batches._SENT_HERE.add(ours.pk)
    try:
        with mock.patch("config.enqueue.task_send", return_value=True) as send:
            assert import_batches_requeue() == 1
        send.assert_called_once_with("annotator.tasks.run_import_batch", left.pk, background=True)
    finally:
        import_batches._SENT_HERE.discard(ours.pk)
        import_batches._SENT_HERE.discard(left.pk)


def test_with_a_worker_nothing_counts_as_left_by_a_restart(settings, make_project):
    settings.TASKS_IN_PROCESS_IN_BACKGROUND = False  # as with a broker: only the time limits say a batch is lost
    project = make_project("stc3", slug="bg-worker")
    before = timezone.now() - timedelta(seconds=5)
    left = ImportBatch.objects.create(project=project, file_names="s.json", source=b"[]")
    ImportBatch.objects.filter(pk=left.pk).update(status=ImportStatus.RUNNING, started_at=before, created_at=before)
    with mock.patch("config.enqueue.task_send", return_value=True) as send:
        assert import_batches_requeue() == 0
    assert not send.called
