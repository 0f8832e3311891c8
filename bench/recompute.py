"""Full statistics of the STC-3 Chinese training set through a Celery worker, and a run scored there.

Starts a throwaway PostgreSQL and Redis (scripts/services.py) and a worker process, imports the
3,700 dialogues x 19 annotators, then times (1) a recomputation sent through Redis to the worker
until its result is back (every agreement statistic, by speaker, UCH with its jackknife interval,
per-annotator figures, distributions, disputed units; stored), target < 10 s; and (2) scoring an
uploaded run on the worker including the database reads and writes, target < 2 s.

    .venv/bin/python bench/recompute.py
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

from _setup import ROOT, django_on_postgres, extract
from services import celery_worker_command


def main() -> None:
    env = django_on_postgres(with_redis=True)
    from annotator.services.imports import dialogues_import
    from annotator.services.projects import project_create
    from config.celery import app
    from evaluation.models import Run
    from evaluation.runs.services.upload import run_upload
    from evaluation.tasks import recompute_statistics
    from tests.reference_scoring import random_stc3_run

    app.conf.task_always_eager = False
    app.conf.broker_url = os.environ["CELERY_BROKER_URL"]
    app.conf.result_backend = os.environ["CELERY_RESULT_BACKEND"]
    worker_env = dict(os.environ, DJANGO_SETTINGS_MODULE="config.settings.test", **env)
    worker = subprocess.Popen(
        celery_worker_command(),
        cwd=ROOT,
        env=worker_env,
    )
    try:
        while not app.control.ping(timeout=0.5):
            time.sleep(0.2)
        with tempfile.TemporaryDirectory() as tmp:
            path = extract("stc3.zip", "stc3/train_data_cn.json", Path(tmp))
            dialogues = json.loads(path.read_text(encoding="utf-8"))
            project = project_create(slug=f"bench-recompute-{int(time.time())}", preset="stc3")
            report = dialogues_import(project=project, paths=[path])
        print(f"imported                        {report.dialogues} dialogues, {report.judgements} judgements")
        timings = []
        for _attempt in range(2):
            started = time.perf_counter()
            answer = recompute_statistics.apply_async(args=(project.pk, True)).get(timeout=300)
            timings.append(time.perf_counter() - started)
        print(
            f"recompute via worker            {timings[0]:.2f} s, again {timings[1]:.2f} s   (target < 10 s); "
            f"{answer['n_judgements']} judgements"
        )
        run = random_stc3_run(dialogues, seed=3)
        raw = json.dumps(run).encode()
        scoring_times = []
        for attempt in range(2):
            started = time.perf_counter()
            uploaded = run_upload(project=project, name=f"bench-{attempt}", files=[("run.json", raw)])
            while Run.objects.filter(pk=uploaded.pk, status="pending").exists():  # the worker scores it
                time.sleep(0.02)
            scoring_times.append(time.perf_counter() - started)
            assert Run.objects.get(pk=uploaded.pk).status == "scored"
        print(
            f"upload + score a run on worker   {scoring_times[0]:.2f} s, again {scoring_times[1]:.2f} s   "
            f"(target < 2 s; {len(run)} dialogues)"
        )
    finally:
        worker.terminate()
        worker.wait(timeout=30)


if __name__ == "__main__":
    main()
