"""The one set of factories: "a project with members, dialogues and assignments", for every preset; small
breakdown projects for quality control; answering every item of an annotator; an API client with a token.

The dialogues are the demo's own small files (``annotator/fixtures/demo``), so every preset has
data its criteria can be asked of.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from django.contrib.auth import get_user_model
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotator.handout.services.bulk import assignments_create_balanced
from annotator.models import Assignment, AssignmentStatus, Dialogue, Project, Role
from annotator.presets import PRESETS
from annotator.selectors.structure import dialogue_shape, project_criteria
from annotator.services.demo import DEMO_DIR, DEMO_PROJECTS
from annotator.services.imports import dialogues_import
from annotator.services.judgements import Given, judgements_save
from annotator.services.projects import membership_add, project_create
from annotator.services.quality_items import Expected
from annotator.units import required_units

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
    scheme=None,
) -> ProjectWithWork:
    """A ``preset`` project with dialogues, a lead, ``annotators`` annotators and K = ``k`` (default: all of them);
    with ``scheme`` (a ``Scheme``), a project following it (the demo's files of the preset named ``preset``).

    The dialogues come from ``paths`` (default: the demo's files for the preset). Usernames are
    ``lead_name`` and ``annotator_names`` if given, else ``{prefix}-lead`` and ``{prefix}-ann1``...
    (the prefix defaults to the slug).
    """
    slug = slug or f"{preset}-work"
    prefix = prefix or slug
    names = annotator_names or [f"{prefix}-ann{i + 1}" for i in range(annotators)]
    source = {"preset": preset} if scheme is None else {"scheme": scheme}
    project = project_create(slug=slug, annotators_per_dialogue=k or len(names), **source)
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
    return _values_for_units(assignment, lambda allowed: allowed[0])


def project_with_submissions(preset: str, *, slug: str | None = None, annotators: int = 2) -> ProjectWithWork:
    """A ``preset`` project (``project_with_work``, two annotators unless told) whose every item is submitted
    with the first allowed values (and, for reordering presets, the order as shown)."""
    work = project_with_work(preset, slug=slug, annotators=annotators)
    for person in work.annotators:
        for assignment in work.assignments_of(person):
            judgements_save(
                assignment_id=assignment.pk,
                user=person,
                values=first_allowed_values(assignment),
                reordering=list(assignment.shown_order) if PRESETS[preset].reordering else None,
                submit=True,
            )
    return work


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
    from annotator.studies.services import study_create

    path = nlpcc_dialogues_file(tmp_path / f"{slug}.jsonl", dialogues)
    work = project_with_work("nlpcc", slug=slug, annotators=0, k=k, assign=False, paths=[path])
    settings.setdefault("items_per_participant", 2)
    study = study_create(project=work.project, name=f"{slug} study", **settings)
    return work, study


# -- Breakdown projects for quality control, and answering every item of an annotator ---------------------

LABELS = ("O", "T", "X")


def breakdown_lines(path: Path, n: int, prefix: str = "bd") -> Path:
    """``n`` new breakdown dialogues (S, U, S, U, S: two system turns are asked about, posts 2 and 4)."""
    with open(path, "w") as out:
        for i in range(n):
            turns = [
                {"speaker": s, "text": f"{prefix}{i} turn {t}: " + ("system says" if s == "S" else "user says")}
                for t, s in enumerate("SUSUS")
            ]
            out.write(json.dumps({"id": f"{prefix}{i:02d}", "turns": turns}) + "\n")
    return path


def breakdown_project(tmp_path: Path, *, dialogues: int = 12, annotators: int = 3, k: int = 2, assign: bool = True,
                      slug: str = "qc"):  # fmt: skip
    return project_with_work(
        "dbdc",
        slug=slug,
        annotators=annotators,
        k=k,
        assign=assign,
        paths=[breakdown_lines(tmp_path / f"{slug}.jsonl", dialogues)],
    )


def units_of(dialogue_id: int, project) -> list[tuple[str, int]]:
    shape = dialogue_shape(dialogue_id)
    return [(c.key, u) for c in project.criteria.all() for u in required_units(c, shape)]


def expected_all(dialogue: Dialogue, value: str = "X", tolerance: int = 0) -> list[Expected]:
    return [Expected(key, unit, value, tolerance) for key, unit in units_of(dialogue.pk, dialogue.project)]


def submit(assignment: Assignment, choose, seconds: int = 30) -> None:
    """Submit ``assignment`` with ``choose(assignment, criterion key, unit)`` as each value."""
    values = [
        Given(key, unit, choose(assignment, key, unit))
        for key, unit in units_of(assignment.dialogue_id, assignment.dialogue.project)
    ]
    judgements_save(assignment_id=assignment.pk, user=assignment.annotator, values=values, seconds=seconds, submit=True)


def submit_all(user, project, choose, seconds: int = 30) -> None:
    for a in (
        Assignment.objects.filter(annotator=user, dialogue__project=project)
        .exclude(status=AssignmentStatus.SUBMITTED)
        .select_related("dialogue__project", "annotator")
    ):
        submit(a, choose, seconds)


def api_client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def page_save(client, item, judgements: dict[str, str], base: dict[str, str] | None = None, **extra):
    """The page's save: the API's body, each answer with the value the page last saw (its base)."""
    body = {
        "judgements": [
            {"criterion": name.split(":")[1], "unit": int(name.split(":")[2]), "value": value}
            | ({"base": base[name]} if base is not None and name in base else {})
            for name, value in judgements.items()
        ],
        **extra,
    }
    return client.post(reverse("api-judgements", args=[item.pk]), data=body, content_type="application/json")


def random_values(assignment, rng) -> list[Given]:
    """A value for every unit of every criterion, drawn at random from those allowed for the unit's speaker."""
    return _values_for_units(assignment, lambda allowed: allowed[int(rng.integers(len(allowed)))])


def _values_for_units(assignment, pick) -> list[Given]:
    """A value for every unit of every criterion, ``pick``ed from those allowed for the unit's speaker."""
    shape = dialogue_shape(assignment.dialogue_id)
    given = []
    for criterion in project_criteria(assignment.dialogue.project_id).values():
        for unit in required_units(criterion, shape):
            if criterion.unit == "dialogue":
                speaker = None
            elif criterion.unit == "turn":
                speaker = shape.speakers[list(shape.blocks).index(unit)]
            else:
                speaker = shape.speakers[unit]
            allowed = criterion.allowed_values(speaker if criterion.speakers else None)
            given.append(Given(criterion.key, unit, pick(allowed)))
    return given


def judge_copying(project, annotator: int, name: str, *, confidence: float = 0.8):
    """A judge whose labels are those of the project's ``annotator``-th annotator (in the arrays' order),
    each with a distribution putting ``confidence`` on that label."""
    import numpy as np

    from annotator.models import Judge, JudgeKind, JudgeLabel
    from annotator.selectors.judgement_arrays import project_judgements

    judge = Judge.objects.create(project=project, name=name, kind=JudgeKind.IMPORTED)
    labels = []
    for data in project_judgements(project).values():
        mine = data.annotator == annotator
        for u, v in zip(data.unit[mine], data.value[mine]):
            share = np.full(len(data.values), (1 - confidence) / max(len(data.values) - 1, 1))
            share[v] = confidence
            labels.append(
                JudgeLabel(
                    judge=judge,
                    criterion=data.criterion,
                    dialogue_id=int(data.unit_dialogue[u]),
                    unit=int(data.unit_index[u]),
                    value=data.values[v],
                    distribution=dict(zip(data.values, share.tolist())),
                )
            )
    JudgeLabel.objects.bulk_create(labels)
    return judge


def judge_constant(project, value: str, name: str, *, criterion: str | None = None):
    """A judge that gives ``value`` to every unit the humans judged (of ``criterion``, or of every criterion
    whose scale has that value)."""
    from annotator.models import Judge, JudgeKind, JudgeLabel
    from annotator.selectors.judgement_arrays import project_judgements

    judge = Judge.objects.create(project=project, name=name, kind=JudgeKind.IMPORTED)
    labels = [
        JudgeLabel(judge=judge, criterion=data.criterion, dialogue_id=int(d), unit=int(u), value=value)
        for key, data in project_judgements(project).items()
        if (criterion is None or key == criterion) and value in data.values
        for d, u in zip(data.unit_dialogue.tolist(), data.unit_index.tolist())
    ]
    JudgeLabel.objects.bulk_create(labels, batch_size=5000)
    return judge


def typical_annotator(data) -> int:
    """The user id of a typical annotator of one criterion's judgements: among those with 50 or more labels,
    the one with the median agreement with the other annotators' majority (the busiest crowd worker is often
    not typical)."""
    import numpy as np

    counts = data.counts()
    candidates = []
    for a in np.unique(data.annotator):
        mine = data.annotator == a
        if mine.sum() < 50:
            continue
        others = counts[data.unit[mine]] - np.eye(len(data.values), dtype=np.int64)[data.value[mine]]
        candidates.append(((others.argmax(axis=1) == data.value[mine]).mean(), int(data.annotators[a])))
    candidates.sort()
    return candidates[len(candidates) // 2][1]


def judges_held_out_and_random(project, *, seed: int = 0):
    """Two judges on a project: a typical annotator held out of the human pool (excluded, their labels
    imported as the judge ``held-out-human``) and ``random``, answering every unit uniformly at random with
    a random (Dirichlet) distribution. Returns (held-out judge, random judge, the held-out user's id)."""
    import numpy as np

    from annotator.models import AnnotatorExclusion, Judge, JudgeKind, JudgeLabel
    from annotator.selectors.judgement_arrays import project_judgements

    humans = project_judgements(project)
    user_id = typical_annotator(next(iter(humans.values())))
    held = Judge.objects.create(project=project, name="held-out-human", kind=JudgeKind.IMPORTED)
    rand = Judge.objects.create(project=project, name="random", kind=JudgeKind.IMPORTED)
    rng = np.random.default_rng(seed)
    labels = []
    for data in humans.values():
        mine = data.annotators[data.annotator] == user_id
        for u, v in zip(data.unit[mine], data.value[mine]):
            labels.append(JudgeLabel(judge=held, criterion=data.criterion, dialogue_id=int(data.unit_dialogue[u]),
                                     unit=int(data.unit_index[u]), value=data.values[v]))  # fmt: skip
        allowed = [i for i, x in enumerate(data.values) if x in data.criterion.allowed_values()]
        for u in range(data.n_units):
            p = rng.dirichlet(np.ones(len(data.values)))
            labels.append(JudgeLabel(judge=rand, criterion=data.criterion, dialogue_id=int(data.unit_dialogue[u]),
                                     unit=int(data.unit_index[u]), value=data.values[rng.choice(allowed)],
                                     distribution=dict(zip(data.values, p.tolist()))))  # fmt: skip
    JudgeLabel.objects.bulk_create(labels, batch_size=5000)
    AnnotatorExclusion.objects.create(project=project, user_id=user_id, reason="held out as a judge")
    return held, rand, user_id
