"""Stored results of the scoring library: project statistics and scored runs."""
from django.db import models

from annotator.models import Project


class ProjectStatistics(models.Model):
    """The latest statistics of a project, with what they cover and how they were made."""

    project = models.OneToOneField(Project, on_delete=models.CASCADE, related_name="statistics")
    payload = models.JSONField()
    n_judgements = models.PositiveIntegerField()
    fingerprint = models.CharField(max_length=64, help_text="Digest of the judgements the payload covers.")
    library_version = models.CharField(max_length=20)
    computed_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"statistics of {self.project} at {self.computed_at:%Y-%m-%d %H:%M}"
