"""Celery application. Without a broker URL, tasks run in-process (eagerly)."""

import os

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")  # DEBUG off unless asked by name

app = Celery("dialeval")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def lower_cpu_priority(**_signal_arguments) -> None:
    """Workers run at ``WORKER_NICENESS`` (settings; 10 unless set): statistics and scoring are
    background work, and on a machine shared with the web server annotators' saves come first.
    Pool processes forked later inherit it."""
    from django.conf import settings

    os.nice(max(0, settings.WORKER_NICENESS - os.nice(0)))
