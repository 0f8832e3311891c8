"""A project's budget mode: fixed K (every item gets ``Project.annotators_per_dialogue`` annotators, the default)
or adaptive (each item gets between ``min_k`` and ``max_k`` annotators, stopping when its gold is stable, within
a total budget of item-assignments). ``annotator.handout.services.adaptive`` hands the items out.

Per criterion the gold is a distribution (the stop rule and threshold below) or a label (``label_gold``: the
majority under a share threshold, settled once the probability that it differs from the majority at
``max_k`` is at most ``delta``; ``scoring.adaptive.label_gold``)."""

from __future__ import annotations

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotator.models.projects import K_MAX, K_MIN, Project

DELTA_MIN, DELTA_MAX = 0.0001, 0.5
GOLD_DISTRIBUTION, GOLD_LABEL = "distribution", "label"


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
    label_gold = models.JSONField(
        default=dict,
        blank=True,
        help_text="Criteria whose gold is a label: criterion key -> the share the majority label needs (else the "
        "scale's first label; 0: the plain majority). Other criteria have distribution gold.",
    )
    delta = models.FloatField(
        default=0.02,
        validators=[MinValueValidator(DELTA_MIN), MaxValueValidator(DELTA_MAX)],
        help_text="Label gold: a unit stops once its label at the maximum differs from its label now with "
        "probability at most delta.",
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"adaptive budget of {self.project}"

    def gold_of(self, key: str) -> str:
        """ "label" or "distribution": what criterion ``key``'s gold is."""
        return GOLD_LABEL if key in (self.label_gold or {}) else GOLD_DISTRIBUTION
