"""The demo: a project per preset with the project's own small files, a lead and three annotators."""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth import get_user_model
from django.db import transaction

from annotator.handout.services.bulk import assignments_create_balanced
from annotator.models import Project, Role
from annotator.services.imports import dialogues_import
from annotator.services.projects import membership_add, project_create

DEMO_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "demo"
DEMO_LEAD = ("lead", "demo-lead-pass")
DEMO_ANNOTATORS = [("ann1", "demo-annotator-pass"), ("ann2", "demo-annotator-pass"), ("ann3", "demo-annotator-pass")]
DEMO_PROJECTS = [
    # slug, preset, name, files
    ("demo-dch1", "dch1", "Demo: DCH-1 helpdesk dialogues", ["helpdesk.jsonl"]),
    ("demo-stc3", "stc3", "Demo: STC-3 dialogue quality and nuggets", ["stc3.json"]),
    ("demo-coherence", "coherence", "Demo: dialogue coherence", ["coherence.jsonl"]),
    ("demo-dbdc", "dbdc", "Demo: dialogue breakdown", ["dbdc"]),
    ("demo-nlpcc", "nlpcc", "Demo: NLPCC open-domain replies", ["nlpcc.jsonl"]),
    ("demo-pairwise", "pairwise", "Demo: pairwise comparison of responses", ["pairwise.jsonl"]),
]


def _user(username: str, password: str, **flags):
    User = get_user_model()
    user, created = User.objects.get_or_create(username=username, defaults=flags)
    if created:
        user.set_password(password)
        user.save()
    return user


@transaction.atomic
def demo_load() -> list[Project]:
    """Create (once) the demo users and projects; running it again changes nothing."""
    lead = _user(*DEMO_LEAD, is_staff=True, is_superuser=True)
    annotators = [_user(name, password) for name, password in DEMO_ANNOTATORS]
    projects = []
    for slug, preset, name, files in DEMO_PROJECTS:
        project = Project.objects.filter(slug=slug).first()
        if project is None:
            project = project_create(slug=slug, preset=preset, name=name, annotators_per_dialogue=3)
            dialogues_import(project=project, paths=[DEMO_DIR / f for f in files], language="en")
        membership_add(project=project, user=lead, role=Role.LEAD)
        for annotator in annotators:
            membership_add(project=project, user=annotator, role=Role.ANNOTATOR)
        assignments_create_balanced(project=project, seed=0)
        projects.append(project)
    return projects
