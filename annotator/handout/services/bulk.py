"""Giving dialogues to annotators: K different annotators per dialogue, balanced loads, reproducible.

Projects with an adaptive budget (``annotator.handout.services.adaptive``) get no bulk assignment: their items are
handed out one at a time, like active pairs. Coherence projects instead get m constrained permutations per
dialogue arranged in m balanced sets (Gandhe & Traum 2008); each annotator judges one set, in a random order
of their own.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.db import transaction
from django.db.models import Count
from django.utils.translation import gettext

from annotator.handout.selectors.adaptive import adaptive_on
from annotator.models import Assignment, AssignmentStatus, Membership, PairwiseSettings, Post, Project, Role
from annotator.pairwise.services.pair_order import pair_orders_fill
from annotator.presets.of_project import project_scheme
from annotator.services.quality_items import quality_assignments_create
from scoring.ordering import balanced_permutation_sets


@dataclass(frozen=True)
class AssignReport:
    created: int
    handed_back: int
    loads: dict[str, int]


def _annotators(project: Project) -> list[Membership]:
    """The annotators the lead's assignment run gives work to; study participants get theirs on arrival."""
    return list(
        Membership.objects.filter(project=project, role=Role.ANNOTATOR, active=True, imported=False)
        .exclude(user__study_participant__isnull=False)
        .select_related("user")
        .order_by("user_id")
    )


def _hand_back(project: Project, *, dry: bool = False) -> int:
    """Delete the unfinished assignments (and their drafts) of annotators no longer active in the project."""
    active = Membership.objects.filter(project=project, role=Role.ANNOTATOR, active=True).values("user_id")
    stale = (
        Assignment.objects.filter(dialogue__project=project, imported=False)
        .exclude(status=AssignmentStatus.SUBMITTED)
        .exclude(annotator_id__in=active)
    )
    count = stale.count()
    if not dry:
        stale.delete()
    return count


@transaction.atomic
def assignments_create_balanced(
    *, project: Project, k: int | None = None, seed: int = 0, hand_back_unfinished: bool = True, sets: int = 3
) -> AssignReport:
    """Assign what is missing so every dialogue has K different annotators; never moves submitted work.

    Each dialogue, in import order, takes the annotators with the fewest assignments in the project
    (ties broken by a seeded shuffle), so loads differ by at most one and the same seed gives the
    same assignment. Run again after adding dialogues or annotators, it adds only what is missing.
    With ``hand_back_unfinished``, unfinished work of annotators who left is first released.
    """
    Project.objects.select_for_update().filter(pk=project.pk).first()  # one assignment run at a time
    handed_back = _hand_back(project) if hand_back_unfinished else 0
    if project_scheme(project).reordering:
        return _assign_permutation_sets(project, sets, seed, handed_back)
    if (
        project_scheme(project).comparison
        and PairwiseSettings.objects.filter(project=project, active_pairs=True).exists()
    ):
        report = AssignReport(0, handed_back, {})  # comparisons are handed out one at a time (active pairs)
    elif adaptive_on(project):
        report = AssignReport(0, handed_back, {})  # adaptive budgets: items are handed out one at a time
    else:
        report = _assign_balanced(project, k, seed, handed_back)
    quality_assignments_create(project=project, seed=seed)  # training items, and controls at the set rate
    pair_orders_fill(project=project)  # comparisons: which candidate each annotator sees first
    return report


def _assign_balanced(project: Project, k: int | None, seed: int, handed_back: int) -> AssignReport:
    k = project.annotators_per_dialogue if k is None else k
    members = _annotators(project)
    if k < 1:
        raise ValueError(gettext("annotators per dialogue must be at least 1"))
    if len(members) < k:
        raise ValueError(
            gettext(
                "project %(slug)s has %(active)s active annotators, fewer than K = %(k)s: every dialogue needs "
                "K different annotators; add %(missing)s more or lower K"
            )
            % {"slug": project.slug, "active": len(members), "k": k, "missing": k - len(members)}
        )
    rng = np.random.default_rng(seed)
    tie_break = {m.user_id: float(r) for m, r in zip(members, rng.random(len(members)))}
    load = dict.fromkeys(tie_break, 0)
    for user_id, n in (
        Assignment.objects.filter(dialogue__project=project, annotator_id__in=list(load), dialogue__quality_item=None)
        .values_list("annotator_id")
        .annotate(n=Count("pk"))
    ):
        load[user_id] = n
    have: dict[int, set[int]] = {}
    for dialogue_id, user_id in Assignment.objects.filter(dialogue__project=project, imported=False).values_list(
        "dialogue_id", "annotator_id"
    ):
        have.setdefault(dialogue_id, set()).add(user_id)
    new = []
    # control and training items are not ordinary work: quality_assignments_create hands them out
    for dialogue_id in (
        project.dialogues.filter(quality_item=None).order_by("position", "pk").values_list("pk", flat=True)
    ):
        taken = have.get(dialogue_id, set())
        candidates = sorted((u for u in load if u not in taken), key=lambda u: (load[u], tie_break[u]))
        for user_id in candidates[: max(0, k - len(taken))]:
            load[user_id] += 1
            new.append(Assignment(annotator_id=user_id, dialogue_id=dialogue_id))
    _set_queue_ranks(new, rng)
    Assignment.objects.bulk_create(new, batch_size=2000)
    names = {m.user_id: m.user.username for m in members}
    return AssignReport(len(new), handed_back, {names[u]: n for u, n in load.items()})


def _set_queue_ranks(new: list[Assignment], rng: np.random.Generator) -> None:
    """A random order of work per annotator."""
    per_annotator: dict[int, list[Assignment]] = {}
    for a in new:
        per_annotator.setdefault(a.annotator_id, []).append(a)
    for items in per_annotator.values():
        for rank, index in enumerate(rng.permutation(len(items))):
            items[index].queue_rank = rank


def _assign_permutation_sets(project: Project, m: int, seed: int, handed_back: int) -> AssignReport:
    members = _annotators(project)
    if not members:
        raise ValueError(gettext("project %(slug)s has no active annotators") % {"slug": project.slug})
    rng = np.random.default_rng(seed)
    dialogues = list(project.dialogues.order_by("position", "pk").values_list("pk", flat=True))
    speakers: dict[int, list[str]] = {}
    for dialogue_id, block, speaker in (
        Post.objects.filter(dialogue__project=project)
        .order_by("dialogue_id", "position")
        .values_list("dialogue_id", "utterance_block", "speaker")
    ):
        turns = speakers.setdefault(dialogue_id, [])
        if block == len(turns):
            turns.append(speaker)
    sets = balanced_permutation_sets([speakers[d] for d in dialogues], m=m, seed=seed)
    existing = set(Assignment.objects.filter(dialogue__project=project).values_list("annotator_id", "dialogue_id"))
    set_of_member = {}
    for i, member in enumerate(members):
        taken = (
            Assignment.objects.filter(annotator_id=member.user_id, dialogue__project=project)
            .exclude(permutation_set=None)
            .values_list("permutation_set", flat=True)
            .first()
        )
        set_of_member[member.user_id] = taken if taken is not None else i % m
    new = []
    for user_id, s in set_of_member.items():
        for d_index, order in sets[s]:
            dialogue_id = dialogues[d_index]
            if (user_id, dialogue_id) not in existing:
                new.append(
                    Assignment(
                        annotator_id=user_id, dialogue_id=dialogue_id, shown_order=order.tolist(), permutation_set=s
                    )
                )
    _set_queue_ranks(new, rng)
    Assignment.objects.bulk_create(new, batch_size=2000)
    loads = dict(
        Assignment.objects.filter(dialogue__project=project, annotator_id__in=set_of_member)
        .values_list("annotator__username")
        .annotate(n=Count("pk"))
    )
    return AssignReport(len(new), handed_back, loads)
