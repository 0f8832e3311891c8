"""Comparison items (the pairwise preset): the candidate responses of an item and the project's settings.

An item is a ``Dialogue`` whose posts are the context; its two ``Candidate`` rows are the responses
compared, each from a named system. Slot 0 is candidate A and slot 1 candidate B, as imported: the
judgements' values (``a``, ``b``, ``tie``, ``both_bad``) name the candidate, hence the system, never the
place where the page showed it (``Assignment.shown_first`` and ``Judgement.shown_first`` record that).
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from annotator.models.dialogues import Dialogue
from annotator.models.projects import Project

SLOTS = ("a", "b")  # candidate A is slot 0, candidate B slot 1


class Candidate(models.Model):
    """One candidate response of a comparison item."""

    dialogue = models.ForeignKey(Dialogue, on_delete=models.CASCADE, related_name="candidates")
    slot = models.PositiveSmallIntegerField(help_text="0: candidate A, 1: candidate B (the import's order).")
    system = models.CharField(max_length=200, help_text="The system that wrote the response.")
    text = models.TextField()

    class Meta:
        ordering = ["dialogue", "slot"]
        constraints = [
            models.UniqueConstraint(fields=["dialogue", "slot"], name="candidate_unique_slot"),
            models.CheckConstraint(condition=models.Q(slot__lte=1), name="candidate_slot_a_or_b"),
        ]

    def __str__(self) -> str:
        return f"{self.dialogue} {SLOTS[self.slot]}: {self.system}"


class TieModel(models.TextChoices):
    HALF = "half", _("Ties as half a win to each (Chatbot Arena)")
    DAVIDSON = "davidson", _("Davidson's model of ties (1970)")


class PairwiseSettings(models.Model):
    """A comparison project's settings; a project without a row has the defaults."""

    project = models.OneToOneField(Project, on_delete=models.CASCADE, related_name="pairwise_settings")
    reveal_systems = models.BooleanField(
        default=False, help_text="Annotators see which system wrote each response (hidden by default)."
    )
    active_pairs = models.BooleanField(
        default=False,
        help_text="Hand out comparisons one at a time, the item whose system pair narrows the intervals most "
        "first, and stop when the ranking is separated or the budget is spent.",
    )
    vote_budget = models.PositiveIntegerField(
        null=True, blank=True, help_text="With active pairs: the most votes (submitted comparisons) to collect."
    )
    ties = models.CharField(
        max_length=10, choices=TieModel.choices, default=TieModel.HALF, help_text="How Bradley-Terry counts ties."
    )
    updated_at = models.DateTimeField(auto_now=True)

    TIE_CHOICES = TieModel.choices  # for the settings form

    def __str__(self) -> str:
        return f"pairwise settings of {self.project}"
