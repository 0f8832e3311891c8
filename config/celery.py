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
app.steps["consumer"].add("annotator.job_task:HeldJobsSentAgain")


@worker_init.connect
def redis_restore_survives_a_lost_connection(**_signal_arguments) -> None:
    """kombu 5.7.0: a worker holding messages it had not acknowledged (a countdown, or prefetched) when Redis goes
    away gives them back as it closes its channel, through a client built from a connection already released
    (``conninfo`` None): ``AttributeError: 'NoneType' object has no attribute 'hostname'``, which Celery takes for
    an unrecoverable error - the worker ends for good (``tests/platform/test_worker_outages.py`` holds a countdown
    through a 20 s stop). Here that failure is what it is, a lost connection (redis' ``ConnectionError``, which the
    consumer ignores as it reconnects); what the worker held is sent again once it is connected again
    (``annotator.job_task.HeldJobsSentAgain``). Patched in workers only (web processes never consume)."""
    from kombu.transport import redis as transport

    restore = transport.QoS.restore_unacked
    if getattr(restore, "survives_a_lost_connection", False):
        return

    def restore_unacked(self, client=None):
        try:
            return restore(self, client)
        except AttributeError as exc:
            from redis.exceptions import ConnectionError as RedisConnectionError

            raise RedisConnectionError(f"the unacknowledged messages could not be given back: {exc}") from exc

    restore_unacked.survives_a_lost_connection = True
    transport.QoS.restore_unacked = restore_unacked


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
