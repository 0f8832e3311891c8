"""Lead-only scoring pages with Django's client: permissions and the reorderings button."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotator.models import Assignment, Reordering
from annotator.services.imports import dialogues_import
from annotator.services.projects import membership_add
from evaluation.models import Run

pytestmark = pytest.mark.django_db


def test_scoring_pages_are_for_leads_only(make_project, make_user, client):
    project = make_project("stc3")
    annotator = make_user("a")
    membership_add(project=project, user=annotator, role="annotator")
    client.force_login(annotator)
    for name in ("dashboard", "leaderboard"):
        assert client.get(reverse(name, args=[project.slug])).status_code == 403
    outsider = make_user("o")
    client.force_login(outsider)
    assert client.get(reverse("dashboard", args=[project.slug])).status_code == 404


def test_lead_scores_reorderings_from_the_leaderboard(make_project, make_user, client, tmp_path):
    project = make_project("coherence")
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"id": "c", "turns": [{"speaker": "AB"[t % 2], "text": str(t)} for t in range(4)]}))
    dialogues_import(project=project, paths=[path])
    lead, annotator = make_user("lead"), make_user("ann")
    membership_add(project=project, user=lead, role="lead")
    assignment = Assignment.objects.create(annotator=annotator, dialogue=project.dialogues.get(), status="submitted")
    Reordering.objects.create(assignment=assignment, submitted_order=[2, 1, 0, 3])
    client.force_login(lead)
    response = client.post(reverse("leaderboard_reorderings", args=[project.slug]), follow=True)
    assert response.status_code == 200 and b"Scored 1 reorderings." in response.content
    run = Run.objects.get(project=project)
    assert run.scores["reordering"]["tau"] == pytest.approx(0.0)  # 3 concordant, 3 discordant pairs
    assert b"reordering" in client.get(reverse("leaderboard", args=[project.slug])).content


def test_the_threshold_field_is_shown_for_breakdown_projects_only(make_project, make_user, client):
    lead = make_user("lead")
    client.force_login(lead)
    for preset, shown in (("dbdc", True), ("stc3", False), ("dch1", False)):
        project = make_project(preset)
        membership_add(project=project, user=lead, role="lead")
        content = client.get(reverse("leaderboard", args=[project.slug])).content.decode()
        assert ('name="threshold"' in content) is shown, preset
        # documented with the official script's meaning
        assert ("evaluation script" in content and "otherwise NB" in content) is shown, preset
        upload = SimpleUploadedFile("run.json", b"[]")
        data = {"name": "r", "files": upload, "alpha": "0.5", "threshold": "0.4"}
        response = client.post(reverse("leaderboard", args=[project.slug]), data)
        assert response.status_code == 302, response.content
        options = Run.objects.get(project=project, name="r").options
        assert ("threshold" in options) is shown and options.get("threshold", 0.4) == 0.4
