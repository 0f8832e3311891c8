"""The command-line surface and the demo."""

import json

import pytest
from django.contrib.auth import authenticate
from django.http import HttpRequest

from annotator.models import Dialogue, Membership, Project
from annotator.services.demo import DEMO_ANNOTATORS, DEMO_LEAD, demo_load

pytestmark = pytest.mark.django_db


def test_demo_creates_a_project_per_preset_and_is_idempotent():
    demo_load()
    counts = {p.slug: p.dialogues.count() for p in Project.objects.all()}
    assert set(Project.objects.values_list("preset", flat=True)) == {
        "dch1",
        "stc3",
        "coherence",
        "dbdc",
        "nlpcc",
        "pairwise",
    }
    assert all(n >= 2 for n in counts.values())
    demo_load()
    assert {p.slug: p.dialogues.count() for p in Project.objects.all()} == counts
    # the README's credentials work
    assert authenticate(HttpRequest(), username=DEMO_LEAD[0], password=DEMO_LEAD[1]) is not None
    for username, password in DEMO_ANNOTATORS:
        user = authenticate(HttpRequest(), username=username, password=password)  # axes needs a request
        assert user is not None and Membership.objects.filter(user=user, role="annotator").count() == 6


def test_cli_create_import_export(manage, tmp_path):
    from tests.fixtures.collections import stc3_dialogues, write_json

    source = write_json(tmp_path / "in.json", stc3_dialogues())
    out = tmp_path / "out.json"
    assert (
        "created project cli"
        in manage(
            "create_project", "cli", "--preset", "stc3", "--name", "CLI", "--annotators-per-dialogue", "5", check=True
        ).stdout
    )
    assert (
        "imported 2 dialogues" in manage("import_dialogues", "cli", str(source), "--format", "stc3", check=True).stdout
    )
    manage("export_gold", "cli", "--format", "stc3", "--output", str(out), check=True)
    assert json.loads(out.read_text()) == stc3_dialogues()
    assert Project.objects.get(slug="cli").annotators_per_dialogue == 5
    assert Dialogue.objects.filter(project__slug="cli").count() == 2
    bad = manage("create_project", "cli", "--preset", "stc3")
    assert bad.returncode != 0 and "already exists" in bad.stderr
