"""Single sign-on (OpenID Connect): which of the provider's groups become which role in a project.

A lead writes the rules for their project ("group = role", one a line); a user who signs in through the provider
becomes a member of every project one of whose rules names a group in their groups claim (``OIDC_GROUPS_CLAIM``),
with the highest role the matching rules give (lead above annotator). Rules only add: a group that disappears
from the claim does not remove anyone (the lead removes members on the members' section).
"""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from annotator.models import Project, Role
from annotator.services.projects import membership_add

RANK = {Role.ANNOTATOR: 0, Role.LEAD: 1}


def sso_groups_parse(text: str) -> dict[str, str]:
    """``{group: role}`` from lines of ``group = role``; blank lines are skipped.

    >>> sso_groups_parse("nlp-staff = lead\\n\\nstudents=annotator")
    {'nlp-staff': 'lead', 'students': 'annotator'}
    """
    rules: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        group, sep, role = (part.strip() for part in line.partition("="))
        if not sep or not group or role not in RANK:
            raise ValidationError(
                _('Line %(number)s: write "group = lead" or "group = annotator".') % {"number": number}
            )
        rules[group] = role
    return rules


def project_sso_groups_save(*, project: Project, text: str) -> Project:
    """Replace the project's group rules with those in ``text`` (``sso_groups_parse``)."""
    project.sso_groups = sso_groups_parse(text)
    project.save(update_fields=["sso_groups"])
    return project


@transaction.atomic
def sso_memberships_apply(*, user: AbstractBaseUser, groups: Iterable[str]) -> list[tuple[str, str]]:
    """Make ``user`` a member of the projects whose rules name one of ``groups``; ``[(slug, role)]`` given."""
    held = set(groups)
    given = []
    for project in Project.objects.exclude(sso_groups={}).order_by("slug"):
        roles = [role for group, role in (project.sso_groups or {}).items() if group in held and role in RANK]
        if roles:
            role = max(roles, key=RANK.__getitem__)
            current = project.memberships.filter(user=user, active=True).values_list("role", flat=True).first()
            if current is None or RANK.get(current, 0) < RANK[role]:
                membership_add(project=project, user=user, role=role)
            given.append((project.slug, role if current is None or RANK.get(current, 0) < RANK[role] else current))
    return given
