"""Invitations by email: a lead invites an address into a role on a project; the person sets their own account up
from a one-time link (``annotator.services.invitations``)."""

from django.conf import settings
from django.db import models

from annotator.models.projects import Project, Role


class Invitation(models.Model):
    """One invitation. The link carries a signed, timestamped token naming it (``django.core.signing``): it expires
    after ``INVITATION_MAX_AGE_HOURS`` and serves once (``accepted_at``)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField()
    role = models.CharField(max_length=20, choices=Role.choices)
    invited_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.email} as {self.role} of {self.project.slug}"
