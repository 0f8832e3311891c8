"""The invitations a project's members' section lists."""

from __future__ import annotations

from annotator.models import Invitation, Project


def invitations_open(*, project: Project) -> list[Invitation]:
    """The project's invitations not yet accepted, newest first, with who sent them."""
    return list(Invitation.objects.filter(project=project, accepted_at__isnull=True).select_related("invited_by"))
