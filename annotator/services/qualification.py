"""Qualification's writes: a pass recorded once reached, and a lead letting an annotator in by hand.

A pass is recorded when the training item that reaches it is submitted (``judgements_save`` calls
``qualification_pass_record``), so that later changes of the training set or the pass mark do not
lock a qualified annotator out again. The reads are ``annotator.selectors.qualification``.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from annotator.models import Membership, Project, Qualification, Role
from annotator.selectors.qualification import QualificationState, QualificationStatus, qualification_status


def qualification_pass_record(*, project: Project, user) -> QualificationStatus:
    """Where ``user`` stands (``qualification_status``), recording a pass the first time it is reached."""
    status = qualification_status(project=project, user=user)
    recorded = Qualification.objects.filter(project=project, user=user, passed_at__isnull=False)
    if status.state == QualificationState.PASSED and not recorded.exists():
        Qualification.objects.update_or_create(
            project=project, user=user, defaults={"score": status.score, "passed_at": timezone.now()}
        )
    return status


@transaction.atomic
def qualification_admit(*, project: Project, username: str, admitted_by, note: str = "") -> Qualification:
    """Let an annotator of the project into the real queue by hand (a lead's decision, with a note)."""
    user = get_user_model().objects.filter(username=username).first()
    if user is None or not Membership.objects.filter(project=project, user=user, role=Role.ANNOTATOR).exists():
        raise ValueError(f"{username!r} is not an annotator of project {project.slug}")
    record, _created = Qualification.objects.update_or_create(
        project=project, user=user, defaults={"admitted_by": admitted_by, "admitted_at": timezone.now(), "note": note}
    )
    return record
