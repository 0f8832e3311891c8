"""Quality control: settings, control and training items with their expected answers, qualification,
exclusions and adjudication (annotator.services.quality_items, qualification, exclusions, adjudication)."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotator.models.dialogues import Dialogue
from annotator.models.projects import Criterion, Project


class SourceFilter(models.TextChoices):
    ALL = "all", _("All annotators")
    IMPORTED = "imported", _("Imported annotators only (the source collection's)")
    OWN = "own", _("The project's own annotators only")


# The range of each numeric setting, in one place: the fields' validators and the database's checks below, the
# service that changes them (annotator.services.quality_items), the API's serializer and the page's inputs read it.
QUALITY_BOUNDS: dict[str, tuple[float, float]] = {
    "control_rate": (0, 0.5),
    "default_tolerance": (0, 10),
    "pass_mark": (0, 1),
    "too_fast_seconds": (0, 3600),
    "control_accuracy_flag": (0, 1),
}


def _within(name: str) -> list:
    low, high = QUALITY_BOUNDS[name]
    return [MinValueValidator(low), MaxValueValidator(high)]


class QualitySettings(models.Model):
    """A project's quality-control settings; a project without a row has the defaults. Each number stays within
    ``QUALITY_BOUNDS`` (its validators, and a check constraint in the database)."""

    project = models.OneToOneField(Project, on_delete=models.CASCADE, related_name="quality_settings")
    control_rate = models.FloatField(
        default=0.0,
        validators=_within("control_rate"),
        help_text="Share of each annotator's queue made of control items (0.1: one in ten).",
    )
    default_tolerance = models.PositiveSmallIntegerField(
        default=0,
        validators=_within("default_tolerance"),
        help_text="Scale points an answer on an ordered scale may be off and still count (uploads).",
    )
    pass_mark = models.FloatField(
        default=0.8, validators=_within("pass_mark"), help_text="Share of training answers to get right to qualify."
    )
    too_fast_seconds = models.PositiveIntegerField(
        default=10, validators=_within("too_fast_seconds"), help_text="Items submitted faster are too fast."
    )
    control_accuracy_flag = models.FloatField(
        default=0.7,
        db_default=0.7,
        validators=_within("control_accuracy_flag"),
        help_text="An annotator whose accuracy on control items is below this share is flagged (0.7: 70 %).",
    )
    source = models.CharField(
        max_length=20, choices=SourceFilter.choices, default=SourceFilter.ALL, help_text="Whose judgements count."
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(**{f"{name}__gte": low, f"{name}__lte": high}), name=f"quality_{name}_in_range"
            )
            for name, (low, high) in QUALITY_BOUNDS.items()
        ]

    def __str__(self) -> str:
        return f"quality settings of {self.project}"


class QualityItemKind(models.TextChoices):
    CONTROL = "control", _("Control item (mixed into queues)")
    TRAINING = "training", _("Training item (qualification)")


class QualityItem(models.Model):
    """A dialogue with known answers. Its judgements are never part of gold data or agreement."""

    dialogue = models.OneToOneField(Dialogue, on_delete=models.CASCADE, related_name="quality_item")
    kind = models.CharField(max_length=20, choices=QualityItemKind.choices)
    explanation = models.TextField(blank=True, help_text="Shown to annotators beside the expected answers.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.kind} item {self.dialogue}"


class ExpectedAnswer(models.Model):
    item = models.ForeignKey(QualityItem, on_delete=models.CASCADE, related_name="answers")
    criterion = models.ForeignKey(Criterion, on_delete=models.CASCADE, related_name="expected_answers")
    unit = models.PositiveIntegerField()
    value = models.CharField(max_length=40)
    tolerance = models.PositiveSmallIntegerField(default=0, help_text="Scale points (ordered scales only).")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "criterion", "unit"], name="expectedanswer_unique_unit"),
        ]

    def __str__(self) -> str:
        return f"{self.criterion.key}[{self.unit}]={self.value}"


class Qualification(models.Model):
    """An annotator's qualification: passed (at ``passed_at`` with ``score``) or let in by a lead."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="qualifications")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="qualifications")
    score = models.FloatField(null=True, blank=True)
    passed_at = models.DateTimeField(null=True, blank=True)
    admitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    admitted_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "user"], name="qualification_unique_user")]

    def __str__(self) -> str:
        return f"qualification of {self.user} in {self.project}"

    @property
    def open(self) -> bool:
        return self.passed_at is not None or self.admitted_at is not None


class AnnotatorExclusion(models.Model):
    """An annotator left out of gold data and statistics, with the lead's reason."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="exclusions")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="exclusions")
    reason = models.TextField()
    excluded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "user"], name="exclusion_unique_user")]

    def __str__(self) -> str:
        return f"{self.user} excluded from {self.project}"


class Adjudication(models.Model):
    """The final label of a disputed unit, set by a lead or an adjudicator, with their note."""

    dialogue = models.ForeignKey(Dialogue, on_delete=models.CASCADE, related_name="adjudications")
    criterion = models.ForeignKey(Criterion, on_delete=models.CASCADE, related_name="adjudications")
    unit = models.PositiveIntegerField()
    value = models.CharField(max_length=40)
    note = models.TextField(blank=True)
    adjudicator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["dialogue", "criterion", "unit"], name="adjudication_unique_unit"),
        ]

    def __str__(self) -> str:
        return f"{self.criterion.key}[{self.unit}] of {self.dialogue} = {self.value}"
