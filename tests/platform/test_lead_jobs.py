"""The lead's heavy pages and endpoints as jobs (``evaluation.services.lead_jobs``): a request never computes; it
answers the stored result when it is current, else the job at work on it (202 and its status URL; a page says
so and reloads itself), starting one at the user's rate of starts; a stored result is served again without a
job until the judgements change, and then shown as stale while the new job runs."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotator.exporters import export_gold
from annotator.models import Job, JobState
from annotator.services.judgements import judgements_save
from tests.factories import api_client, first_allowed_values, project_with_work
from tests.waiting import wait_for

# the jobs wait behind the statistics' recomputations the saves ask for, on the suite's one worker (solo) of a loaded
# machine
WAIT = 600


def _estimates_held(project) -> None:
    """The latent-truth models' automatic estimate held as queued a day from now (the compare-and-set that spaces
    them finds one pending): its EM takes minutes on a loaded machine, which the worker would spend before the job
    a test waits for."""
    from datetime import timedelta

    from django.utils import timezone

    from evaluation.models import StatisticsJob

    StatisticsJob.objects.update_or_create(
        project=project, defaults={"models_pending": True, "models_due_at": timezone.now() + timedelta(days=1)}
    )


def _submitted(work, people) -> None:
    for person in people:
        for assignment in work.assignments_of(person):
            values = first_allowed_values(assignment)
            judgements_save(assignment_id=assignment.pk, user=person, values=values, submit=True)


def _body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


@pytest.mark.worker
@pytest.mark.both_databases(
    reason="the embedded default: the file written by its worker on the filesystem broker (no result store) while "
    "the web process reads the job's row on SQLite's one writer"
)
def test_an_export_answers_202_then_its_file_then_serves_it_again_until_the_judgements_change(
    celery_worker_process, transactional_db
):
    # given a project where one of two annotators has submitted everything
    work = project_with_work("stc3", slug="lead-jobs", annotators=2)
    _estimates_held(work.project)
    _submitted(work, work.annotators[:1])
    client = api_client(work.lead)
    url = "/api/projects/lead-jobs/export/?format=distributions-json"
    # when the lead asks for the export
    first = client.get(url)
    # then the answer is the job at work on it, with where to follow it, and no file yet
    assert first.status_code == 202, first.content
    assert first["Retry-After"] and first.json()["job"]["state"] in ("queued", "running")
    status = first.json()["status_url"]
    assert status == reverse("api-job", args=["lead-jobs", first.json()["job"]["id"]])
    # and once the worker has written it, the job says so and the same URL answers the file
    assert wait_for(lambda: client.get(status).json()["state"] == JobState.DONE, WAIT), client.get(status).json()
    done = client.get(url)
    assert done.status_code == 200
    assert _body(done) == export_gold(project=work.project, fmt="distributions-json")
    # and asked again, the stored file is served: no job starts
    jobs = Job.objects.count()
    assert client.get(url).status_code == 200 and Job.objects.count() == jobs
    # when the judgements change, the next ask starts a new job (the stored file is no longer current)
    _submitted(work, work.annotators[1:])
    again = client.get(url)
    assert again.status_code == 202 and again.json()["stored"]["id"] == first.json()["job"]["id"]
    assert wait_for(lambda: client.get(url).status_code == 200, WAIT)
    assert _body(client.get(url)) == export_gold(project=work.project, fmt="distributions-json")


@pytest.mark.worker
def test_the_power_page_shows_the_job_then_its_result_with_its_time(celery_worker_process, transactional_db, client):
    work = project_with_work("dch1", slug="lead-power", annotators=3)
    _estimates_held(work.project)
    _submitted(work, work.annotators)
    client.force_login(work.lead)
    url = reverse("dashboard_power", args=["lead-power"]) + "?k_max=3"
    # the first visit computes nothing: it says a worker has the job, and reloads itself
    page = client.get(url).content.decode()
    assert 'id="job-running"' in page and 'http-equiv="refresh"' in page and 'id="power-answer"' not in page
    # a later visit shows the result, when it was computed, and no longer reloads
    assert wait_for(lambda: 'id="power-answer"' in client.get(url).content.decode(), WAIT)
    page = client.get(url).content.decode()
    assert 'id="job-computed"' in page and 'http-equiv="refresh"' not in page


@pytest.mark.django_db
def test_a_lead_who_started_too_many_jobs_is_answered_429_but_sees_the_jobs_at_work(settings, tasks_sent, client):
    settings.JOB_START_RATE = "2/minute"
    work = project_with_work("stc3", slug="lead-rate", annotators=1)
    _submitted(work, work.annotators)
    client = api_client(work.lead)
    base = "/api/projects/lead-rate/export/?format="
    # two jobs start (nothing runs them: the outbox), a third different one is refused with when to ask again
    assert client.get(base + "stc3").status_code == 202
    assert client.get(base + "distributions-json").status_code == 202
    refused = client.get(base + "distributions-csv")
    assert refused.status_code == 429 and refused["Retry-After"] == "60"
    assert [t.name for t in tasks_sent] == ["evaluation.tasks.export_gold"] * 2
    # asking about a job already at work starts nothing, so it is never refused
    assert client.get(base + "stc3").status_code == 202
    assert Job.objects.count() == 2
    # and the page of the third says why nothing is under way
    client.force_login(work.lead)
    text = client.get(reverse("export", args=["lead-rate"]) + "?format=distributions-csv").content.decode()
    assert 'id="job-throttled"' in text and Job.objects.count() == 2


@pytest.mark.django_db
def test_a_job_that_failed_on_these_judgements_is_not_started_again_and_the_page_says_why(tasks_sent):
    from annotator.services.jobs import job_claim, job_fail

    work = project_with_work("stc3", slug="lead-fail", annotators=1)
    _submitted(work, work.annotators)
    client = api_client(work.lead)
    url = "/api/projects/lead-fail/archive/"
    assert client.get(url).status_code == 202
    job = Job.objects.get()
    # given the worker's attempt failed with an error
    job_claim(job_id=job.pk, attempt=1, worker="w@h", seconds=60)
    job_fail(job_id=job.pk, attempt=1, error="ValueError: the archive could not be written")
    # then asking again answers the failure and starts nothing (it would fail again on the same judgements)
    answer = client.get(url)
    assert answer.status_code == 503 and Job.objects.count() == 1
    assert answer.json()["last_failure"]["error"] == "ValueError: the archive could not be written"


def test_the_study_reports_blocks_come_back_from_their_stored_json_whole():
    """Every kind of block the report's outline has (a paragraph's own ``kind`` field included) is read back
    from the job's stored JSON as it was written."""
    import json

    from evaluation.services.lead_jobs import blocks_read, blocks_stored
    from evaluation.services.report.outline import Heading, Items, Paragraph, Table

    blocks = [
        Heading(2, "Agreement", anchor="agreement"),
        Paragraph("These statistics are out of date.", kind="warning"),
        Paragraph("Plain text."),
        Items(["one", "two"]),
        Table(["criterion", "kappa"], [["A", "0.210"]], anchor="kappa"),
    ]
    assert blocks_read(json.loads(json.dumps(blocks_stored(blocks)))) == blocks


def _worker_ran(job: Job, *, took: float) -> Job:
    """What the worker does with ``job`` (``lead_job_run``: claimed, computed, stored, done), as if it had taken
    ``took`` seconds and ended just now."""
    from datetime import timedelta

    from django.utils import timezone

    from annotator.services.jobs import job_claim, job_done
    from evaluation.services.lead_jobs import lead_job_run

    job_claim(job_id=job.pk, attempt=job.attempt, worker="w@h", seconds=600)
    project_id, params = job.args
    lead_job_run(kind=job.key.split(":", 1)[0], job_id=job.pk, project_id=project_id, params=params)
    assert job_done(job_id=job.pk, attempt=job.attempt)
    now = timezone.now()
    Job.objects.filter(pk=job.pk).update(started_at=now - timedelta(seconds=took), finished_at=now)
    job.refresh_from_db()
    return job


@pytest.mark.django_db
def test_a_stale_result_is_computed_again_at_most_once_per_ten_times_its_length(
    settings, tasks_sent, client, django_capture_on_commit_callbacks
):
    """While annotators keep saving, every stored result goes stale at once: it is computed again only once ten
    times its last computation's length has passed since it ended (the page and the API say when, and ask again
    then), so that the leads' pages cost the workers at most a tenth of their time per result."""
    from datetime import timedelta

    from django.utils import timezone

    settings.JOB_RECOMPUTE_DUTY_FACTOR, settings.JOB_RECOMPUTE_MAX_WAIT_SECONDS = 10, 120
    work = project_with_work("stc3", slug="lead-spaced", annotators=2)
    with django_capture_on_commit_callbacks(execute=True):
        _submitted(work, work.annotators[:1])
    api = api_client(work.lead)
    exports = Job.objects.filter(task="evaluation.tasks.export_gold")
    url = "/api/projects/lead-spaced/export/?format=distributions-json"
    assert api.get(url).status_code == 202
    _worker_ran(exports.get(), took=3.0)
    assert api.get(url).status_code == 200
    # when an annotator submits, the stored file is stale, and no job starts for 30 s (ten times 3 s)
    with django_capture_on_commit_callbacks(execute=True):
        _submitted(work, work.annotators[1:])
    spaced = api.get(url)
    assert spaced.status_code == 202 and spaced.json()["job"] is None and exports.count() == 1
    assert 25 <= int(spaced["Retry-After"]) <= 30
    next_at = spaced.json()["next_at"]
    assert next_at and spaced.json()["stored"]["id"] == exports.get().pk
    # and the export page says when it is computed again, and reloads itself just after
    client.force_login(work.lead)
    page = client.get(reverse("export", args=["lead-spaced"]) + "?format=distributions-json").content.decode()
    assert 'id="job-next"' in page and "at most once per 10 times the length of its last computation" in page
    refresh = int(page.split('http-equiv="refresh" content="', 1)[1].split('"', 1)[0])
    assert 26 <= refresh <= 31 and exports.count() == 1
    # once that time has passed, the next ask starts the job
    exports.update(finished_at=timezone.now() - timedelta(seconds=31))
    again = api.get(url)
    assert again.status_code == 202 and again.json()["job"]["state"] == "queued" and exports.count() == 2
    # and a result that took long waits at most JOB_RECOMPUTE_MAX_WAIT_SECONDS
    from annotator.services.jobs import recompute_at

    slow = _worker_ran(exports.get(state="queued"), took=600.0)
    assert recompute_at(slow) == slow.finished_at + timedelta(seconds=120)


@pytest.mark.django_db
def test_the_version_a_stored_result_is_compared_with_reads_a_few_rows_and_moves_with_every_change(
    tasks_sent, django_capture_on_commit_callbacks, django_assert_max_num_queries
):
    """``judgements_version`` changes with a submission, a reopening, an exclusion, an import and the quality
    thresholds (each write of what the judgements count), never with a lead's request for the statistics; and it
    reads the same few rows whatever the project's size."""
    from annotator.services.exclusions import annotator_exclude
    from evaluation.selectors.fingerprint import judgements_version
    from evaluation.services.schedule import statistics_request

    work = project_with_work("stc3", slug="lead-version", annotators=3)
    project = work.project
    seen = [judgements_version(project)]

    def moved() -> bool:
        seen.append(judgements_version(project))
        return seen[-1] != seen[-2]

    with django_capture_on_commit_callbacks(execute=True):
        _submitted(work, work.annotators[:1])
    assert moved()
    # a lead asking for the statistics (the dashboard's first visit, "Recompute") changes nothing the results read
    statistics_request(project_id=project.pk, changed=False)
    assert not moved()
    with django_capture_on_commit_callbacks(execute=True):
        annotator_exclude(
            project=project, username=work.annotators[2].username, reason="too fast", excluded_by=work.lead
        )
    assert moved()
    with django_capture_on_commit_callbacks(execute=True):
        _submitted(work, work.annotators[1:2])
    assert moved()
    # a lead reopens a submitted item: it no longer counts
    from annotator.services.judgements import assignment_reopen

    with django_capture_on_commit_callbacks(execute=True):
        assignment_reopen(assignment_id=work.assignments_of(work.annotators[1])[0].pk, reason="check turn 2")
    assert moved()
    with django_assert_max_num_queries(12):
        judgements_version(project)
