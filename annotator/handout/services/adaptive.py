"""Adaptive budgets: the lead's settings, and choosing the items an annotator or a study participant gets.

The next item given is the open item whose gold is least settled (``annotator.handout.selectors.adaptive``: the
expected change of a distribution from one more label, the probability that a label still changes), among
those the person was never given (nor had released, for study participants), while it holds fewer than
``max_k`` annotators and the project's budget of item-assignments is not spent. Annotators get one item at a
time through ``annotator.handout.services.one_at_a_time`` (the project's row locked); study participants get
their whole set
at once in ``participant_start``, under the same lock.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.translation import gettext

from annotator import events
from annotator.handout.selectors.adaptive import OPEN, adaptive_status
from annotator.handout.services.one_at_a_time import hand_out_one
from annotator.models import AdaptiveBudget, Assignment, Project, ReleasedItem

SETTINGS_FIELDS = ("adaptive", "min_k", "max_k", "budget", "stop_rule", "threshold", "label_gold", "delta")


def label_gold_checked(project: Project, label_gold) -> dict[str, float]:
    """``label_gold`` as criterion key -> share threshold in [0, 1], each a criterion of the project with one
    scale; ``ValidationError`` naming the first that is not."""
    if not isinstance(label_gold, dict):
        raise ValidationError({"label_gold": gettext("Label gold maps criterion keys to a share threshold.")})
    criteria = {c.key: c for c in project.criteria.all()}
    checked = {}
    for key, threshold in label_gold.items():
        if key not in criteria:
            raise ValidationError({"label_gold": gettext("The project has no criterion %(key)s.") % {"key": key}})
        if criteria[key].speakers:
            raise ValidationError(
                {
                    "label_gold": gettext(
                        "Criterion %(key)s has a scale per speaker; label gold needs one scale."
                    ) % {"key": key}
                }
            )  # fmt: skip
        try:
            share = float(threshold)
        except (TypeError, ValueError):
            share = -1.0
        if not 0 <= share <= 1:
            raise ValidationError(
                {
                    "label_gold": gettext(
                        "The majority threshold of %(key)s must be a share between 0 and 1."
                    ) % {"key": key}
                }
            )  # fmt: skip
        checked[key] = share
    return checked


def adaptive_budget_update(*, project: Project, **settings) -> AdaptiveBudget:
    """Save the project's budget mode (``SETTINGS_FIELDS``); ``ValidationError`` on bad values.

    ``label_gold`` maps the criteria whose gold is a label to the share their majority label needs (0: the
    plain majority); the other criteria have distribution gold. ``delta`` is label gold's error rate."""
    unknown = set(settings) - set(SETTINGS_FIELDS)
    if unknown:
        raise TypeError(f"unknown adaptive settings: {', '.join(sorted(unknown))}")
    if "label_gold" in settings:
        settings["label_gold"] = label_gold_checked(project, settings["label_gold"])
    row = AdaptiveBudget.objects.filter(project=project).first() or AdaptiveBudget(project=project)
    for name, value in settings.items():
        setattr(row, name, value)
    row.full_clean()
    if row.min_k > row.max_k:
        raise ValidationError({"min_k": gettext("The minimum per item cannot exceed the maximum.")})
    row.save()
    project.adaptive_budget = row  # (the project's cached relation says what was saved)
    if row.adaptive:  # hand-outs read the live per-unit counts: have them built (in the background) if none yet
        events.live_counts_wanted(project=project)
    return row


def adaptive_items_choose(project: Project, user_id: int, n: int) -> list[int]:
    """Up to ``n`` items for one person, best first; call it under the project's lock."""
    status = adaptive_status(project)
    if status.budget_spent:
        return []
    seen = set(
        Assignment.objects.filter(annotator_id=user_id, dialogue__project=project).values_list("dialogue_id", flat=True)
    )
    seen |= set(
        ReleasedItem.objects.filter(participant__user_id=user_id, dialogue__project=project).values_list(
            "dialogue_id", flat=True
        )
    )
    max_k = status.settings.max_k
    ranked = sorted(
        (
            (-item.priority, item.held, i, item.dialogue_id)
            for i, item in enumerate(status.items)
            if item.state == OPEN and item.held < max_k and item.dialogue_id not in seen
        )
    )
    n = n if status.left is None else min(n, status.left)
    return [dialogue_id for *_key, dialogue_id in ranked[:n]]


def adaptive_assign(*, project: Project, user) -> Assignment | None:
    """Give ``user`` the item where one more label is worth most, or None (see ``hand_out_one``)."""

    def choose(locked: Project, chooser) -> int | None:
        found = adaptive_items_choose(locked, chooser.pk, 1)
        return found[0] if found else None

    return hand_out_one(project=project, user=user, choose=choose)
