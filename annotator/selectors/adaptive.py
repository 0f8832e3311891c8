"""Where an adaptive project stands, item by item: labels, state (open, stable, at maximum), the priority of
one more label, and the budget spent and left. Read by the hand-out (``annotator.services.adaptive``), the
dashboard, the stats payload and the distributions export.

An item's *labels* are its submitted assignments (imported ones included); its *held* places are all its
assignments, unfinished ones included, which is what the caps count so that two annotators at work never take
an item past ``max_k``. Gold counts come from ``project_judgements(long_form=False)`` (one grouped query per
criterion, imported counts added). Per criterion the library's ``unit_states`` says which units are stable; an
item is *stable* once it has ``min_k`` labels and every unit of every criterion is stable, *at maximum* once it
holds ``max_k``. The priority of an open item is the largest expected change of a unit's gold from one more label
(``scoring.adaptive.expected_gold_change``); items under ``min_k`` come first.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.db.models import Count, Q

from annotator.models import AdaptiveBudget, Assignment, AssignmentStatus, Project
from annotator.selectors.judgement_arrays import project_judgements
from scoring.adaptive import StopRule, expected_gold_change, unit_states

OPEN, STABLE, AT_MAXIMUM = "open", "stable", "at_maximum"


def adaptive_settings(project: Project) -> AdaptiveBudget:
    """The project's settings (an unsaved default row, fixed K, when it has none)."""
    found = AdaptiveBudget.objects.filter(project=project).first()
    return found if found is not None else AdaptiveBudget(project=project)


def adaptive_on(project: Project) -> bool:
    return AdaptiveBudget.objects.filter(project=project, adaptive=True).exists()


def stop_rule(settings: AdaptiveBudget) -> StopRule:
    return StopRule(kind=settings.stop_rule, threshold=settings.threshold, min_k=settings.min_k, max_k=settings.max_k)


@dataclass(frozen=True)
class ItemState:
    dialogue_id: int
    external_id: str
    labels: int
    held: int
    state: str
    priority: float  # expected change of the gold from one more label (inf under min_k)


@dataclass(frozen=True)
class AdaptiveStatus:
    settings: AdaptiveBudget
    items: list[ItemState]  # ordinary items in import order
    spent: int  # item-assignments given (unfinished ones included)
    budget_spent: bool

    @property
    def left(self) -> int | None:
        return None if not self.settings.budget else max(0, self.settings.budget - self.spent)

    def counts(self) -> dict[str, int]:
        found = {OPEN: 0, STABLE: 0, AT_MAXIMUM: 0}
        for item in self.items:
            found[item.state] += 1
        return found


def adaptive_status(project: Project, settings: AdaptiveBudget | None = None) -> AdaptiveStatus:
    """Every ordinary item's state (see the module's docstring); a few queries whatever the project's size."""
    settings = settings or adaptive_settings(project)
    rows = list(
        project.dialogues.filter(quality_item__isnull=True)
        .annotate(
            held=Count("assignments"),
            labels=Count("assignments", filter=Q(assignments__status=AssignmentStatus.SUBMITTED)),
        )
        .order_by("position", "pk")
        .values_list("pk", "external_id", "held", "labels")
    )
    index = {pk: i for i, (pk, *_rest) in enumerate(rows)}
    stable = np.ones(len(rows), dtype=bool)
    priority = np.zeros(len(rows))
    rule = stop_rule(settings)
    for data in project_judgements(project, long_form=False).values():
        if not data.n_units:
            continue
        counts = data.counts()
        states = np.asarray(unit_states({data.criterion.key: counts}, rule))
        change = np.asarray(expected_gold_change(counts), dtype=float)
        for u, dialogue_id in enumerate(data.unit_dialogue.tolist()):
            i = index.get(dialogue_id)
            if i is None:
                continue
            if states[u] == OPEN:
                stable[i] = False
            priority[i] = max(priority[i], change[u])
    items = []
    for i, (pk, external_id, held, labels) in enumerate(rows):
        if held >= settings.max_k:
            state = AT_MAXIMUM
        elif labels >= settings.min_k and stable[i]:
            state = STABLE
        else:
            state = OPEN
        items.append(
            ItemState(pk, external_id, labels, held, state, float("inf") if labels < settings.min_k else priority[i])
        )
    spent = Assignment.objects.filter(
        dialogue__project=project, dialogue__quality_item__isnull=True, imported=False
    ).count()
    return AdaptiveStatus(settings, items, spent, bool(settings.budget) and spent >= settings.budget)


def stop_reason(item: ItemState, status: AdaptiveStatus) -> str:
    """Why an item stopped getting labels: ``stable``, ``at_maximum``, ``budget_spent``, or '' (still open)."""
    if item.state != OPEN:
        return item.state
    return "budget_spent" if status.budget_spent else ""
