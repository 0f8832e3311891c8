"""Annotators saving at a steady rate through gunicorn while 4 lead clients ask for each heavy lead page at once.

Starts a throwaway PostgreSQL and Redis, gunicorn (``--workers 4``, sync, preloaded, as the issue measured it) and
a Celery worker per queue as the compose file runs them (interactive, heavy, exports; concurrency 1, at their
lower CPU priority); imports the STC-3 Chinese training dialogues with their annotations (the pilot labels a power
analysis and a judge's report read) into a project with ``--clients`` live annotators (K = 3) and a judge.

Scenarios, each ``--seconds`` long: ``baseline`` (the saves alone), then one per heavy page, during which 4 lead
clients (4 lead accounts) each ask for the page: the power analysis (``?k_max=50``), the judge report page and its
API, the study report, the gold export (distributions as CSV), the Parquet dataset (when pyarrow is installed) and
the project archive. The pages answer with the stored result or the job at work (never computing in the request);
the saves' latency is what annotators wait meanwhile. The leads' clients behave as the platform's own do
(``client_wait``: a page reloads itself after its meta refresh, an API client asks again after ``Retry-After``, a
result shown is read for ``--think`` seconds); ``--hostile`` makes them ask again as soon as answered instead (a
client no page or documented API use produces; a proxy's rate limit is the answer to it).

Prints one JSON line per scenario: ``{"scenario", "leads", "save_p50_ms", "save_p95_ms", "saves",
"baseline_p95_ms", "lead_requests", "lead_statuses", "jobs_done"}``, then the load average. Target: save p95 under
every scenario at most 2x the baseline.

    .venv/bin/python bench/lead_load.py [--clients 20] [--every 1] [--seconds 30] [--dialogues 3700] [--only NAME]
        [--think 5] [--hostile]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import requests
from _setup import ROOT, django_on_postgres, extract, stc3_save_body
from services import free_port

LEADS = 4
PASSWORD = "x-lead-load-pass-1"


def worker_command(queue: str) -> list[str]:
    """The compose file's worker of ``queue`` (concurrency 1: the machine is small)."""
    return [
        sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", queue, "-n", f"{queue}@%h",
        "--concurrency=1", "--max-memory-per-child=1048576", "--loglevel=WARNING",
    ]  # fmt: skip


def login(base: str, username: str) -> requests.Session:
    session = requests.Session()
    page = session.get(f"{base}/accounts/login/", timeout=60)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    answer = session.post(
        f"{base}/accounts/login/",
        data={"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token},
        headers={"Referer": f"{base}/accounts/login/"},
        allow_redirects=False,
        timeout=60,
    )
    assert answer.status_code == 302, answer.status_code
    return session


def client_wait(answer: requests.Response, think: float) -> float:
    """Seconds a lead's client waits before asking again, as the platform's clients do: a page reloads itself after
    its meta refresh (while a job is at work, or until a stale result is computed again); an API client asks again
    after ``Retry-After`` (202 while a job is at work, 429 beyond the rate of starts); a lead given a page or a
    result without either reads it ``think`` seconds first."""
    if answer.headers.get("Retry-After", "").isdigit():
        return float(answer.headers["Retry-After"])
    refresh = (
        re.search(r'http-equiv="refresh" content="(\d+)"', answer.text[:4000])
        if "html" in answer.headers.get("Content-Type", "")
        else None
    )
    return float(refresh.group(1)) if refresh else think


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=20, help="annotators saving")
    parser.add_argument("--every", type=float, default=1.0, help="seconds between one annotator's saves")
    parser.add_argument("--seconds", type=float, default=30, help="length of each scenario")
    parser.add_argument("--dialogues", type=int, default=3700)
    parser.add_argument("--only", default="", help="the scenarios whose name contains this (default: all)")
    parser.add_argument(
        "--think", type=float, default=5.0, help="seconds a lead's client waits after a page or result it was given"
    )
    parser.add_argument(
        "--hostile", action="store_true", help="leads ask again as soon as answered, ignoring Retry-After and refresh"
    )
    args = parser.parse_args()
    env = django_on_postgres(with_redis=True)
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from annotator.handout.services.bulk import assignments_create_balanced
    from annotator.models import Assignment, Job, JobState
    from annotator.services.imports import dialogues_import
    from annotator.services.projects import membership_add, project_create
    from evaluation.services.statistics import statistics_recompute

    sys.path.insert(0, str(ROOT))
    from tests.factories import judge_copying

    User = get_user_model()
    with tempfile.TemporaryDirectory() as tmp:
        source = extract("stc3.zip", "stc3/train_data_cn.json", Path(tmp))
        dialogues = json.loads(source.read_text(encoding="utf-8"))[: args.dialogues]
        subset = Path(tmp) / "subset.json"
        subset.write_text(json.dumps(dialogues, ensure_ascii=False), encoding="utf-8")
        project = project_create(slug=f"lead-load-{int(time.time())}", preset="stc3", annotators_per_dialogue=3)
        dialogues_import(project=project, paths=[subset])
    users, tokens = [], []
    for i in range(args.clients):
        user = User.objects.create_user(username=f"ll{i}-{project.pk}", password=PASSWORD)
        membership_add(project=project, user=user, role="annotator")
        users.append(user)
        tokens.append(Token.objects.create(user=user).key)
    leads = []
    for i in range(LEADS):
        lead = User.objects.create_user(username=f"lead{i}-{project.pk}", password=PASSWORD)
        membership_add(project=project, user=lead, role="lead")
        leads.append(lead)
    lead_token = Token.objects.create(user=leads[0]).key
    assignments_create_balanced(project=project)
    judge = judge_copying(project, 0, "copy-of-the-first")
    statistics_recompute(project_id=project.pk)
    turns = {d["id"]: [t["sender"] for t in d["turns"]] for d in dialogues}
    work = {
        u.pk: list(
            Assignment.objects.filter(annotator=u).order_by("queue_rank").values_list("pk", "dialogue__external_id")
        )
        for u in users
    }

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server_env = dict(os.environ, DJANGO_SETTINGS_MODULE="config.settings.test", **env)
    server_env.update(ALLOWED_HOSTS="127.0.0.1,localhost", API_WRITE_RATE="1000000/minute")
    server_env["JOB_RECOMPUTE_DUTY_FACTOR"] = "10"  # the production default (the test settings recompute at once)
    media = tempfile.mkdtemp(prefix="lead-load-media-")
    server_env["MEDIA_ROOT"] = media
    gunicorn = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "config.wsgi:application", "--bind", f"127.0.0.1:{port}",
         "--workers", "4", "--preload", "--log-level", "warning"],
        cwd=ROOT, env=server_env,
    )  # fmt: skip
    workers = [
        subprocess.Popen(worker_command(q), cwd=ROOT, env=server_env) for q in ("interactive", "heavy", "exports")
    ]
    waited = time.monotonic()
    while time.monotonic() - waited < 120:
        try:
            requests.get(f"{base}/accounts/login/", timeout=5)
            break
        except requests.RequestException:
            time.sleep(0.2)
    sessions = [login(base, lead.username) for lead in leads]
    slug = project.slug
    pages = {
        "power k_max=50": f"/projects/{slug}/dashboard/power/?k_max=50",
        "judge report page": f"/projects/{slug}/manage/judges/{judge.name}/report/",
        "judge report API": f"/api/projects/{slug}/judges/{judge.name}/report/",
        "study report": f"/projects/{slug}/report/",
        "gold export (distributions-csv)": f"/api/projects/{slug}/export/?format=distributions-csv",
        "archive": f"/api/projects/{slug}/archive/",
    }
    try:
        import pyarrow  # noqa: F401

        pages["parquet export"] = f"/api/projects/{slug}/export/?format=parquet"
    except ImportError:
        pass

    steps = {u.pk: 0 for u in users}

    def scenario(name: str, path: str | None) -> dict:
        latencies: list[float] = []
        lead_statuses: Counter = Counter()
        lock = threading.Lock()
        deadline = time.monotonic() + args.seconds
        jobs_before = Job.objects.filter(project=project, state=JobState.DONE).count()

        def annotator(index: int) -> None:
            session = requests.Session()
            session.headers["Authorization"] = f"Token {tokens[index]}"
            items = work[users[index].pk]
            due = time.monotonic() + args.every * index / max(1, args.clients)
            while time.monotonic() < deadline:
                time.sleep(max(0.0, due - time.monotonic()))
                due += args.every
                step = steps[users[index].pk]
                steps[users[index].pk] += 1
                assignment_id, external_id = items[(step // 3) % len(items)]
                body = stc3_save_body(turns[external_id], complete=step % 3 > 0, seed=index)
                body["submit"] = step % 3 == 2
                started = time.perf_counter()
                try:
                    answer = session.post(f"{base}/api/assignments/{assignment_id}/judgements/", json=body, timeout=120)
                    ok = answer.status_code in (200, 409)
                except requests.RequestException:
                    ok = False
                with lock:
                    if ok:
                        latencies.append(time.perf_counter() - started)

        def lead(index: int) -> None:
            session = sessions[index]
            if path.startswith("/api/"):
                session = requests.Session()
                session.headers["Authorization"] = f"Token {lead_token}"
            while time.monotonic() < deadline:
                wait = 0.0
                try:
                    answer = session.get(f"{base}{path}", timeout=120)
                    status = answer.status_code
                    wait = 0.0 if args.hostile else client_wait(answer, args.think)
                except requests.RequestException as exc:
                    status = type(exc).__name__
                with lock:
                    lead_statuses[str(status)] += 1
                time.sleep(min(wait, max(0.0, deadline - time.monotonic())))

        threads = [threading.Thread(target=annotator, args=(i,)) for i in range(args.clients)]
        if path is not None:
            threads += [threading.Thread(target=lead, args=(i,)) for i in range(LEADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        ordered = sorted(latencies)

        def pct(q: float) -> float:
            return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 1) if ordered else None

        return {
            "scenario": name,
            "leads": "hostile" if args.hostile else "as documented",
            "save_p50_ms": pct(0.5),
            "save_p95_ms": pct(0.95),
            "saves": len(ordered),
            "lead_requests": sum(lead_statuses.values()),
            "lead_statuses": dict(lead_statuses),
            "jobs_done": Job.objects.filter(project=project, state=JobState.DONE).count() - jobs_before,
        }

    try:
        baseline = scenario("baseline", None)
        baseline["baseline_p95_ms"] = baseline["save_p95_ms"]
        print(json.dumps(baseline), flush=True)
        for name, path in pages.items():
            if args.only not in name:
                continue
            result = scenario(name, path)
            result["baseline_p95_ms"] = baseline["save_p95_ms"]
            print(json.dumps(result), flush=True)
    finally:
        gunicorn.terminate()
        for worker in workers:
            worker.terminate()
        gunicorn.wait(timeout=30)
        for worker in workers:
            try:
                worker.wait(timeout=60)
            except subprocess.TimeoutExpired:
                worker.kill()
    print(f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)


if __name__ == "__main__":
    main()
