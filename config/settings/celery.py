"""Background work: the broker and result store, the three queues and their routes, beat's schedule, the
tasks' time limits and the timing of the work they run (``config.celery`` is the Celery app that reads them)."""

from config.env import env_bool, env_int, env_str

# With no broker configured, tasks run in-process so one person needs no server.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", env_str("REDIS_URL", "")) or None
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", CELERY_BROKER_URL or "") or None
CELERY_TASK_ALWAYS_EAGER = CELERY_BROKER_URL is None
# without a broker, imports, run scoring and significance tests run in a thread of the web process (not in the request)
TASKS_IN_PROCESS_IN_BACKGROUND = env_bool("TASKS_IN_PROCESS_IN_BACKGROUND", True)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_TIMEOUT = 2
# A task taken by a worker that dies (SIGKILL, lost machine) goes back to the queue after the visibility
# timeout: it must exceed the longest task and countdown (the hard time limits below).
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "socket_connect_timeout": 2,
    "socket_timeout": 5,
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 7200),
}
# Three queues, each served by its own workers (docker-compose: worker-interactive, worker-heavy,
# worker-exports; scale each with --scale): statistics recomputations are never stuck behind an
# import or a significance test.
TASK_QUEUES = ("interactive", "heavy", "exports")
CELERY_TASK_DEFAULT_QUEUE = "interactive"
CELERY_TASK_ROUTES = {
    "evaluation.tasks.recompute_statistics": {"queue": "interactive"},
    "evaluation.tasks.score_uploaded_run": {"queue": "heavy"},
    "evaluation.tasks.estimate_model_reliability": {"queue": "heavy"},
    "evaluation.tasks.refresh_run_comparisons": {"queue": "heavy"},
    "evaluation.tasks.rescore_stale_runs": {"queue": "heavy"},
    "annotator.tasks.requeue_abandoned_imports": {"queue": "interactive"},
    "annotator.tasks.deliver_webhook": {"queue": "interactive"},  # one short POST (WEBHOOK_TIMEOUT_SECONDS)
    "annotator.tasks.*": {"queue": "heavy"},
    "*.export_*": {"queue": "exports"},
}
# Hard limits (a stuck task is killed and retried elsewhere); the soft limit comes a minute earlier.
TASK_TIME_LIMITS = {
    "interactive": env_int("TASK_TIME_LIMIT_INTERACTIVE", 900),
    "heavy": env_int("TASK_TIME_LIMIT_HEAVY", 3600),
    "exports": env_int("TASK_TIME_LIMIT_EXPORTS", 3600),
}
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {
    "socket_connect_timeout": 2,
    # fail fast when Redis is down: a submission must not wait for the result store
    "retry_policy": {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2},
}
WORKER_NICENESS = env_int("WORKER_NICENESS", 10)  # 0-19; see config.celery.lower_cpu_priority
STATISTICS_DEBOUNCE_SECONDS = float(env_str("STATISTICS_DEBOUNCE_SECONDS", "3"))
STATISTICS_DUTY_FACTOR = float(env_str("STATISTICS_DUTY_FACTOR", "10"))
# the latent-truth models' estimate after a recomputation waits at least this (a burst of submissions, or a busy
# hour, costs one estimate: they take tens of seconds on a large project and annotators' reliability moves slowly)
MODEL_ESTIMATE_DELAY_SECONDS = float(env_str("MODEL_ESTIMATE_DELAY_SECONDS", "120"))
# a pending recomputation not started this long after it was due is sent again (its worker died)
STATISTICS_TAKEOVER_GRACE_SECONDS = float(env_str("STATISTICS_TAKEOVER_GRACE_SECONDS", "60"))
COMPARISON_TRIALS = int(env_str("COMPARISON_TRIALS", "2000"))
# how often beat re-sends runs and imports that never reached (or lost) their workers
RUN_SWEEP_SECONDS = env_int("RUN_SWEEP_SECONDS", 60)
RUN_REQUEUE_AFTER_SECONDS = env_int("RUN_REQUEUE_AFTER_SECONDS", 3600)  # ...or were sent this long ago, still pending
# webhooks (annotator.services.webhooks): each attempt's time limit, the first retry's delay (doubling after
# each failure, at most an hour) and the attempts before a delivery is given up as failed
WEBHOOK_TIMEOUT_SECONDS = float(env_str("WEBHOOK_TIMEOUT_SECONDS", "10"))
WEBHOOK_RETRY_SECONDS = float(env_str("WEBHOOK_RETRY_SECONDS", "30"))
WEBHOOK_MAX_ATTEMPTS = env_int("WEBHOOK_MAX_ATTEMPTS", 6)
CELERY_BEAT_SCHEDULE = {
    "requeue-unqueued-runs": {"task": "evaluation.tasks.requeue_unqueued_runs", "schedule": RUN_SWEEP_SECONDS},
    "requeue-abandoned-imports": {"task": "annotator.tasks.requeue_abandoned_imports", "schedule": RUN_SWEEP_SECONDS},
}
