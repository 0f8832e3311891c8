"""Judges: automatic raters of a project (an LLM prompted to rate, a system's run), and their labels.

A judge's labels live in their own table, never in the judgements table: gold data, agreement among
the humans, quality control and the gold exports all read the judgements table, and a judge must
enter none of them. ``JudgeLabel`` addresses a unit as a judgement does (criterion, dialogue, unit
index: 0 for the dialogue, the post's position, or the utterance block's index) and holds the
judge's value, its probability distribution over the criterion's scale when the judge gave one, or,
for a unit the judge was asked about but gave no usable answer, an empty value and the reason.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotator.models.dialogues import Dialogue
from annotator.models.projects import Criterion, Project


class JudgeKind(models.TextChoices):
    IMPORTED = "imported", _("Imported labels")
    RUN = "run", _("Registered run")
    ENDPOINT = "endpoint", _("Endpoint run by the platform")


class JudgeStatus(models.TextChoices):
    READY = "ready", _("Ready")
    PENDING = "pending", _("Waiting for a worker")
    RUNNING = "running", _("Running")
    FAILED = "failed", _("Failed")


class Judge(models.Model):
    """A named automatic rater of a project.

    ``source`` says where its labels came from (the file names and format read, or the run's id and
    name). ``endpoint_settings`` holds an endpoint judge's configuration (URL, model, prompt template per
    criterion, limits; never the key, which is a secret setting). While the platform runs an endpoint
    judge, ``status`` and the counters say how far it got.
    """

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="judges")
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=20, choices=JudgeKind.choices)
    description = models.TextField(blank=True)
    source = models.JSONField(default=dict, blank=True, help_text="Where the labels came from (files, format, run).")
    endpoint_settings = models.JSONField(
        default=dict, blank=True, help_text="An endpoint judge's URL, model and prompts."
    )
    status = models.CharField(max_length=20, choices=JudgeStatus.choices, default=JudgeStatus.READY)
    error = models.TextField(blank=True)
    units_total = models.PositiveIntegerField(default=0, help_text="Units an endpoint judge is asked about.")
    units_done = models.PositiveIntegerField(default=0)
    prompt_tokens = models.PositiveBigIntegerField(default=0, help_text="Tokens sent (as the endpoint counted).")
    completion_tokens = models.PositiveBigIntegerField(default=0, help_text="Tokens answered.")
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["project", "created_at", "pk"]
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="judge_unique_name")]

    def __str__(self) -> str:
        return f"judge {self.name} of {self.project}"


class JudgeLabel(models.Model):
    """One judge's label of one unit: a value on the criterion's scale, optionally its distribution
    (``{value: probability}``); an empty value is a unit the judge gave no usable answer for (``reason``)."""

    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="labels")
    dialogue = models.ForeignKey(Dialogue, on_delete=models.CASCADE, related_name="judge_labels")
    criterion = models.ForeignKey(Criterion, on_delete=models.CASCADE, related_name="judge_labels")
    unit = models.PositiveIntegerField(help_text="0 for the dialogue; post position; or utterance block index.")
    value = models.CharField(max_length=40, blank=True, help_text="Empty: missing (see reason).")
    distribution = models.JSONField(null=True, blank=True, help_text="value -> probability, summing to 1.")
    reason = models.TextField(blank=True, help_text="Why the value is missing (an unparsable answer...).")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["judge", "criterion", "dialogue", "unit"], name="judgelabel_unique_unit")
        ]

    def __str__(self) -> str:
        return f"{self.judge.name}: {self.criterion.key}[{self.unit}]={self.value or '-'}"


class EndpointAnswer(models.Model):
    """A chat completions endpoint's answer to one prompt, kept so the same prompt is never paid twice.

    ``key`` is the SHA-256 of the endpoint's URL, the model, the request's parameters and the prompt.
    """

    key = models.CharField(max_length=64, unique=True)
    model = models.CharField(max_length=200)
    answer = models.TextField()
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"answer {self.key[:12]} of {self.model}"
