"""Background work: the broker and result store, the one table of tasks (queue and time limits), beat's schedule,
the workers' memory cap and the timing of the work they run (``config.celery`` is the Celery app that reads them).

Every piece of background work is a Celery task run by a worker, everywhere: with Redis (``CELERY_BROKER_URL``)
for a team, and on the embedded default (``./scripts/serve.sh``) with kombu's filesystem transport, a folder of
message files beside the SQLite database, which needs no server (docs/deployment.md says why that one).
"""

from pathlib import Path

import dj_database_url

from config.env import env_int, env_str

_BASE_DIR = Path(__file__).resolve().parent.parent.parent


def embedded_broker_folder() -> Path:
    """The filesystem broker's folder: ``EMBEDDED_BROKER_DIR``, else ``<database file>-broker`` beside the SQLite
    database (each database its own queues: two ``serve.sh`` on two files never share work), else ``.broker``."""
    explicit = env_str("EMBEDDED_BROKER_DIR", "")
    if explicit:
        return Path(explicit)
    url = env_str("DATABASE_URL", f"sqlite:///{_BASE_DIR / 'db.sqlite3'}")
    if url.startswith("sqlite:"):
        database = Path(dj_database_url.parse(url)["NAME"])
        return database.with_name(f"{database.stem}-broker")
    return _BASE_DIR / ".broker"


CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", env_str("REDIS_URL", "")) or "filesystem://localhost//"
EMBEDDED_BROKER = CELERY_BROKER_URL.startswith("filesystem:")
# results are read by nobody but the tests' worker checks: the jobs' own records (annotator.models.Job) say what
# happened; a broker without a result store (the embedded one) keeps none
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", "" if EMBEDDED_BROKER else CELERY_BROKER_URL) or None
CELERY_TASK_IGNORE_RESULT = CELERY_RESULT_BACKEND is None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None  # a worker waits for its broker however long it is away
CELERY_BROKER_CONNECTION_TIMEOUT = 2
if EMBEDDED_BROKER:
    _folder = embedded_broker_folder()
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_folder / "messages"),
        "data_folder_out": str(_folder / "messages"),
        "control_folder": str(_folder / "control"),
        "polling_interval": 0.5,
    }
    CELERY_BEAT_SCHEDULE_FILENAME = str(_folder / "beat-schedule")
else:
    # A task taken by a worker that dies (SIGKILL, lost machine) goes back to the queue after the visibility
    # timeout: it must exceed the longest task and countdown (the hard time limits below). Before that, beat's
    # sweep of the jobs (annotator.services.jobs) ends or sends again a job whose worker is gone.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "socket_connect_timeout": 2,
        "socket_timeout": 5,
        "socket_keepalive": True,
        "health_check_interval": 10,
        "retry_on_timeout": True,
        "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 7200),
    }
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {
    "socket_connect_timeout": 2,
    # fail fast when Redis is down: a submission must not wait for the result store
    "retry_policy": {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2},
}

# Three queues, each served by its own workers (docker-compose: worker-interactive, worker-heavy, worker-exports;
# scale each with --scale): statistics recomputations are never stuck behind an import or a significance test.
TASK_QUEUES = ("interactive", "heavy", "exports")
CELERY_TASK_DEFAULT_QUEUE = "interactive"
# Per queue, a cap on the hard time limits below (TASK_TIME_LIMIT_HEAVY=600 shortens every heavy task to 10 min).
TASK_TIME_LIMIT_CAPS = {queue: env_int(f"TASK_TIME_LIMIT_{queue.upper()}", 0) for queue in TASK_QUEUES}
# The one table of tasks: the queue each runs on and its hard time limit in seconds. The soft limit comes
# TASK_SOFT_MARGIN seconds earlier (a tenth of a short limit): the task is told (SoftTimeLimitExceeded), ends its
# job with "stopped at its time limit" and lets go; at the hard limit its process is killed and replaced. Every
# task of the apps must be here (tests/platform/test_queues.py checks it), so none runs unbounded.
TASKS = {
    # interactive: what leads and annotators wait for
    "evaluation.tasks.recompute_statistics": ("interactive", 900),
    "evaluation.tasks.rebuild_live_statistics": ("interactive", 900),
    "annotator.tasks.deliver_webhook": ("interactive", 60),  # one POST (WEBHOOK_TIMEOUT_SECONDS per read)
    "annotator.tasks.sweep_jobs": ("interactive", 120),
    "evaluation.tasks.requeue_unqueued_runs": ("interactive", 120),
    # heavy: imports, scoring, models, judges
    "annotator.tasks.run_import_batch": ("heavy", 3600),
    "annotator.tasks.run_endpoint_judge": ("heavy", 3600),
    "evaluation.tasks.score_uploaded_run": ("heavy", 1800),
    "evaluation.tasks.estimate_model_reliability": ("heavy", 1800),
    "evaluation.tasks.refresh_run_comparisons": ("heavy", 1800),
    "evaluation.tasks.rescore_stale_runs": ("heavy", 3600),
    "evaluation.tasks.compute_power": ("heavy", 900),
    "evaluation.tasks.compute_judge_report": ("heavy", 900),
    "evaluation.tasks.compute_study_report": ("heavy", 900),
    # exports: files written for download
    "evaluation.tasks.export_gold": ("exports", 1800),
    "evaluation.tasks.export_archive": ("exports", 3600),
}


def _hard(task: str) -> int:
    queue, limit = TASKS[task]
    cap = TASK_TIME_LIMIT_CAPS[queue]
    return min(limit, cap) if cap > 0 else limit


def soft_limit(hard: int) -> int:
    """The soft time limit of a task whose hard limit is ``hard`` seconds: a tenth earlier, at most a minute."""
    return max(1, hard - min(60, max(1, hard // 10)))


TASK_TIME_LIMITS = {task: (soft_limit(_hard(task)), _hard(task)) for task in TASKS}  # task -> (soft, hard)
CELERY_TASK_ROUTES = {task: {"queue": queue} for task, (queue, _limit) in TASKS.items()}
# Celery sets each task's limits from its annotation (the table above is the one source)
CELERY_TASK_ANNOTATIONS = {
    task: {"soft_time_limit": soft, "time_limit": hard} for task, (soft, hard) in TASK_TIME_LIMITS.items()
}
# and any task not in the table still has a bound (a test fails on such a task: this is the safety net)
CELERY_TASK_TIME_LIMIT = 900
CELERY_TASK_SOFT_TIME_LIMIT = soft_limit(900)
# A worker's pool process that grew past this many KiB is replaced once its task is done (the worker commands in
# docker-compose.yml and scripts/serve.sh pass it too, as --max-memory-per-child)
CELERY_WORKER_MAX_MEMORY_PER_CHILD = env_int("WORKER_MAX_MEMORY_PER_CHILD_KB", 1_048_576)
WORKER_NICENESS = env_int("WORKER_NICENESS", 10)  # 0-19; see config.celery.lower_cpu_priority

# Jobs (annotator.models.Job): beat's sweep runs every JOB_SWEEP_SECONDS; a running job whose deadline (its
# start plus its hard time limit) passed JOB_SWEEP_GRACE_SECONDS ago has lost its worker, and a job sent longer
# than JOB_RESEND_AFTER_SECONDS ago that no worker took is sent again (the message was lost with the broker's
# data); each is sent again up to JOB_MAX_ATTEMPTS times in all, then ended, its page saying why. Finished jobs
# are deleted after JOB_KEEP_DAYS (the last stored result of each report and export is kept).
JOB_SWEEP_SECONDS = env_int("JOB_SWEEP_SECONDS", env_int("RUN_SWEEP_SECONDS", 60))
JOB_SWEEP_GRACE_SECONDS = env_int("JOB_SWEEP_GRACE_SECONDS", 30)
JOB_RESEND_AFTER_SECONDS = env_int("JOB_RESEND_AFTER_SECONDS", env_int("RUN_REQUEUE_AFTER_SECONDS", 3600))
JOB_MAX_ATTEMPTS = env_int("JOB_MAX_ATTEMPTS", 2)
JOB_KEEP_DAYS = env_int("JOB_KEEP_DAYS", 7)
# Lead pages and endpoints that start a job (a report, an export, a power analysis): per user (DRF's rate syntax)
JOB_START_RATE = env_str("JOB_START_RATE", "20/minute")
# A stored result the judgements changed since is computed again once at least this many times its last
# computation's duration has passed since it ended (at most JOB_RECOMPUTE_MAX_WAIT_SECONDS): while annotators keep
# saving, a lead's page reloading itself costs the workers at most a tenth of their time per result (0: at once)
JOB_RECOMPUTE_DUTY_FACTOR = float(env_str("JOB_RECOMPUTE_DUTY_FACTOR", "10"))
JOB_RECOMPUTE_MAX_WAIT_SECONDS = float(env_str("JOB_RECOMPUTE_MAX_WAIT_SECONDS", "120"))

STATISTICS_DEBOUNCE_SECONDS = float(env_str("STATISTICS_DEBOUNCE_SECONDS", "3"))
STATISTICS_DUTY_FACTOR = float(env_str("STATISTICS_DUTY_FACTOR", "10"))
# the latent-truth models' estimate after a recomputation waits at least this (a burst of submissions, or a busy
# hour, costs one estimate: they take tens of seconds on a large project and annotators' reliability moves slowly)
MODEL_ESTIMATE_DELAY_SECONDS = float(env_str("MODEL_ESTIMATE_DELAY_SECONDS", "120"))
# ...and fits each model up to this many judgements of a criterion (GLAD's M-step takes minutes on DBDC3's 60,000;
# 0: that model is not fitted, its figures say why): MODEL_LIMIT_DAWID_SKENE, MODEL_LIMIT_GLAD, MODEL_LIMIT_MACE
MODEL_LIMITS = {
    method: env_int(f"MODEL_LIMIT_{method.upper().replace('-', '_')}", default)
    for method, default in (("dawid-skene", 200_000), ("glad", 5_000), ("mace", 30_000))
}
# a pending recomputation not started this long after it was due is sent again (its worker died)
STATISTICS_TAKEOVER_GRACE_SECONDS = float(env_str("STATISTICS_TAKEOVER_GRACE_SECONDS", "60"))
COMPARISON_TRIALS = int(env_str("COMPARISON_TRIALS", "2000"))
# how often beat re-sends runs that never reached (or lost) their workers
RUN_SWEEP_SECONDS = env_int("RUN_SWEEP_SECONDS", 60)
RUN_REQUEUE_AFTER_SECONDS = env_int("RUN_REQUEUE_AFTER_SECONDS", 3600)  # ...or were sent this long ago, still pending
# webhooks (annotator.services.webhooks): each attempt's time limit, the first retry's delay (doubling after
# each failure, at most an hour) and the attempts before a delivery is given up as failed
WEBHOOK_TIMEOUT_SECONDS = float(env_str("WEBHOOK_TIMEOUT_SECONDS", "10"))
WEBHOOK_RETRY_SECONDS = float(env_str("WEBHOOK_RETRY_SECONDS", "30"))
WEBHOOK_MAX_ATTEMPTS = env_int("WEBHOOK_MAX_ATTEMPTS", 6)
CELERY_BEAT_SCHEDULE = {
    "sweep-jobs": {"task": "annotator.tasks.sweep_jobs", "schedule": JOB_SWEEP_SECONDS},
    "requeue-unqueued-runs": {"task": "evaluation.tasks.requeue_unqueued_runs", "schedule": RUN_SWEEP_SECONDS},
}
