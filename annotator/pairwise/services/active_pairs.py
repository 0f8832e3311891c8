"""Active choice of comparisons (the pairwise preset's *active pairs* setting): the next annotator gets the open
item whose system pair is expected to narrow the intervals most (Chiang et al. 2024, section 5;
``scoring.pairwise.next_pairs``), one item at a time, until the stop rule says the ranking is separated or the
vote budget is spent (``annotator.pairwise.selectors.collection_status``).

An item is open to an annotator when it is an ordinary comparison (not a control or training item) they have
not been given and that has fewer than K annotators. Hand-outs go through
``annotator.handout.services.one_at_a_time``, which
locks the project's row, as every assignment path does, so two annotators asking at once never take the last
place of an item twice or overshoot the budget.
"""

from __future__ import annotations

from django.db.models import Count, Q

from annotator.handout.services.one_at_a_time import hand_out_one
from annotator.models import Assignment, Project
from annotator.pairwise.selectors import collection_status, comparison_vote_records, item_candidates, pairwise_settings
from annotator.presets.of_project import project_scheme
from scoring.pairwise import PairwiseVotes, next_pairs

STOPPED = ("separated", "budget_spent")


def active_pairs_on(project: Project) -> bool:
    """Whether the project hands out comparisons actively (a comparison preset with the setting on)."""
    return project_scheme(project).comparison is not None and pairwise_settings(project).active_pairs


def _open_items(project: Project, user_id: int) -> dict[int, int]:
    """Open item id -> how many annotators it has (see the module's docstring)."""
    k = project.annotators_per_dialogue
    rows = (
        project.dialogues.filter(quality_item__isnull=True)
        .annotate(held=Count("assignments", filter=Q(assignments__imported=False)))
        .filter(held__lt=k)
        .exclude(assignments__annotator_id=user_id)
        .values_list("pk", "held")
    )
    return dict(rows)


def active_pair_assign(*, project: Project, user) -> Assignment | None:
    """Give ``user`` their next comparison, or None: they still have one open (it is theirs to finish first),
    the collection stopped (separated or budget spent), or no item is open to them (``hand_out_one``)."""
    return hand_out_one(project=project, user=user, choose=_choose)


def _choose(project: Project, user) -> int | None:
    items = item_candidates(project)
    first = project.criteria.order_by("position").values_list("key", flat=True).first()
    records = comparison_vote_records(project, items).get(first, []) if first else []
    if collection_status(project, records)["state"] in STOPPED:
        return None
    open_items = {d: held for d, held in _open_items(project, user.pk).items() if d in items}
    if not open_items:
        return None
    return _best_item(open_items, items, records, pairwise_settings(project).ties)


def _best_item(open_items: dict[int, int], items: dict, records: list[dict], ties: str) -> int:
    """The open item of the best-ranked system pair; among an pair's items the one with the fewest annotators
    (then the first imported). Pairs ``next_pairs`` does not reach fall back to the fewest annotators."""
    systems = sorted({s for a, b, _la, _lb in items.values() for s in (a, b)})
    votes = PairwiseVotes.from_records(records, systems=systems)
    n_pairs = len(systems) * (len(systems) - 1) // 2
    ranked = next_pairs(votes, len(systems), k=max(1, n_pairs), ties=ties)
    by_pair: dict[frozenset, list[int]] = {}
    for dialogue_id in sorted(open_items, key=lambda d: (open_items[d], d)):
        a, b, _la, _lb = items[dialogue_id]
        by_pair.setdefault(frozenset((a, b)), []).append(dialogue_id)
    for i, j in ranked:
        found = by_pair.get(frozenset((systems[i], systems[j])))
        if found:
            return found[0]
    return min(open_items, key=lambda d: (open_items[d], d))
