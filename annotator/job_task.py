"""The base of every task (``config.celery`` names it): a task runs as its job's current attempt
(``annotator.services.jobs``), and a worker that starts hands back the jobs it was running, or holding, when it
last stopped."""

import logging
import time

from celery import Task, bootsteps
from celery.exceptions import Retry, SoftTimeLimitExceeded, TimeLimitExceeded
from celery.signals import task_received, worker_ready

from annotator.models import Job, JobEnd
from annotator.services import jobs
from config.enqueue import job_of_task_id

log = logging.getLogger(__name__)


class JobTask(Task):
    """A task run as its job's attempt (``annotator.services.jobs``): claimed before the work, done or failed
    after it, ended with "stopped at its time limit" when the soft limit strikes (the hard limit, a minute
    later, kills the process; its parent ends the job the same way). A task sent without a job (beat's
    sweeps) just runs.

    ``job_lost``: the dotted path of the service told when a job of this task lost its worker or its time
    (``service(job=job, final=...)``), so that its subject can be run again or says what happened.
    """

    job_lost = ""

    @property
    def job_id(self) -> int | None:
        """The id of the job this run is an attempt of (None: sent without one)."""
        return job_of_task_id(self.request.id)[0]

    def __call__(self, *args, **kwargs):
        job_id, attempt = job_of_task_id(self.request.id)
        if job_id is None:
            return super().__call__(*args, **kwargs)
        job = self._claim(job_id, attempt)
        if job is None:
            log.info("%s[%s]: not this attempt's to run (done, replaced or taken): skipped", self.name, self.request.id)
            return None
        try:
            value = super().__call__(*args, **kwargs)
        except Retry:
            raise  # Celery sends the same task id again: that message claims the job back (its retries count)
        except SoftTimeLimitExceeded:
            jobs.job_stopped(job_id=job_id, attempt=attempt, ended_by=JobEnd.TIME_LIMIT)
            raise
        except Exception as exc:
            jobs.job_fail(job_id=job_id, attempt=attempt, error=jobs.job_error(exc))
            raise
        jobs.job_done(job_id=job_id, attempt=attempt)
        return value

    def _claim(self, job_id: int, attempt: int):
        """The job claimed for this attempt; a job row the sender has not committed yet is waited for a moment."""
        hard = self.time_limit or self.app.conf.task_time_limit
        for wait in (0, 0.5, 1, 2):
            time.sleep(wait)
            job = jobs.job_claim(
                job_id=job_id,
                attempt=attempt,
                worker=self.request.hostname or "",
                seconds=hard,
                retries=self.request.retries or 0,
            )
            if job is not None or Job.objects.filter(pk=job_id).exists():
                return job
        return None

    def on_failure(self, exc, task_id, args, kwargs, einfo):
        """In the worker's main process when the hard time limit killed the task's process: its job ended."""
        if isinstance(exc, TimeLimitExceeded):
            job_id, attempt = job_of_task_id(task_id)
            if job_id is not None:
                jobs.job_stopped(job_id=job_id, attempt=attempt, ended_by=JobEnd.TIME_LIMIT)


@worker_ready.connect
def jobs_of_the_last_run(sender=None, **_signal_arguments) -> None:
    """A worker that starts again under its name (after a kill, a lost machine, ``serve.sh`` stopped) ends or
    sends again the jobs it was running then, at once rather than at their deadlines."""
    from django.db import connections

    try:
        found = jobs.jobs_lost_with_worker(worker=getattr(sender, "hostname", "") or "")
        if found:
            log.warning("%s jobs this worker was running when it last stopped: sent again or ended", found)
    except Exception:  # the database may be down as the worker starts: the sweep finds them at their deadline
        log.exception("the jobs of this worker's last run could not be looked at")
    finally:
        connections.close_all()


@task_received.connect
def job_held(sender=None, request=None, **_signal_arguments) -> None:
    """A worker took a job's message (to run now, or held until its countdown or behind the task it runs): the job
    records which worker holds it (``jobs.job_held``), so that what that worker drops - when it is killed, or
    loses its broker - is sent again as soon as it is connected again (``HeldJobsSentAgain``) instead of when the
    broker gives the message back (its visibility timeout, hours; never, if the broker lost it)."""
    job_id, attempt = job_of_task_id(getattr(request, "id", "") or "")
    if job_id is None:
        return
    try:
        jobs.job_held(job_id=job_id, attempt=attempt, worker=getattr(request, "hostname", "") or "")
    except Exception:  # the database away: the message runs all the same, the sweep ends it if it is lost
        log.exception("which worker holds job %s could not be recorded", job_id)
        from django.db import connection

        connection.close()  # a connection a database restart broke is opened again on the next message


class HeldJobsSentAgain(bootsteps.StartStopStep):
    """A step of the worker's consumer (``config.celery``), started each time it connects to the broker: the jobs
    it held before (a kill, or a lost connection: Celery then drops its held messages) are sent again
    (``jobs.jobs_held_sent_again``)."""

    requires = {"celery.worker.consumer.tasks:Tasks"}

    def start(self, consumer) -> None:
        from django.db import connections

        try:
            jobs.jobs_held_sent_again(worker=consumer.hostname or "")
        except Exception:  # the database away: the sweep sends them again later
            log.exception("the jobs this worker held could not be sent again")
        finally:
            connections.close_all()
