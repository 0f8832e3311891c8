"""Assignments (an annotator given a dialogue) and judgements, with reorderings and the cached gold counts.

The judgements table is the reliability data every statistic reads: one row is one value
given by one annotator (through an assignment) for one criterion on one unit of a dialogue.
A unit is addressed by an integer whose meaning the criterion's unit fixes: 0 for the
dialogue itself, the post's position for post/system-turn/reply units, the utterance
block's index for turn units.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotator.models.dialogues import Dialogue
from annotator.models.projects import Criterion


class AssignmentStatus(models.TextChoices):
    PENDING = "pending", _("Not started")
    IN_PROGRESS = "in_progress", _("In progress")
    SUBMITTED = "submitted", _("Submitted")


class Assignment(models.Model):
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments")
    dialogue = models.ForeignKey(Dialogue, on_delete=models.CASCADE, related_name="assignments")
    status = models.CharField(max_length=20, choices=AssignmentStatus.choices, default=AssignmentStatus.PENDING)
    imported = models.BooleanField(default=False, help_text="Judgements taken from a source collection.")
    started_at = models.DateTimeField(null=True, blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    seconds_spent = models.PositiveIntegerField(default=0)
    shown_order = models.JSONField(
        null=True, blank=True, help_text="Ordering tasks: original positions in shown order."
    )
    permutation_set = models.PositiveSmallIntegerField(null=True, blank=True)
    shown_first = models.CharField(
        max_length=1,
        blank=True,
        default="",
        db_default="",  # rows written in bulk by plain SQL (imports) too
        help_text='Comparison items: the candidate the page shows first ("a" or "b"), balanced across the item\'s '
        "annotators; empty otherwise.",
    )
    queue_rank = models.PositiveIntegerField(default=0, help_text="Position in the annotator's queue (random order).")
    version = models.PositiveIntegerField(
        default=0, help_text="Counts the saves of this item; a client sends back the version it last saw."
    )
    removed = models.JSONField(
        default=dict,
        null=True,  # rows written in bulk by plain SQL (imports) have none
        blank=True,
        help_text='Answers removed by a save: "criterion id:unit" -> the version that removed them (a removal is '
        "a change another tab must have seen before writing there).",
    )
    reopened_at = models.DateTimeField(null=True, blank=True)
    reopen_reason = models.TextField(blank=True, help_text="Why the lead reopened the item; shown to the annotator.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["annotator", "dialogue"], name="assignment_unique_annotator")]
        # submitted_at: the dashboard counts the items submitted since the statistics were computed
        indexes = [models.Index(fields=["annotator", "status"]), models.Index(fields=["submitted_at"])]

    def __str__(self) -> str:
        return f"{self.annotator} on {self.dialogue}"


class Judgement(models.Model):
    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="judgements")
    criterion = models.ForeignKey(Criterion, on_delete=models.CASCADE, related_name="judgements")
    unit = models.PositiveIntegerField(help_text="0 for the dialogue; post position; or utterance block index.")
    value = models.CharField(max_length=40)
    extra = models.JSONField(null=True, blank=True, help_text="Source fields kept for export (comments...).")
    updated_at = models.DateTimeField(auto_now=True)
    revision = models.PositiveIntegerField(
        default=0,
        db_default=0,  # rows written in bulk by plain SQL (imports) too
        help_text="The assignment's version that wrote this value: a client that read an older one has not seen it.",
    )
    shown_first = models.CharField(
        max_length=1,
        blank=True,
        default="",
        db_default="",
        help_text='Comparison items: the candidate shown first when this value was given ("a" or "b"); empty '
        "otherwise.",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["assignment", "criterion", "unit"], name="judgement_unique_unit"),
        ]
        indexes = [models.Index(fields=["criterion", "unit"])]

    def __str__(self) -> str:
        return f"{self.criterion.key}[{self.unit}]={self.value}"


class Reordering(models.Model):
    """An annotator's reconstruction of a permuted dialogue: original positions in submitted order."""

    assignment = models.OneToOneField(Assignment, on_delete=models.CASCADE, related_name="reordering")
    submitted_order = models.JSONField()
    updated_at = models.DateTimeField(auto_now=True)
    revision = models.PositiveIntegerField(
        default=0, db_default=0, help_text="The assignment's version that wrote this order."
    )
    kept_shown_order = models.BooleanField(
        default=False,
        db_default=False,
        help_text="The order is the shuffled order the annotator was shown, confirmed as their answer untouched.",
    )

    def __str__(self) -> str:
        return f"reordering of assignment {self.assignment_id}"


class GoldCount(models.Model):
    """Per-unit value counts published without per-annotator labels (NLPCC)."""

    dialogue = models.ForeignKey(Dialogue, on_delete=models.CASCADE, related_name="gold_counts")
    criterion = models.ForeignKey(Criterion, on_delete=models.CASCADE, related_name="gold_counts")
    unit = models.PositiveIntegerField()
    value = models.CharField(max_length=40)
    count = models.PositiveIntegerField()
    n_annotators = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["dialogue", "criterion", "unit", "value"], name="goldcount_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.count} x {self.value} for unit {self.unit} of dialogue {self.dialogue_id}"
