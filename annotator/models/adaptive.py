"""A project's budget mode: fixed K (every item gets ``Project.annotators_per_dialogue`` annotators, the default)
or adaptive (each item gets between ``min_k`` and ``max_k`` annotators, stopping when its gold is stable, within
a total budget of item-assignments). ``annotator.services.adaptive`` hands the items out."""

from __future__ import annotations

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotator.models.projects import K_MAX, K_MIN, Project


class StopRuleKind(models.TextChoices):
    EXPECTED_CHANGE = "expected_change", _("Expected change of the gold from one more label is below the threshold")
    INTERVAL_WIDTH = "interval_width", _("Interval of the gold distribution is narrower than the threshold")


class AdaptiveBudget(models.Model):
    """A project's adaptive-budget settings; a project without a row (or with ``adaptive`` off) has fixed K.

    ``budget`` counts item-assignments (one annotator given one ordinary item), not judgements: an item's
    judgements per annotator vary with its units, an assignment is what a lead pays an annotator for.
    0 means no total cap (each item still stops at ``max_k``).
    """

    project = models.OneToOneField(Project, on_delete=models.CASCADE, related_name="adaptive_budget")
    adaptive = models.BooleanField(default=False, help_text="Adaptive budget instead of a fixed K per item.")
    min_k = models.PositiveSmallIntegerField(
        default=3,
        validators=[MinValueValidator(K_MIN), MaxValueValidator(K_MAX)],
        help_text="Annotators per item, at least.",
    )
    max_k = models.PositiveSmallIntegerField(
        default=10,
        validators=[MinValueValidator(K_MIN), MaxValueValidator(K_MAX)],
        help_text="Annotators per item, at most.",
    )
    budget = models.PositiveIntegerField(default=0, help_text="Item-assignments in total; 0: no total cap.")
    stop_rule = models.CharField(max_length=20, choices=StopRuleKind.choices, default=StopRuleKind.EXPECTED_CHANGE)
    threshold = models.FloatField(
        default=0.01,
        validators=[MinValueValidator(0.0)],
        help_text="Expected Jensen-Shannon change, or interval width, below which an item's criterion is stable.",
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"adaptive budget of {self.project}"
