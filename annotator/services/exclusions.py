"""Leaving annotators out of gold data and statistics, with the lead's reason (and letting them back in).

What counts is read in one place (``annotator.selectors.population``); the statistics' fingerprint
includes it, so the statistics and the gold cache recompute and every export follows at once.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext

from annotator import events
from annotator.models import AnnotatorExclusion, Membership, Project, Role


class ExclusionError(ValueError):
    pass


def _annotator(project: Project, username: str):
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        user = (
            Membership.objects.filter(project=project, source_key=username, imported=True)
            .select_related("user")
            .first()
        )
        user = user.user if user else None
    if user is None or not Membership.objects.filter(project=project, user=user, role=Role.ANNOTATOR).exists():
        raise ExclusionError(
            gettext("%(username)s is not an annotator of project %(slug)s")
            % {"username": repr(username), "slug": project.slug}
        )
    return user


@transaction.atomic
def annotator_exclude(*, project: Project, username: str, reason: str, excluded_by) -> AnnotatorExclusion:
    """Exclude an annotator (by username, or an imported annotator's source id) with a reason.

    A new exclusion marks the live figures stale and asks for the statistics once the change commits,
    whichever door it came through (page, API, ``lead_exclusions``); a changed reason changes no figure.
    """
    reason = (reason or "").strip()
    if not reason:
        raise ExclusionError(gettext("give a reason for excluding the annotator"))
    user = _annotator(project, username)
    exclusion, created = AnnotatorExclusion.objects.update_or_create(
        project=project, user=user, defaults={"reason": reason, "excluded_by": excluded_by}
    )
    if created:
        events.population_changed(project_id=project.pk, reason="exclusion")
        events.statistics_due(project_id=project.pk)
    return exclusion


@transaction.atomic
def annotator_include(*, project: Project, username: str) -> int:
    """Count an excluded annotator's judgements again; returns how many exclusions were lifted."""
    user = _annotator(project, username)
    deleted, _ = AnnotatorExclusion.objects.filter(project=project, user=user).delete()
    if deleted:
        events.population_changed(project_id=project.pk, reason="inclusion")
        events.statistics_due(project_id=project.pk)
    return deleted
