"""Import batches: one uploaded file of dialogues, its progress and its result; removable as a whole."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotator.models.projects import Project


class ImportStatus(models.TextChoices):
    PENDING = "pending", _("Waiting for a worker")
    RUNNING = "running", _("Importing")
    DONE = "done", _("Imported")
    FAILED = "failed", _("Refused")
    REMOVED = "removed", _("Removed")


class ImportBatch(models.Model):
    """One import: the background job that reads an uploaded file and, once done, the batch of
    dialogues it wrote (``Dialogue.batch``), which a lead can remove as a whole.

    Progress while it runs: ``dialogues_read`` (the check of every dialogue against the project,
    before anything is written), then ``dialogues_written`` of ``dialogues_total`` and
    ``rows_written`` (dialogues, posts, assignments, judgements and gold counts).
    """

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="import_batches")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    file_names = models.CharField(max_length=500)
    requested_format = models.CharField(max_length=20, default="auto", help_text="As chosen: auto detects.")
    format = models.CharField(max_length=40, blank=True, help_text="The format read (detected or chosen).")
    language = models.CharField(max_length=20, blank=True, help_text="Blank: guessed from the file name.")
    status = models.CharField(max_length=20, choices=ImportStatus.choices, default=ImportStatus.PENDING)
    source = models.BinaryField(null=True, blank=True, help_text="The uploaded file, kept until imported.")
    dialogues_read = models.PositiveIntegerField(default=0)
    dialogues_total = models.PositiveIntegerField(null=True, blank=True)
    dialogues_written = models.PositiveIntegerField(default=0)
    rows_written = models.PositiveBigIntegerField(default=0)
    posts = models.PositiveIntegerField(default=0)
    judgements = models.PositiveIntegerField(default=0)
    gold_counts = models.PositiveIntegerField(default=0)
    annotators_created = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    error_detail = models.JSONField(default=dict, blank=True, help_text="file, record, field and message")
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    removed_at = models.DateTimeField(null=True, blank=True)
    removed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["project", "-created_at", "-pk"]
        indexes = [models.Index(fields=["project", "-created_at"])]

    def __str__(self) -> str:
        return f"import {self.pk} of {self.file_names} into {self.project}"
