"""Dialogues and their posts (turns), as imported."""

from __future__ import annotations

from django.db import models

from annotator.models.projects import Project


class Dialogue(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="dialogues")
    external_id = models.CharField(max_length=200)
    language = models.CharField(max_length=20, blank=True)
    source_meta = models.JSONField(default=dict, blank=True, help_text="Source fields kept for a faithful export.")
    position = models.PositiveIntegerField(default=0, help_text="Import order.")
    created_at = models.DateTimeField(auto_now_add=True)
    batch = models.ForeignKey("ImportBatch", on_delete=models.SET_NULL, null=True, blank=True, related_name="dialogues")

    class Meta:
        ordering = ["project", "position", "id"]
        constraints = [models.UniqueConstraint(fields=["project", "external_id"], name="dialogue_unique_external_id")]

    def __str__(self) -> str:
        return self.external_id


class Post(models.Model):
    """One piece of text by one speaker; consecutive posts of a speaker form an utterance block."""

    dialogue = models.ForeignKey(Dialogue, on_delete=models.CASCADE, related_name="posts")
    position = models.PositiveIntegerField()
    speaker = models.CharField(max_length=40)
    text = models.TextField()
    utterance_block = models.PositiveIntegerField()
    source_turn_index = models.IntegerField(null=True, blank=True)
    source_meta = models.JSONField(default=dict, blank=True)
    source_annotated = models.BooleanField(
        null=True,
        blank=True,
        help_text="Whether the source collection judged this post (DBDC logs with labels); empty when the "
        "source does not say (a new collection). The preset's unit rule reads it.",
    )

    class Meta:
        ordering = ["dialogue", "position"]
        constraints = [models.UniqueConstraint(fields=["dialogue", "position"], name="post_unique_position")]

    def __str__(self) -> str:
        return f"{self.dialogue}#{self.position} {self.speaker}"
