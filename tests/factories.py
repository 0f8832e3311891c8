"""One factory for "a project with members, dialogues and assignments", for every preset.

The dialogues are the demo's own small files (``annotator/fixtures/demo``), so every preset has
data its criteria can be asked of.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth import get_user_model

from annotator.models import Assignment, Project, Role
from annotator.selectors.structure import dialogue_shape, project_criteria
from annotator.services.assignment import assignments_create_balanced
from annotator.services.demo import DEMO_DIR, DEMO_PROJECTS
from annotator.services.imports import dialogues_import
from annotator.services.judgements import Given
from annotator.services.projects import membership_add, project_create
from annotator.units import required_units, unit_rule

DEMO_FILES = {preset: files for _slug, preset, _name, files in DEMO_PROJECTS}
PASSWORD = "pw-for-tests-1"


@dataclass
class ProjectWithWork:
    project: Project
    lead: object
    annotators: list = field(default_factory=list)

    def assignments_of(self, user) -> list[Assignment]:
        return list(Assignment.objects.filter(annotator=user, dialogue__project=self.project).order_by("queue_rank"))


def user_make(username: str, password: str = PASSWORD):
    return get_user_model().objects.create_user(username=username, password=password)


def project_with_work(
    preset: str,
    *,
    slug: str | None = None,
    annotators: int = 2,
    k: int | None = None,
    assign: bool = True,
    prefix: str | None = None,
    paths: list | None = None,
    lead_name: str | None = None,
    annotator_names: list[str] | None = None,
) -> ProjectWithWork:
    """A ``preset`` project with dialogues, a lead, ``annotators`` annotators and K = ``k`` (default: all of them).

    The dialogues come from ``paths`` (default: the demo's files for the preset). Usernames are
    ``lead_name`` and ``annotator_names`` if given, else ``{prefix}-lead`` and ``{prefix}-ann1``...
    (the prefix defaults to the slug).
    """
    slug = slug or f"{preset}-work"
    prefix = prefix or slug
    names = annotator_names or [f"{prefix}-ann{i + 1}" for i in range(annotators)]
    project = project_create(slug=slug, preset=preset, annotators_per_dialogue=k or len(names))
    dialogues_import(project=project, paths=paths or [DEMO_DIR / f for f in DEMO_FILES[preset]], language="en")
    lead = user_make(lead_name or f"{prefix}-lead")
    membership_add(project=project, user=lead, role=Role.LEAD)
    people = [user_make(name) for name in names]
    for person in people:
        membership_add(project=project, user=person, role=Role.ANNOTATOR)
    if assign:
        assignments_create_balanced(project=project, seed=0)
    return ProjectWithWork(project, lead, people)


def first_allowed_values(assignment) -> list[Given]:
    """A value for every unit of every criterion: the first value allowed for the unit's speaker.

    Units are numbered as the annotator sees them; the presets whose items are permuted (coherence)
    ask the same question of every speaker's turns, so the source's speakers give the same values.
    """
    shape = dialogue_shape(assignment.dialogue_id)
    rule = unit_rule(assignment.dialogue.project.preset)
    given = []
    for criterion in project_criteria(assignment.dialogue.project_id).values():
        for unit in required_units(criterion, shape, rule=rule):
            if criterion.unit == "dialogue":
                speaker = None
            elif criterion.unit == "turn":
                speaker = shape.speakers[list(shape.blocks).index(unit)]
            else:
                speaker = shape.speakers[unit]
            allowed = criterion.allowed_values(speaker if criterion.speakers else None)
            given.append(Given(criterion.key, unit, allowed[0]))
    return given


def nlpcc_dialogues_file(path, n: int):
    """``n`` two-turn NLPCC dialogues (a user's post, a system's reply) as JSON lines at ``path``."""
    import json

    lines = [
        {
            "id": f"dlg-{i:03d}",
            "language": "en",
            "turns": [{"speaker": "user", "text": f"question {i}?"}, {"speaker": "system", "text": f"answer {i}."}],
        }
        for i in range(n)
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def study_on_new_project(tmp_path, *, dialogues: int = 6, k: int = 2, slug: str = "crowd", **settings):
    """An NLPCC project of ``dialogues`` dialogues, K = ``k``, a lead (``{slug}-lead``), no annotators, and a
    study on it (``settings``: the study's, e.g. ``items_per_participant``). Returns (ProjectWithWork, Study)."""
    from annotator.services.studies import study_create

    path = nlpcc_dialogues_file(tmp_path / f"{slug}.jsonl", dialogues)
    work = project_with_work("nlpcc", slug=slug, annotators=0, k=k, assign=False, paths=[path])
    settings.setdefault("items_per_participant", 2)
    study = study_create(project=work.project, name=f"{slug} study", **settings)
    return work, study
