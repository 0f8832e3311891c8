"""Who may open what, in one place for the pages and the API.

Annotators open their own assignments, members their projects, leads their projects' lead
pages. Someone without a membership learns nothing (404); a member without the role gets 403.
The page helpers take the request and return the object or raise; the DRF permission
classes below wrap the same checks for the API.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404
from rest_framework.permissions import BasePermission

from annotator.models import Assignment, Membership, Project, Role


def own_assignment(request, assignment_id: int) -> Assignment:
    """The user's own assignment; anyone else's answers 404 (its existence is not revealed)."""
    return get_object_or_404(
        Assignment.objects.select_related("dialogue__project"), pk=assignment_id, annotator=request.user
    )


def member_project(request, slug: str) -> tuple[Project, Membership]:
    """The project and the user's active membership of it; 404 for anyone without one."""
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


def can_create_projects(user) -> bool:
    """Staff, and anyone who already leads a project, may start new ones (or import an archive)."""
    return user.is_staff or user.memberships.filter(role=Role.LEAD, active=True).exists()


class CanCreateProjects(BasePermission):
    """For the API: staff and leads of a project may create projects."""

    message = "only staff and project leads can create projects"

    def has_permission(self, request, view) -> bool:
        return bool(request.user and request.user.is_authenticated and can_create_projects(request.user))


class IsProjectMember(BasePermission):
    """The view's ``slug`` names a project the user is an active member of.

    Sets ``request.project`` and ``request.membership`` for the view.
    """

    message = "no such project"

    def has_permission(self, request, view) -> bool:
        if not (request.user and request.user.is_authenticated):
            return False
        request.project, request.membership = member_project(request, view.kwargs["slug"])
        return True


class IsProjectLead(IsProjectMember):
    """The view's ``slug`` names a project the user leads (403 for its annotators, 404 otherwise)."""

    message = "only the project's leads can do this"

    def has_permission(self, request, view) -> bool:
        if not super().has_permission(request, view):
            return False
        return request.membership.role == Role.LEAD
