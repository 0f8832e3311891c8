"""End to end through a real Celery worker on Redis and PostgreSQL: recomputation, runs, outages."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from datetime import timedelta

import numpy as np
import pytest
from django.conf import settings
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotator.services.imports import dialogues_import
from annotator.services.projects import membership_add
from evaluation.models import ModelReliability, ProjectStatistics, Run, StatisticsJob
from evaluation.services.schedule import statistics_request
from evaluation.tasks import recompute_statistics
from tests.conftest import ROOT, database_url, start_worker, stop_worker
from tests.fixtures.collections import dbdc_turn_counts, stc3_dialogues, write_json
from tests.reference_scoring import gold_of, random_stc3_run, score_stc3
from tests.waiting import queued_tasks, wait_for

pytestmark = [
    pytest.mark.worker,
    pytest.mark.postgres(reason="a Celery worker in another process, through Redis, shares the database"),
    pytest.mark.django_db(transaction=True),
]


def lead_client(project, make_user, name="lead"):
    user = make_user(name)
    membership_add(project=project, user=user, role="lead")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


@pytest.mark.shared_data
def test_dbdc3_eval_agreement_through_worker_and_api(celery_worker_process, dbdc_dir, make_project, make_user):
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    project = make_project("dbdc", slug="dbdc-e2e")
    dialogues_import(project=project, paths=[dbdc_dir / "eval"])
    answer = recompute_statistics.delay(project.pk).get(timeout=180)
    assert answer["n_judgements"] == 60000
    response = lead_client(project, make_user).get("/api/projects/dbdc-e2e/stats/")
    assert response.status_code == 200
    assert (
        response["X-Statistics-Computed-At"] == ProjectStatistics.objects.get(project=project).computed_at.isoformat()
    )
    breakdown = response.json()["criteria"]["breakdown"]
    counts = dbdc_turn_counts(dbdc_dir / "eval")
    assert breakdown["n_units"] == len(counts) == 2000
    assert breakdown["fleiss_kappa"] == pytest.approx(sm_fleiss(counts, method="fleiss"), abs=1e-9)
    merged = np.stack([counts[:, 0] + counts[:, 1], counts[:, 2]], axis=1)
    assert breakdown["merges"]["NB+PB,B"]["fleiss_kappa"] == pytest.approx(sm_fleiss(merged), abs=1e-9)


@pytest.mark.shared_data
def test_stc3_training_set_run_scored_by_the_worker(celery_worker_process, stc3_dir, make_project, make_user):
    project = make_project("stc3", slug="stc-e2e")
    dialogues_import(project=project, paths=[stc3_dir / "train_data_en.json"])
    data = json.loads((stc3_dir / "train_data_en.json").read_text(encoding="utf-8"))
    run = random_stc3_run(data, seed=11)
    client = lead_client(project, make_user)
    upload = io.BytesIO(json.dumps(run).encode())
    upload.name = "sys.json"
    response = client.post("/api/projects/stc-e2e/runs/", {"name": "sys", "files": [upload]}, format="multipart")
    assert response.status_code == 202 and response.json()["status"] == "pending"
    run_id = response.json()["id"]
    # (the run's scoring waits on the session's worker behind the imported set's statistics and models)
    assert wait_for(lambda: Run.objects.get(pk=run_id).status != "pending", 240)
    scored = client.get(f"/api/projects/stc-e2e/runs/{run_id}/").json()
    assert scored["status"] == "scored", scored["error"]
    expected = score_stc3(run, gold_of(data))
    for key in "ASE":
        assert scored["scores"]["quality"][key]["rsnod"] == pytest.approx(expected["quality"][key]["rsnod"], abs=1e-9)
        assert scored["scores"]["quality"][key]["nmd"] == pytest.approx(expected["quality"][key]["nmd"], abs=1e-9)
    assert scored["scores"]["nugget"]["jsd"] == pytest.approx(expected["nugget"]["jsd"], abs=1e-9)
    per_dialogue = client.get(f"/api/projects/stc-e2e/runs/{run_id}/per-dialogue/").json()
    assert len(per_dialogue) == 1672


def test_a_burst_of_requests_causes_one_recomputation(celery_worker_process, make_project, tmp_path):
    project = make_project("stc3", slug="burst")
    dialogues_import(project=project, paths=[write_json(tmp_path / "s.json", stc3_dialogues())])
    scheduled = [statistics_request(project_id=project.pk) for _ in range(8)]
    assert scheduled == [True] + [False] * 7
    assert wait_for(lambda: StatisticsJob.objects.get(project=project).recomputations == 1)
    # nothing else was queued: the broker holds no recomputation, waiting or reserved
    assert wait_for(lambda: queued_tasks(settings.CELERY_BROKER_URL, recompute_statistics.name, "interactive") == 0, 30)
    job = StatisticsJob.objects.get(project=project)
    assert job.recomputations == 1 and not job.pending
    assert ProjectStatistics.objects.get(project=project).n_judgements == 22


def test_broker_down_submissions_are_kept_and_recomputed_later(
    celery_worker_process, make_project, make_user, tmp_path
):
    from annotator.handout.services.bulk import assignments_create_balanced
    from annotator.models import Assignment

    project = make_project("stc3", slug="outage", annotators_per_dialogue=1)
    dialogues_import(project=project, paths=[write_json(tmp_path / "s.json", [stc3_dialogues()[1]])])
    ann = make_user("ann")
    membership_add(project=project, user=ann, role="annotator")
    assignments_create_balanced(project=project)
    item = Assignment.objects.get(annotator=ann)
    # an app process whose broker is down (nothing listens on port 9) takes the annotator's submission
    code = (
        "from annotator.services.judgements import Given, judgements_save\n"
        f"judgements_save(assignment_id={item.pk}, user_id_placeholder, "
        "values=[Given('A', 0, '1'), Given('S', 0, '0'), "
        "Given('E', 0, '-1'), Given('nugget', 0, 'CNUG0'), Given('nugget', 1, 'HNUG')], submit=True)\n"
        "print('saved')\n"
    ).replace(
        "user_id_placeholder",
        f"user=__import__('django.contrib.auth', fromlist=['get_user_model'])"
        f".get_user_model().objects.get(pk={ann.pk})",
    )
    env = dict(
        os.environ,
        DATABASE_URL=database_url(),
        CELERY_BROKER_URL="redis://127.0.0.1:9/0",
        CELERY_RESULT_BACKEND="redis://127.0.0.1:9/1",
        DJANGO_SETTINGS_MODULE="config.settings.test",
    )
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0 and "saved" in result.stdout, result.stderr
    assert time.monotonic() - started < 12  # a new process, and no wait for the broker
    assert "could not send evaluation.tasks.recompute_statistics" in result.stderr
    item.refresh_from_db()
    assert item.status == "submitted" and item.judgements.count() == 5  # nothing lost
    job = StatisticsJob.objects.get(project=project)
    assert not job.pending and "unreachable" in job.last_error
    assert not ProjectStatistics.objects.filter(project=project).exists()
    # the broker is back: the lead's recompute goes through and covers the submission
    assert statistics_request(project_id=project.pk)
    # 2 imported annotations x 5 units + the annotator's 5
    assert wait_for(lambda: ProjectStatistics.objects.filter(project=project, n_judgements=15).exists())


def test_work_queued_while_no_worker_runs_is_done_when_one_starts(make_project, tmp_path):

    if not settings.CELERY_BROKER_URL:
        pytest.skip("needs Redis: scripts/run_tests.py starts redis-server and sets CELERY_BROKER_URL")
    project = make_project("stc3", slug="later")
    dialogues_import(project=project, paths=[write_json(tmp_path / "s.json", stc3_dialogues())])
    result = recompute_statistics.apply_async(args=(project.pk,), queue="no-worker-yet")
    # the task waits in its queue, which no worker reads yet
    assert (
        queued_tasks(settings.CELERY_BROKER_URL, recompute_statistics.name, "no-worker-yet") == 1 and not result.ready()
    )
    worker = start_worker(database_url(), tmp_path / "late-worker.log", queue="no-worker-yet", name="late-worker")
    try:
        assert result.get(timeout=90)["n_judgements"] == 22
    finally:
        stop_worker(worker)
    assert ProjectStatistics.objects.get(project=project).n_judgements == 22


def test_a_worker_killed_holding_the_recomputation_is_taken_over(make_project, make_user, tmp_path, settings):
    """SIGKILL the worker that holds the delayed recomputation, start another, submit: fresh statistics
    within seconds (not after Redis's one-hour visibility timeout)."""
    from annotator.handout.services.bulk import assignments_create_balanced
    from annotator.models import Assignment
    from config.celery import app
    from tests.factories import first_allowed_values

    if not settings.CELERY_BROKER_URL:
        pytest.skip("needs Redis: scripts/run_tests.py starts redis-server and sets CELERY_BROKER_URL")
    project = make_project("stc3", slug="takeover", annotators_per_dialogue=1)
    dialogues_import(project=project, paths=[write_json(tmp_path / "s.json", [stc3_dialogues()[1]])])
    ann = make_user("ann")
    membership_add(project=project, user=ann, role="annotator")
    assignments_create_balanced(project=project)
    item = Assignment.objects.get(annotator=ann)
    settings.STATISTICS_DEBOUNCE_SECONDS = 2
    settings.STATISTICS_TAKEOVER_GRACE_SECONDS = 1
    routes = app.conf.task_routes

    def route_recomputations(table) -> None:
        app.conf.task_routes = table
        app.amqp.flush_routes()  # Celery caches its routing table and router: rebuild them
        app.amqp.__dict__.pop("router", None)

    # only this test's workers take the recomputation
    route_recomputations({"evaluation.tasks.recompute_statistics": {"queue": "takeover"}})
    log = tmp_path / "doomed.log"
    doomed = start_worker(database_url(), log, queue="takeover", name="doomed-worker")
    rescuer = None
    try:
        # given a worker that received the delayed recomputation and holds it until its countdown ends
        requested = timezone.now()
        assert statistics_request(project_id=project.pk)
        assert wait_for(lambda: "recompute_statistics" in log.read_text() and "received" in log.read_text(), 30)
        # when it is killed (no chance to give the message back) and another worker starts
        os.kill(doomed.pid, signal.SIGKILL)
        doomed.wait(timeout=30)
        rescuer = start_worker(database_url(), tmp_path / "rescuer.log", queue="takeover", name="rescue-worker")
        job = StatisticsJob.objects.get(project=project)
        assert job.pending and job.recomputations == 0  # the lost recomputation never ran
        overdue = requested + timedelta(seconds=2 + settings.STATISTICS_TAKEOVER_GRACE_SECONDS + 0.5)
        while timezone.now() <= overdue:
            time.sleep(0.2)
        # and the annotator submits
        api = APIClient()
        api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=ann).key}")
        body = {
            "judgements": [
                {"criterion": v.criterion, "unit": v.unit, "value": v.value} for v in first_allowed_values(item)
            ],
            "submit": True,
        }
        assert api.post(f"/api/assignments/{item.pk}/judgements/", body, format="json").status_code == 200
        # then the statistics cover the submission within seconds: 2 imported annotations x 5 units + 5
        assert wait_for(lambda: ProjectStatistics.objects.filter(project=project, n_judgements=15).exists(), 30)
    finally:
        route_recomputations(routes)
        if doomed.poll() is None:
            doomed.kill()
        if rescuer is not None:
            stop_worker(rescuer)


def test_a_heavy_worker_killed_holding_the_estimate_is_taken_over_by_recompute_now(
    celery_worker_process, celery_worker_session, tmp_path, settings
):
    """SIGKILL the heavy worker that holds the delayed models' estimate: the lead's *Recompute now* sends it
    again once it is overdue, and the statistics carry the estimate (not after Redis's visibility timeout).
    The session's worker (idle, the queues purged of earlier tests' work: ``celery_worker_process``) stops
    consuming for the test: it would otherwise compute the statistics the submissions ask for, and the estimate
    they ask for, before the doomed worker is there to hold it. The test's workers fit MACE only (crowd-kit's
    Dawid-Skene and GLAD, and importing crowd-kit, took a minute of a loaded machine here; what is taken over
    is the estimate task whatever it fits: ``tests/platform/test_celery_worker.py`` has a worker fit all three)."""
    from django.test import Client

    from config.celery import app
    from evaluation.services.jobs import statistics_job_run
    from tests.factories import breakdown_project, submit_all

    if not settings.CELERY_BROKER_URL:
        pytest.skip("needs Redis: scripts/run_tests.py starts redis-server and sets CELERY_BROKER_URL")
    session_queues = ("interactive", "heavy", "exports")
    for queue_name in session_queues:
        app.control.cancel_consumer(queue_name, destination=[celery_worker_session.node], reply=True, timeout=5)
    work = breakdown_project(tmp_path, dialogues=4, annotators=2, k=2, slug="estimate-takeover")
    for person in work.annotators:
        submit_all(person, work.project, lambda a, k, u: "O")
    project = work.project
    settings.MODEL_ESTIMATE_DELAY_SECONDS = 2
    settings.STATISTICS_DEBOUNCE_SECONDS = 1
    # the recomputations go out after the debounce alone: spaced by ten times the last one's duration (seconds on
    # a loaded machine), the lead's recomputation waited a minute on the rescuer, past this test's wait below
    settings.STATISTICS_DUTY_FACTOR = 0
    quick = {
        "MODEL_ESTIMATE_DELAY_SECONDS": "1",
        "STATISTICS_DUTY_FACTOR": "0",
        "STATISTICS_TAKEOVER_GRACE_SECONDS": "1",
        "MODEL_LIMIT_DAWID_SKENE": "0",
        "MODEL_LIMIT_GLAD": "0",
    }
    routes = app.conf.task_routes

    def route(table) -> None:
        app.conf.task_routes = table
        app.amqp.flush_routes()  # Celery caches its routing table and router: rebuild them
        app.amqp.__dict__.pop("router", None)

    queue = {"queue": "estimate-takeover"}
    route({"evaluation.tasks.estimate_model_reliability": queue, "evaluation.tasks.recompute_statistics": queue})
    log = tmp_path / "doomed-heavy.log"
    doomed = start_worker(database_url(), log, queue="estimate-takeover", name="doomed-heavy", env=quick)
    rescuer = None
    try:
        # given statistics that wait for the estimate, and the heavy worker holding it until its countdown ends
        assert statistics_job_run(project_id=project.pk).payload["reliability"]["models_pending"] is True
        # (generous: under a loaded suite the worker's first receipt has taken over 30 s)
        received = wait_for(
            lambda: "estimate_model_reliability" in log.read_text() and "received" in log.read_text(), 120
        )
        assert received, _where_the_estimate_went(project.pk)
        # when it is killed (no chance to give the message back) and another worker starts
        os.kill(doomed.pid, signal.SIGKILL)
        doomed.wait(timeout=30)
        rescue_log = tmp_path / "rescuer.log"
        queues = "estimate-takeover,heavy"  # the rescuer's own estimate request goes to the heavy queue
        rescuer = start_worker(database_url(), rescue_log, queue=queues, name="rescue-heavy", env=quick)
        job = StatisticsJob.objects.get(project=project)
        assert job.models_pending
        overdue = job.models_due_at + timedelta(seconds=1.5)
        while timezone.now() <= overdue:
            time.sleep(0.2)
        # and the lead asks to recompute (the statistics are unchanged: only the estimate is missing)
        client = Client()
        client.force_login(work.lead)
        assert client.post(f"/projects/{project.slug}/dashboard/recompute/").status_code == 302
        # then the estimate is taken over and the statistics carry it within seconds

        def estimated() -> bool:
            stored = ProjectStatistics.objects.get(project=project)
            return stored.payload["reliability"]["models_pending"] is False

        assert wait_for(estimated, 60), rescue_log.read_text()[-3000:]
        # (the rescuer's estimate, of the judgements the statistics read)
        estimate = ModelReliability.objects.get(project=project)
        assert estimate.fingerprint == ProjectStatistics.objects.get(project=project).fingerprint
        assert estimate.payload and all(c["methods"]["mace"]["skipped"] == "" for c in estimate.payload.values())
        skipped = {m: c["methods"][m]["skipped"] for c in estimate.payload.values() for m in ("dawid-skene", "glad")}
        assert all("more than the 0 estimated" in why for why in skipped.values()), skipped  # MODEL_LIMIT_* read
    finally:
        route(routes)
        if doomed.poll() is None:
            doomed.kill()
        if rescuer is not None:
            stop_worker(rescuer)
        # what the test's submissions asked of the session's queues meanwhile is for a project flushed next: gone
        # before the session's worker consumes again (it spent minutes of a loaded machine on their estimate)
        app.control.purge()
        for queue_name in session_queues:
            app.control.add_consumer(queue_name, destination=[celery_worker_session.node], reply=True, timeout=5)


def test_runs_uploaded_while_redis_was_down_are_scored_once_it_is_back(
    celery_worker_process, make_project, make_user, tmp_path
):
    """Uploaded while the broker was down, a run waits for nothing but beat's sweep, which hands both projects'
    runs to the real worker; a page visit never sends work (no sweep runs inside a GET)."""
    from django.test import Client

    from evaluation.tasks import requeue_unqueued_runs

    source = write_json(tmp_path / "s.json", stc3_dialogues())
    run_file = write_json(tmp_path / "run.json", random_stc3_run(stc3_dialogues(), 8))
    projects = [make_project("stc3", slug=slug) for slug in ("down-page", "down-sweep")]
    for project in projects:
        dialogues_import(project=project, paths=[source])
    # an app process whose broker is down (nothing listens on port 9) takes both uploads
    code = (
        "from annotator.models import Project\n"
        "from evaluation.runs.services.upload import run_upload\n"
        f"raw = open({str(run_file)!r}, 'rb').read()\n"
        "for slug in ('down-page', 'down-sweep'):\n"
        "    run_upload(project=Project.objects.get(slug=slug), name='sys', files=[('run.json', raw)])\n"
        "print('uploaded')\n"
    )
    env = dict(
        os.environ,
        DATABASE_URL=database_url(),
        CELERY_BROKER_URL="redis://127.0.0.1:9/0",
        CELERY_RESULT_BACKEND="redis://127.0.0.1:9/1",
        DJANGO_SETTINGS_MODULE="config.settings.test",
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0 and "uploaded" in result.stdout, result.stderr
    assert "could not send evaluation.tasks.score_uploaded_run" in result.stderr
    runs = {r.project.slug: r for r in Run.objects.select_related("project")}
    assert all(r.status == "pending" and r.queued_at is None for r in runs.values())
    assert Run.objects.filter(status="pending").count() == 2  # the sends failed (above): nothing was queued
    # Redis is back: the lead's leaderboard shows the runs waiting, and its GET sends nothing...
    lead = make_user("lead")
    membership_add(project=projects[0], user=lead, role="lead")
    client = Client()
    client.force_login(lead)
    assert client.get("/projects/down-page/runs/").status_code == 200
    assert Run.objects.filter(status="pending", queued_at__isnull=True).count() == 2
    # ...beat's sweep, run by the worker, sends both
    assert requeue_unqueued_runs.delay().get(timeout=60) == 2
    for slug in ("down-page", "down-sweep"):
        assert wait_for(lambda slug=slug: Run.objects.get(pk=runs[slug].pk).status == "scored", 120), slug


def test_an_exclusion_rescores_every_run_on_the_workers(celery_worker_process, make_project, make_user, tmp_path):
    """Through the API and a real worker: three runs scored; the lead excludes an annotator; the worker's
    recomputation finds the new gold and the heavy queue scores every run again against it."""
    from evaluation.selectors.fingerprint import judgements_fingerprint

    project = make_project("stc3", slug="fresh-e2e")
    dialogues_import(project=project, paths=[write_json(tmp_path / "s.json", stc3_dialogues())])
    client = lead_client(project, make_user)
    for seed, name in enumerate(["r1", "r2", "r3"]):
        upload = io.BytesIO(json.dumps(random_stc3_run(stc3_dialogues(), seed=seed)).encode())
        upload.name = f"{name}.json"
        sent = client.post("/api/projects/fresh-e2e/runs/", {"name": name, "files": [upload]}, format="multipart")
        assert sent.status_code == 202, sent.content
    assert wait_for(lambda: not Run.objects.filter(project=project, status="pending").exists())
    assert list(Run.objects.filter(project=project).values_list("status", "error")) == [("scored", "")] * 3
    before = {r.name: r.scores["quality"] for r in Run.objects.filter(project=project)}
    first = client.get("/api/projects/fresh-e2e/exclusions/").json()["included"][0]
    excluded = client.post("/api/projects/fresh-e2e/exclusions/", {"annotator": first, "reason": "spam"})
    assert excluded.status_code == 201, excluded.content
    current = judgements_fingerprint(project)
    assert wait_for(lambda: Run.objects.filter(project=project, gold_fingerprint=current).count() == 3)
    listed = client.get("/api/projects/fresh-e2e/runs/").json()["results"]
    assert [r["stale"] for r in listed] == [False] * 3 and all(r["status"] == "scored" for r in listed)
    assert all(r["scores"]["quality"] != before[r["name"]] for r in listed)


def _where_the_estimate_went(project_id: int) -> str:
    """What a failure of the takeover test needs to say: whether tasks ran in-process, the job's state and what
    waits in each queue (the estimate should sit in ``estimate-takeover`` until the doomed worker takes it)."""
    import redis
    from django.conf import settings

    job = StatisticsJob.objects.filter(project_id=project_id).values().first()
    queues = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    waiting = {q: queues.llen(q) for q in ("estimate-takeover", "heavy", "interactive", "celery")}
    return f"job {job}; waiting {waiting}"
