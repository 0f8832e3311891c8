"""A comparison project's settings (names revealed, active pairs, budget, tie model) and its criteria: a lead
adds a criterion (coherence, helpfulness) that asks the comparison's question with the comparison's scale."""

from __future__ import annotations

import re
from dataclasses import replace

from django.db import transaction
from django.utils.translation import gettext

from annotator.models import Criterion, PairwiseSettings, Project
from annotator.pairwise.models import TieModel
from annotator.presets.of_project import project_scheme
from annotator.services.schemes import scheme_change, scheme_current

CRITERION_KEY = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


def comparison_check(project: Project):
    comparison = project_scheme(project).comparison
    if comparison is None:
        raise ValueError(gettext("%(slug)s is not a comparison project") % {"slug": project.slug})
    return comparison


def pairwise_settings_save(
    *, project: Project, reveal_systems: bool, active_pairs: bool, vote_budget: int | None, ties: str
) -> PairwiseSettings:
    """Save the comparison settings (``ValueError`` with a message for the lead on a bad value)."""
    comparison_check(project)
    if ties not in TieModel.values:
        raise ValueError(gettext("unknown tie model %(ties)s") % {"ties": repr(ties)})
    if vote_budget is not None and vote_budget < 1:
        raise ValueError(gettext("the vote budget must be at least 1 (or empty: no budget)"))
    settings, _ = PairwiseSettings.objects.update_or_create(
        project=project,
        defaults={
            "reveal_systems": reveal_systems,
            "active_pairs": active_pairs,
            "vote_budget": vote_budget,
            "ties": ties,
        },
    )
    return settings


@transaction.atomic
def comparison_criterion_add(*, project: Project, key: str, label: str, question: str) -> Criterion:
    """A new criterion of the comparison (the item as a whole, the four outcomes), asked after the others: a change
    of the project's scheme (``scheme_change``)."""
    spec = comparison_check(project).criterion(key, label.strip() or key, question.strip())
    if not CRITERION_KEY.match(key):
        raise ValueError(gettext("a criterion key is lower-case letters, digits and _, starting with a letter"))
    if project.criteria.filter(key=key).exists():
        raise ValueError(gettext("the project already has a criterion %(key)s") % {"key": key})
    current = scheme_current(project)
    scheme_change(project=project, scheme=replace(current, criteria=[*current.criteria, spec]))
    return project.criteria.get(key=key)
