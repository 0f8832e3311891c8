"""Jobs (``annotator.services.jobs``): every task sent has a job; a worker claims its current attempt once; beat's
sweep ends or sends again the jobs whose worker is gone, and the job's subject (here an import batch) is readied
for the new attempt or says what happened; a worker that starts again hands back what it was running."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from annotator.models import ImportBatch, ImportStatus, Job, JobEnd, JobState
from annotator.services.import_batches import import_batch_create
from annotator.services.jobs import job_claim, jobs_lost_with_worker, jobs_sweep
from annotator.templatetags.jobs import job_message
from config.enqueue import job_of_task_id, task_send
from tests.factories import project_with_work

pytestmark = pytest.mark.django_db

DIALOGUE = b'{"id": "j1", "turns": [{"speaker": "customer", "text": "hi"}, {"speaker": "helpdesk", "text": "yes"}]}\n'


def _batch(capture):
    """An import of one dialogue, sent once its transaction commits."""
    work = project_with_work("dch1", slug="jobs", annotators=1)
    with capture(execute=True):
        batch = import_batch_create(
            project=work.project, user=work.lead, uploaded=SimpleUploadedFile("one.jsonl", DIALOGUE)
        )
    return batch


def test_a_task_sent_is_a_job_whose_message_names_its_attempt(tasks_sent):
    # when a service sends a task
    assert task_send("evaluation.tasks.recompute_statistics", 41)
    # then a job records it, and the message carries the job's id and attempt
    job = Job.objects.get()
    assert (job.task, job.args, job.state, job.attempt) == ("evaluation.tasks.recompute_statistics", [41], "queued", 1)
    assert job.sent_at is not None
    assert [(t.name, t.args) for t in tasks_sent] == [("evaluation.tasks.recompute_statistics", [41])]
    assert job_of_task_id(tasks_sent[0].task_id) == (job.pk, 1)


def test_an_attempt_is_claimed_once_and_a_replaced_attempt_never(tasks_sent):
    task_send("evaluation.tasks.recompute_statistics", 41)
    job = Job.objects.get()
    # the worker that takes the message claims the job, with the deadline of its hard time limit
    claimed = job_claim(job_id=job.pk, attempt=1, worker="w@h", seconds=900)
    assert claimed.state == JobState.RUNNING and claimed.worker == "w@h"
    assert abs((claimed.deadline_at - claimed.started_at).total_seconds() - 900) < 1
    # the same message delivered again does nothing; Celery's retry of it (one more retry) claims it back
    assert job_claim(job_id=job.pk, attempt=1, worker="w2@h", seconds=900) is None
    assert job_claim(job_id=job.pk, attempt=1, worker="w2@h", seconds=900, retries=1) is not None
    # an attempt the job no longer is (the sweep sent a new one) never runs
    assert job_claim(job_id=job.pk, attempt=2, worker="w3@h", seconds=900) is None


def test_the_sweep_sends_again_a_job_past_its_deadline_then_ends_it_and_its_subject_says_why(
    tasks_sent, django_capture_on_commit_callbacks
):
    # given an import whose worker took it and was killed (the job runs past its deadline)
    batch = _batch(django_capture_on_commit_callbacks)
    job = Job.objects.get(task="annotator.tasks.run_import_batch")
    job_claim(job_id=job.pk, attempt=1, worker="heavy@h", seconds=60)
    ImportBatch.objects.filter(pk=batch.pk).update(status=ImportStatus.RUNNING)
    later = timezone.now() + timedelta(seconds=60 + settings.JOB_SWEEP_GRACE_SECONDS + 1)
    # when beat's sweep runs
    assert jobs_sweep(now=later)["lost"] == 1
    # then the job is sent again as attempt 2, and the batch waits for it (claimable again)
    job.refresh_from_db()
    assert (job.state, job.attempt) == (JobState.QUEUED, 2)
    assert ImportBatch.objects.get(pk=batch.pk).status == ImportStatus.PENDING
    assert job_of_task_id(tasks_sent[-1].task_id) == (job.pk, 2)
    # and when that attempt loses its worker too (the last attempt), the job and the batch end, saying why
    assert settings.JOB_MAX_ATTEMPTS == 2
    job_claim(job_id=job.pk, attempt=2, worker="heavy@h", seconds=60)
    ImportBatch.objects.filter(pk=batch.pk).update(status=ImportStatus.RUNNING)
    assert jobs_sweep(now=timezone.now() + timedelta(seconds=120))["lost"] == 1
    job.refresh_from_db()
    assert (job.state, job.ended_by) == (JobState.FAILED, JobEnd.WORKER_LOST)
    ended = ImportBatch.objects.get(pk=batch.pk)
    assert ended.status == ImportStatus.FAILED and ended.finished_at is not None
    assert ended.error.startswith("Nothing was imported. Stopped: its worker was lost")
    # and the page says it in the reader's language
    from django.utils import translation

    with translation.override("ja"):
        shown = job_message(ended.error)
    assert shown != ended.error and shown.startswith("Nothing was imported. ")


def test_a_job_within_its_deadline_is_left_alone(django_capture_on_commit_callbacks):
    _batch(django_capture_on_commit_callbacks)
    job = Job.objects.get(task="annotator.tasks.run_import_batch")
    job_claim(job_id=job.pk, attempt=1, worker="heavy@h", seconds=3600)
    assert jobs_sweep(now=timezone.now() + timedelta(seconds=600)) == {
        "lost": 0,
        "unsent": 0,
        "resent": 0,
        "deleted": 0,
    }
    assert Job.objects.get(pk=job.pk).state == JobState.RUNNING


def test_a_worker_starting_again_hands_back_what_it_was_running(django_capture_on_commit_callbacks):
    batch = _batch(django_capture_on_commit_callbacks)
    job = Job.objects.get(task="annotator.tasks.run_import_batch")
    job_claim(job_id=job.pk, attempt=1, worker="heavy@h", seconds=3600)
    ImportBatch.objects.filter(pk=batch.pk).update(status=ImportStatus.RUNNING)
    # another worker's start changes nothing; this one's sends the job again at once
    assert jobs_lost_with_worker(worker="interactive@h") == 0
    assert jobs_lost_with_worker(worker="heavy@h") == 1
    job.refresh_from_db()
    assert (job.state, job.attempt) == (JobState.QUEUED, 2)
    assert ImportBatch.objects.get(pk=batch.pk).status == ImportStatus.PENDING


def test_a_worker_connected_again_sends_again_the_countdowns_it_held(tasks_sent):
    """A webhook's next attempt waits 30 s in the worker that took its message; that worker loses its broker (or is
    killed) and connects again: the job is sent again at once as the same attempt, with what remains of its
    countdown (Celery dropped what it held; the broker gives the message back after its visibility timeout, hours,
    or never if it lost it), and should the old message come back too, the attempt runs once."""
    from annotator.services.jobs import job_held, jobs_held_sent_again

    assert task_send("annotator.tasks.deliver_webhook", 5, countdown=30)
    job = Job.objects.get()
    assert job_held(job_id=job.pk, attempt=1, worker="interactive@h")
    assert not job_held(job_id=job.pk, attempt=2, worker="interactive@h")  # not this attempt's message
    assert jobs_held_sent_again(worker="heavy@h") == 0 and jobs_lost_with_worker(worker="interactive@h") == 0
    assert jobs_held_sent_again(worker="interactive@h") == 1
    job.refresh_from_db()
    assert (job.state, job.attempt, job.worker) == (JobState.QUEUED, 1, "")
    resent = tasks_sent[-1]
    assert resent.task_id == tasks_sent[0].task_id  # the same attempt
    assert 20 < resent.countdown <= 30  # the rest of its countdown, not at once
    assert jobs_held_sent_again(worker="interactive@h") == 0  # sent once
    assert job_claim(job_id=job.pk, attempt=1, worker="interactive@h", seconds=60) is not None
    assert job_claim(job_id=job.pk, attempt=1, worker="interactive@h", seconds=60) is None  # the old message


def test_a_job_the_broker_did_not_take_is_sent_by_the_sweep(tasks_sent, monkeypatch):
    # given a broker that cannot be reached when the task is sent
    monkeypatch.setattr("config.enqueue.publish", lambda *a, **k: False)
    assert not task_send("evaluation.tasks.recompute_statistics", 7)
    job = Job.objects.get()
    assert job.state == JobState.QUEUED and job.sent_at is None
    # when the broker is back and the sweep runs
    sent = []
    monkeypatch.setattr("config.enqueue.publish", lambda name, args, **k: sent.append((name, args, k)) or True)
    later = timezone.now() + timedelta(seconds=settings.JOB_SWEEP_GRACE_SECONDS + 1)
    assert jobs_sweep(now=later)["unsent"] == 1
    # then the same attempt is sent
    assert sent == [("evaluation.tasks.recompute_statistics", [7], {"task_id": f"job-{job.pk}-1", "countdown": 0.0})]
    assert Job.objects.get(pk=job.pk).sent_at is not None


@pytest.mark.eager_tasks(reason="the job's whole life in one process: sent, claimed, run and ended by JobTask")
def test_a_task_run_ends_its_job_done_and_a_second_delivery_does_nothing(django_capture_on_commit_callbacks):
    batch = _batch(django_capture_on_commit_callbacks)
    job = Job.objects.get(task="annotator.tasks.run_import_batch")
    assert job.state == JobState.DONE and job.finished_at is not None
    assert ImportBatch.objects.get(pk=batch.pk).status == ImportStatus.DONE
    from annotator.tasks import run_import_batch

    again = run_import_batch.apply(args=[batch.pk], task_id=f"job-{job.pk}-1")
    assert again.result is None  # not this attempt's to run: the job is done
    assert ImportBatch.objects.get(pk=batch.pk).dialogues_written == 1


def test_every_task_is_in_the_table_of_limits():
    """No task runs unbounded: each one the apps register has its queue and limits in ``settings.TASKS``, and
    Celery gives it those limits."""
    from config.celery import app

    app.loader.import_default_modules()
    ours = {name for name in app.tasks if name.startswith(("annotator.", "evaluation."))}
    assert ours == set(settings.TASKS)
    for name in ours:
        soft, hard = settings.TASK_TIME_LIMITS[name]
        assert 0 < soft < hard
        assert (app.tasks[name].soft_time_limit, app.tasks[name].time_limit) == (soft, hard), name
