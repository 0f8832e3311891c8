"""The annotator's next item on projects that hand items out one at a time: comparisons with active pairs, and
adaptive budgets. Other projects' work is assigned in bulk (``annotator.handout.services.bulk``): nothing to do."""

from __future__ import annotations

from annotator.handout.selectors.adaptive import adaptive_on
from annotator.handout.services.adaptive import adaptive_assign
from annotator.models import Assignment, Participant, Project
from annotator.pairwise.services.active_pairs import active_pair_assign, active_pairs_on


def one_at_a_time(project: Project) -> bool:
    return active_pairs_on(project) or adaptive_on(project)


def next_item_hand_out(*, project: Project, user) -> Assignment | None:
    """Hand ``user`` their next item if the project gives items one at a time; None otherwise or when none is due."""
    if active_pairs_on(project):
        return active_pair_assign(project=project, user=user)
    if adaptive_on(project) and not Participant.objects.filter(user=user).exists():  # (a study gives a set)
        return adaptive_assign(project=project, user=user)
    return None
