"""Small breakdown projects for the quality-control tests, and answering every item of an annotator."""

from __future__ import annotations

import json
from pathlib import Path

from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotator.models import Assignment, AssignmentStatus, Dialogue
from annotator.presets import PRESETS
from annotator.selectors.structure import dialogue_shape
from annotator.services.judgements import Given, judgements_save
from annotator.services.quality_items import Expected
from annotator.units import required_units
from tests.factories import project_with_work

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
    rule = PRESETS[project.preset].units
    return [(c.key, u) for c in project.criteria.all() for u in required_units(c, shape, rule=rule)]


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
