"""A scheme of one's own (a ``Scheme``, as a scheme file gives) works end to end: pages, saves, statistics, export."""

import json

import pytest
from django.http import HttpRequest

from annotator.exporters import export_gold
from annotator.handout.services.bulk import assignments_create_balanced
from annotator.presets import CriterionSpec, Scheme
from annotator.services.demo import DEMO_DIR
from annotator.services.imports import dialogues_import
from annotator.services.judgements import Given, judgements_save
from annotator.services.projects import membership_add, project_create
from evaluation.services.statistics import project_statistics
from tests.factories import PASSWORD, user_make

pytestmark = pytest.mark.django_db

POLITENESS = Scheme(
    key="politeness",
    label="Politeness (test only)",
    guidelines="Is the dialogue polite? Is each turn fluent?",
    annotators_per_dialogue=2,
    speakers=("A", "B"),
    run_scheme=None,
    criteria=[
        CriterionSpec(
            "polite",
            "Politeness",
            "Is the dialogue polite?",
            "dialogue",
            [{"value": "yes", "label": "Yes"}, {"value": "no", "label": "No"}],
            "nominal",
        ),
        CriterionSpec(
            "fluent",
            "Fluency",
            "Is this turn fluent?",
            "post",
            [{"value": "1", "label": "1"}, {"value": "2", "label": "2"}, {"value": "3", "label": "3"}],
            "ordinal",
        ),
    ],
)


def test_a_scheme_of_one_s_own_works_end_to_end(client):
    # given a project of the new scheme with the coherence demo's A/B dialogues and two annotators
    project = project_create(slug="polite", scheme=POLITENESS)
    assert project.preset == "custom" and project.annotators_per_dialogue == 2
    dialogues_import(project=project, paths=[DEMO_DIR / "coherence.jsonl"], language="en")
    annotators = [user_make(f"polite-ann{i}") for i in (1, 2)]
    for person in annotators:
        membership_add(project=project, user=person, role="annotator")
    assignments_create_balanced(project=project, seed=0)

    # when both annotators open and submit their first item
    for n, person in enumerate(annotators):
        assignment = person.assignments.filter(dialogue__project=project).order_by("queue_rank").first()
        client.login(request=HttpRequest(), username=person.username, password=PASSWORD)  # axes needs a request
        page = client.get(f"/items/{assignment.pk}/")
        assert page.status_code == 200 and b"Is this turn fluent?" in page.content
        posts = assignment.dialogue.posts.count()
        values = [Given("polite", 0, "yes")] + [Given("fluent", p, str(1 + (p + n) % 3)) for p in range(posts)]
        judgements_save(assignment_id=assignment.pk, user=person, values=values, submit=True)

    # then the statistics and the gold export cover the new criteria
    stats = project_statistics(project)
    assert set(stats["criteria"]) == {"polite", "fluent"}
    assert stats["criteria"]["polite"]["n_annotators"] == 2 and stats["criteria"]["fluent"]["n_annotators"] == 2
    gold = json.loads(export_gold(project=project, fmt="distributions-json"))
    assert set(gold["criteria"]) == {"polite", "fluent"}
    assert sum(item["n"] for item in gold["criteria"]["polite"]["items"]) == 2
