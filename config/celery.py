"""The Celery application; the base of every task is ``annotator.job_task.JobTask`` (a task runs as its job's
current attempt).

The broker comes from the settings (``config.settings.celery``): Redis, or the filesystem broker of the embedded
default. There is no in-process mode: a worker runs every task (the tests that run theirs in the caller say why).
"""

import os
from pathlib import Path

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")  # DEBUG off unless asked by name


app = Celery("dialeval", task_cls="annotator.job_task:JobTask")  # (named: this module imports no app)
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def lower_cpu_priority(**_signal_arguments) -> None:
    """Workers run at ``WORKER_NICENESS`` (settings; 10 unless set): statistics and scoring are
    background work, and on a machine shared with the web server annotators' saves come first.
    Pool processes forked later inherit it."""
    from django.conf import settings

    os.nice(max(0, settings.WORKER_NICENESS - os.nice(0)))


@worker_init.connect
def embedded_broker_folders(**_signal_arguments) -> None:
    """The filesystem broker's folders exist before the worker reads them (the sender makes them too)."""
    embedded_broker_prepare()


def embedded_broker_prepare() -> None:
    options = app.conf.broker_transport_options or {}
    for name in ("data_folder_in", "data_folder_out", "control_folder"):
        if options.get(name):
            Path(options[name]).mkdir(parents=True, exist_ok=True)
