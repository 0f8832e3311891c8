"""Project statistics: computed from the judgements table through the library, stored with provenance."""
from __future__ import annotations

import hashlib

from django.db import transaction
from django.db.models import Count, Max
from django.utils import timezone

import scoring
from annotator.models import AssignmentStatus, Judgement, Project
from scoring.data import project_judgements
from scoring.models import ProjectStatistics


def judgements_fingerprint(project: Project) -> tuple[int, str]:
    """(number of submitted judgements, a digest that changes whenever any of them changes)."""
    agg = Judgement.objects.filter(
        assignment__dialogue__project=project, assignment__status=AssignmentStatus.SUBMITTED
    ).aggregate(n=Count("pk"), last_id=Max("pk"), last_update=Max("updated_at"))
    gold = project.dialogues.aggregate(g=Count("gold_counts"))["g"]
    text = f"{agg['n']}|{agg['last_id']}|{agg['last_update']}|{gold}|{scoring.__version__}"
    return agg["n"], hashlib.sha256(text.encode()).hexdigest()


def project_statistics(project: Project) -> dict:
    """The statistics payload of a project (per criterion: units and annotators covered)."""
    criteria = {}
    for key, data in project_judgements(project).items():
        criteria[key] = {"n_units": int(data.n_units), "n_annotators": int(len(data.annotators))}
    return {"project": project.slug, "criteria": criteria}


def statistics_recompute(*, project_id: int, force: bool = False) -> ProjectStatistics:
    """Compute and store a project's statistics; skipped when the judgements have not changed."""
    project = Project.objects.get(pk=project_id)
    n, fingerprint = judgements_fingerprint(project)
    current = ProjectStatistics.objects.filter(project=project).first()
    if current and current.fingerprint == fingerprint and not force:
        return current
    payload = project_statistics(project)
    with transaction.atomic():
        stored, _ = ProjectStatistics.objects.update_or_create(
            project=project,
            defaults={"payload": payload, "n_judgements": n, "fingerprint": fingerprint,
                      "library_version": scoring.__version__, "computed_at": timezone.now()},
        )
    return stored
