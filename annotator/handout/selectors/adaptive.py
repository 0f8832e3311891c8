"""Where an adaptive project stands, item by item: labels, state (open, stable, at maximum), the priority of
one more label, and the budget spent and left. Read by the hand-out (``annotator.handout.services.adaptive``), the
dashboard, the stats payload and the distributions export.

An item's *labels* are its submitted assignments (imported ones included); its *held* places are all its
assignments, unfinished ones included, which is what the caps count so that two annotators at work never take
an item past ``max_k``. Gold counts come from ``project_judgements(long_form=False)`` (one grouped query per
criterion, imported counts added). Per criterion the library's ``unit_states`` says which units are stable; an
item is *stable* once it has ``min_k`` labels and every unit of every criterion is stable, *at maximum* once it
holds ``max_k``. The priority of an open item is ``scoring.adaptive.allocation_priority``, the largest expected
change of a unit's gold from one more label; items holding fewer than ``min_k`` come first, the fewest held first.
The units' counts are read from the live statistics' per-unit counts when these are exact now
(``evaluation.selectors.live_counts``: a few milliseconds, where counting the judgements takes seconds on an
STC-3-sized project, under the hand-out's lock); else from the judgements. Both give the same counts.

Each criterion has its own rule (``stop_rules``): distribution gold the project's stop rule and threshold, label
gold (``AdaptiveBudget.label_gold``) ``scoring.adaptive.LabelStopRule`` at the project's delta, its Dirichlet prior
fitted to the criterion's counts here (every status computes it from the counts it reads: the same counts give
the same prior, whoever asks). ``label_settlement`` says per label-gold criterion how many units are settled.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np
from django.db.models import Count, Q

from annotator import events
from annotator.models import GOLD_DISTRIBUTION, GOLD_LABEL, AdaptiveBudget, AssignmentStatus, Project
from annotator.selectors.judgement_arrays import project_judgements
from scoring.adaptive import AT_MAXIMUM, OPEN, STABLE, LabelStopRule, StopRule, item_states_and_priority


def adaptive_settings(project: Project) -> AdaptiveBudget:
    """The project's settings (an unsaved default row, fixed K, when it has none). Read through the project's
    relation: the pages' project (``annotator.access``) comes with it, so asking costs no query there."""
    try:
        return project.adaptive_budget
    except AdaptiveBudget.DoesNotExist:
        return AdaptiveBudget(project=project)


def adaptive_gold_rows(project: Project) -> list[dict]:
    """The manage page's gold per criterion: ``{"key", "label", "gold", "threshold", "one_scale"}`` in order
    (``one_scale``: label gold is possible, the criterion has no scale per speaker)."""
    label_gold = adaptive_settings(project).label_gold or {}
    return [
        {
            "key": c.key,
            "label": c.label,
            "gold": GOLD_LABEL if c.key in label_gold else GOLD_DISTRIBUTION,
            "threshold": label_gold.get(c.key, 0.0),
            "one_scale": not c.speakers,
        }
        for c in project.criteria.order_by("position", "key")
    ]


REPLAY_FIGURES = Path(__file__).resolve().parent.parent / "adaptive_replay.json"


@cache
def replay_figures() -> dict:
    """What each gold saves on the seeds' real collections: ``bench/adaptive_replay.py``'s lines, as committed in
    ``annotator/handout/adaptive_replay.json`` (``{"distribution": [...], "label": [...], "commands": {...}}``)."""
    return json.loads(REPLAY_FIGURES.read_text(encoding="utf-8"))


def adaptive_on(project: Project) -> bool:
    return adaptive_settings(project).adaptive


def stop_rules(settings: AdaptiveBudget, keys) -> dict[str, StopRule | LabelStopRule]:
    """Each criterion's rule: ``LabelStopRule`` for label gold (its prior not fitted yet), else the stop rule."""
    distribution = StopRule(
        kind=settings.stop_rule, threshold=settings.threshold, min_k=settings.min_k, max_k=settings.max_k
    )
    label_gold = settings.label_gold or {}
    return {
        key: LabelStopRule(
            delta=settings.delta, min_k=settings.min_k, max_k=settings.max_k, threshold=float(label_gold[key])
        )
        if key in label_gold
        else distribution
        for key in keys
    }


@dataclass(frozen=True)
class ItemState:
    dialogue_id: int
    external_id: str
    labels: int
    held: int
    state: str
    priority: float  # the library's allocation priority (1 + places lacking under min_k; 0 when not open)


@dataclass(frozen=True)
class AdaptiveStatus:
    settings: AdaptiveBudget
    items: list[ItemState]  # ordinary items in import order
    spent: int  # item-assignments given (unfinished ones included)
    budget_spent: bool
    # what the states were decided on: per criterion its units' counts, each unit's item (index into items) and
    # the rule, bound (a label rule with its fitted prior)
    counts: dict[str, np.ndarray] = field(default_factory=dict)
    unit_items: dict[str, np.ndarray] = field(default_factory=dict)
    rules: dict[str, StopRule | LabelStopRule] = field(default_factory=dict)

    @property
    def left(self) -> int | None:
        return None if not self.settings.budget else max(0, self.settings.budget - self.spent)

    def state_counts(self) -> dict[str, int]:
        found = {OPEN: 0, STABLE: 0, AT_MAXIMUM: 0}
        for item in self.items:
            found[item.state] += 1
        return found


def unit_counts(project: Project) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per criterion key, (each unit's dialogue, its counts): live when exact now, else counted (see above)."""
    criteria = {c.pk: (c.key, len(dict.fromkeys(c.allowed_values()))) for c in project.criteria.all()}
    live = events.live_unit_counts(project=project, criteria=criteria)
    if live is not None:
        return {key: (found.unit_dialogue, found.counts) for key, found in live.items()}
    out = {}
    for key, data in project_judgements(project, long_form=False).items():
        counts = data.counts()
        kept = counts.sum(axis=1) > 0  # (as the live counts: a unit whose counts are all zero has no label)
        out[key] = (data.unit_dialogue[kept], counts[kept])
    return out


def adaptive_status(project: Project, settings: AdaptiveBudget | None = None) -> AdaptiveStatus:
    """Every ordinary item's state (see the module's docstring); a few queries whatever the project's size."""
    settings = settings or adaptive_settings(project)
    rows = list(
        project.dialogues.filter(quality_item__isnull=True)
        .annotate(
            held=Count("assignments"),
            labels=Count("assignments", filter=Q(assignments__status=AssignmentStatus.SUBMITTED)),
            given=Count("assignments", filter=Q(assignments__imported=False)),
        )
        .order_by("position", "pk")
        .values_list("pk", "external_id", "held", "labels", "given")
    )
    index = {pk: i for i, (pk, *_rest) in enumerate(rows)}
    counts_by_criterion, items_of_units = {}, {}
    for key, (unit_dialogue, counts) in unit_counts(project).items():
        item = np.array([index.get(d, -1) for d in unit_dialogue.tolist()], dtype=int)
        keep = item >= 0  # (units of control and training items are never read; kept safe all the same)
        counts_by_criterion[key], items_of_units[key] = counts[keep], item[keep]
    rules = {
        key: rule.bound(counts_by_criterion[key]) for key, rule in stop_rules(settings, counts_by_criterion).items()
    }
    if counts_by_criterion and rows:
        states, priority = item_states_and_priority(counts_by_criterion, rules, items_of_units, len(rows))
    else:
        states, priority = np.full(len(rows), OPEN), np.zeros(len(rows))
    items = []
    for i, (pk, external_id, held, labels, _given) in enumerate(rows):
        if labels >= settings.min_k and states[i] == STABLE:
            state = STABLE
        elif held >= settings.max_k or states[i] == AT_MAXIMUM:
            state = AT_MAXIMUM
        else:
            state = OPEN
        if held < settings.min_k:  # under the minimum: the fewest held first (as the library ranks by labels)
            worth = 1.0 + settings.min_k - held
        else:
            worth = float(priority[i]) if np.isfinite(priority[i]) else 0.0
        items.append(ItemState(pk, external_id, labels, held, state, worth))
    spent = sum(row[4] for row in rows)  # item-assignments given: the ordinary items' own (not imported) ones
    budget_spent = bool(settings.budget) and spent >= settings.budget
    return AdaptiveStatus(settings, items, spent, budget_spent, counts_by_criterion, items_of_units, rules)


@dataclass(frozen=True)
class LabelSettlement:
    """One label-gold criterion's units: how many, how many settled, and the rule's own error figure."""

    criterion: str
    delta: float
    threshold: float
    alpha: tuple[float, ...]  # the fitted Dirichlet prior over label shares, in scale order
    units: int  # units with a label
    settled: int  # units whose label will not change with probability at least 1 - delta
    expected_error: float | None  # the mean change probability of the settled units (None: none settled)
    item_units: np.ndarray  # per item (status order): its units of this criterion
    item_settled: np.ndarray  # per item: how many of them are settled


def label_settlement(status: AdaptiveStatus) -> dict[str, LabelSettlement]:
    """Per label-gold criterion, where its units stand (``LabelStopRule.settled``): computed here, not in every
    hand-out, from the counts and priors ``status`` was decided on."""
    out = {}
    for key, rule in status.rules.items():
        if not isinstance(rule, LabelStopRule):
            continue
        counts, index = status.counts[key], status.unit_items[key]
        change = rule.statistic(counts) if len(counts) else np.zeros(0)
        n = counts.sum(axis=1)
        settled = (n >= rule.max_k) | ((n >= rule.min_k) & (change <= rule.delta))
        item_units = np.bincount(index, minlength=len(status.items))
        item_settled = np.bincount(index, weights=settled, minlength=len(status.items)).astype(int)
        out[key] = LabelSettlement(
            key,
            rule.delta,
            rule.threshold,
            rule.alpha,
            len(counts),
            int(settled.sum()),
            float(change[settled].mean()) if settled.any() else None,
            item_units,
            item_settled,
        )
    return out


def stop_reason(item: ItemState, status: AdaptiveStatus) -> str:
    """Why an item stopped getting labels: ``stable``, ``at_maximum``, ``budget_spent``, or '' (still open)."""
    if item.state != OPEN:
        return item.state
    return "budget_spent" if status.budget_spent else ""
