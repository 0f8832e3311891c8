"""Jobs: the record of every piece of background work sent to the workers, and of the results some of them keep.

Every task sent through ``config.enqueue.task_send`` has a job: what it runs (the task's name and arguments),
where it is (waiting, running on a worker since when and until which deadline, done, failed), how far it got,
and, for the jobs that compute something a page shows (a report, an export, a power analysis), the result or the
file, with the judgements' fingerprint it was computed from. Beat's sweep reads the jobs alone to find work whose
worker is gone (``annotator.services.jobs``); the subjects (an import batch, a run, a judge) keep their own state.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotator.models.projects import Project


class JobState(models.TextChoices):
    QUEUED = "queued", _("Waiting for a worker")
    RUNNING = "running", _("Running")
    DONE = "done", _("Done")
    FAILED = "failed", _("Failed")


class JobEnd(models.TextChoices):
    """Why a job ended otherwise than by finishing its work (what its page says)."""

    NONE = "", _("Finished")
    ERROR = "error", _("Stopped by an error")
    TIME_LIMIT = "time_limit", _("Stopped at its time limit")
    WORKER_LOST = "worker_lost", _("Its worker stopped")
    UNREACHABLE = "unreachable", _("The workers could not be reached")


class Job(models.Model):
    """One piece of background work: a task's name and arguments, its state, progress and deadline, and what
    it left (a result, a file, an error).

    ``attempt`` counts the sends: the message of attempt n carries the task id ``job-<id>-<n>``, and only the
    worker holding the current attempt may run or end it (a compare-and-set), so a message delivered twice, or
    an old one found after the job was sent again, does nothing. ``deadline_at`` is when the task's hard time
    limit kills it: a job still running then has lost its worker.
    """

    task = models.CharField(max_length=100, help_text="The Celery task's registered name.")
    args = models.JSONField(default=list, blank=True)
    project = models.ForeignKey(Project, on_delete=models.CASCADE, null=True, blank=True, related_name="jobs")
    key = models.CharField(
        max_length=300, blank=True, db_index=True, help_text="What it computes (task and arguments): one at a time."
    )
    state = models.CharField(max_length=20, choices=JobState.choices, default=JobState.QUEUED)
    ended_by = models.CharField(max_length=20, choices=JobEnd.choices, blank=True, default=JobEnd.NONE)
    attempt = models.PositiveSmallIntegerField(default=1)
    retries = models.PositiveSmallIntegerField(default=0, help_text="Celery's retries of the running attempt.")
    queued_at = models.DateTimeField()
    due_at = models.DateTimeField(help_text="When a worker may start it (its countdown).")
    sent_at = models.DateTimeField(null=True, blank=True, help_text="When the broker took the current attempt.")
    started_at = models.DateTimeField(null=True, blank=True)
    deadline_at = models.DateTimeField(null=True, blank=True, help_text="The start plus the task's hard time limit.")
    finished_at = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True, help_text="The worker node running the current attempt.")
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    result_file = models.CharField(max_length=500, blank=True, help_text="A file under MEDIA_ROOT it wrote.")
    result_name = models.CharField(max_length=300, blank=True, help_text="The file's name for a download.")
    fingerprint = models.CharField(max_length=64, blank=True, help_text="The judgements it was computed from.")
    error = models.TextField(blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        indexes = [
            models.Index(fields=["state", "deadline_at"], name="job_state_deadline"),
            models.Index(fields=["key", "-queued_at"], name="job_key_latest"),
        ]

    def __str__(self) -> str:
        return f"job {self.pk} ({self.task}{tuple(self.args)}, {self.state})"

    @property
    def finished(self) -> bool:
        return self.state in (JobState.DONE, JobState.FAILED)
