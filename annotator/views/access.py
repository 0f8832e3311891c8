"""Who may open what: annotators their own assignments, leads their projects."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404

from annotator.models import Assignment, Membership, Project, Role


def own_assignment(request, assignment_id: int) -> Assignment:
    """The user's own assignment; anyone else's answers 404 (its existence is not revealed)."""
    return get_object_or_404(
        Assignment.objects.select_related("dialogue__project"), pk=assignment_id, annotator=request.user
    )


def member_project(request, slug: str) -> tuple[Project, Membership]:
    project = get_object_or_404(Project, slug=slug)
    membership = Membership.objects.filter(project=project, user=request.user, active=True).first()
    if membership is None:
        raise Http404("no such project")
    return project, membership


def lead_project(request, slug: str) -> Project:
    """The project if the user leads it; 403 for its annotators, 404 for everyone else."""
    project, membership = member_project(request, slug)
    if membership.role != Role.LEAD:
        raise PermissionDenied("only the project's leads can open this page")
    return project
