"""The lead's commands (``manage.py lead_*``): each calls the page's service, and its effect is checked in the
database; refusals are ``CommandError`` with the service's message. One run is a real ``manage.py`` subprocess,
and ``manage.py help`` lists them under their group."""

from __future__ import annotations

import subprocess
import sys
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import CommandError, call_command

from annotator.models import (
    Adjudication,
    AnnotatorExclusion,
    ImportBatch,
    Invitation,
    Membership,
    QualityItem,
    QualitySettings,
    Study,
)
from annotator.services.quality_items import Expected, quality_item_set
from evaluation.models import Run
from tests.factories import project_with_work, user_make
from tests.live_servers import ROOT

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_members_add_role_list_remove_invite():
    work = project_with_work("stc3", slug="cli-members", annotators=1)
    other = user_make("colleague")
    run("lead_members", "add", "cli-members", "colleague", "--role", "annotator")
    assert Membership.objects.get(project=work.project, user=other).role == "annotator"
    run("lead_members", "add", "cli-members", "brand-new", "--password", "a-long-passphrase-9")
    assert get_user_model().objects.get(username="brand-new").check_password("a-long-passphrase-9")
    run("lead_members", "role", "cli-members", "colleague", "lead")
    assert Membership.objects.get(project=work.project, user=other).role == "lead"
    run("lead_members", "remove", "cli-members", "colleague")
    assert not Membership.objects.get(project=work.project, user=other).active
    listing = run("lead_members", "list", "cli-members")
    assert "colleague\tlead\t(removed)" in listing and "brand-new\tannotator" in listing
    run("lead_members", "invite", "cli-members", "someone@example.org", "--site-url", "https://judge.example.org")
    assert Invitation.objects.get(project=work.project).email == "someone@example.org"
    assert "https://judge.example.org/invitations/" in mail.outbox[-1].body
    with pytest.raises(CommandError, match="not a member"):
        run("lead_members", "role", "cli-members", user_make("stranger").username, "lead")
    with pytest.raises(CommandError, match="no project"):
        run("lead_members", "list", "missing")


def test_exclusions_adjudication_imports():
    work = project_with_work("stc3", slug="cli-quality", annotators=2)
    ann = work.annotators[0].username
    run("lead_exclusions", "add", "cli-quality", ann, "--reason", "spam")
    assert AnnotatorExclusion.objects.get(project=work.project).reason == "spam"
    assert f"{ann}\tspam" in run("lead_exclusions", "list", "cli-quality")
    run("lead_exclusions", "remove", "cli-quality", ann)
    assert not AnnotatorExclusion.objects.exists()
    with pytest.raises(CommandError, match="reason"):
        run("lead_exclusions", "add", "cli-quality", ann, "--reason", " ")

    dialogue = work.project.dialogues.order_by("position").first()
    criterion = work.project.criteria.get(key="A")
    value = criterion.values[0]["value"]
    run("lead_adjudication", "set", "cli-quality", dialogue.external_id, "A", "0", value, "--note", "settled")
    stored = Adjudication.objects.get(dialogue=dialogue)
    assert (stored.value, stored.note, stored.unit) == (value, "settled", 0)
    with pytest.raises(CommandError, match="unknown criterion"):
        run("lead_adjudication", "set", "cli-quality", dialogue.external_id, "nope", "0", value)
    run("lead_adjudication", "remove", "cli-quality", dialogue.external_id, "A", "0")
    assert not Adjudication.objects.exists()

    batch = ImportBatch.objects.get(project=work.project)
    assert f"{batch.pk}\tdone" in run("lead_imports", "list", "cli-quality")
    assert "removed import" in run("lead_imports", "remove", "cli-quality", str(batch.pk))
    assert not work.project.dialogues.exists()


def test_quality_settings_items_and_studies_and_runs():
    work = project_with_work("stc3", slug="cli-more", annotators=2)
    out = run("lead_quality", "settings", "cli-more", "--pass-mark", "0.9", "--too-fast-seconds", "4")
    stored = QualitySettings.objects.get(project=work.project)
    assert (stored.pass_mark, stored.too_fast_seconds) == (0.9, 4) and "pass_mark\t0.9" in out
    with pytest.raises(CommandError):
        run("lead_quality", "settings", "cli-more", "--pass-mark", "7")
    dialogue = work.project.dialogues.order_by("position").first()
    quality_item_set(project=work.project, dialogue_id=dialogue.pk, kind="control", answers=[Expected("A", 0, "0")])
    run("lead_quality", "remove-item", "cli-more", dialogue.external_id)
    assert not QualityItem.objects.exists()

    assert "), closed: /study/" in run("lead_studies", "create", "cli-more", "Spring study")
    study = Study.objects.get(project=work.project)
    assert not study.is_open  # closed until opened, as the docs say
    run("lead_studies", "open", "cli-more", str(study.pk))
    assert Study.objects.get(pk=study.pk).is_open
    run("lead_studies", "close", "cli-more", str(study.pk))
    assert not Study.objects.get(pk=study.pk).is_open
    assert f"{study.pk}\tclosed\tSpring study" in run("lead_studies", "list", "cli-more")

    from evaluation.runs.services.upload import run_upload

    scored = run_upload(project=work.project, name="baseline", files=[("run.json", b"[]")])
    assert "baseline" in run("lead_runs", "list", "cli-more")
    run("lead_runs", "delete", "cli-more", str(scored.pk))
    assert not Run.objects.exists()
    with pytest.raises(CommandError, match="no run"):
        run("lead_runs", "delete", "cli-more", str(scored.pk))


def test_a_lead_command_as_a_subprocess(manage):
    work = project_with_work("stc3", slug="cli-process", annotators=1)
    done = manage("lead_members", "add", "cli-process", "newbie", "--password", "a-long-passphrase-9", check=True)
    assert "newbie is now annotator of cli-process" in done.stdout
    assert Membership.objects.get(project=work.project, user__username="newbie").active
    refused = manage("lead_members", "add", "cli-process", "x", "--password", "123")
    assert refused.returncode == 1 and "password" in refused.stderr.lower()


def test_help_lists_every_command_of_the_platform_in_its_group():
    from django.core.management import get_commands

    from config.cli_help import GROUPS

    # every command of the platform's apps is in one group, once
    ours = sorted(n for n, app in get_commands().items() if app in ("annotator", "evaluation"))
    grouped = [n for names in GROUPS.values() for n in names]
    assert sorted(grouped) == ours
    done = subprocess.run([sys.executable, "manage.py", "help"], cwd=ROOT, capture_output=True, text=True, check=True)
    text = done.stdout
    starts = [text.index(f"[{title}]") for title in GROUPS] + [text.index("[django]")]
    for (title, names), start, end in zip(GROUPS.items(), starts, starts[1:]):
        for name in names:
            assert start < text.index(f"    {name} ") < end, (title, name)


def test_changes_made_by_commands_ask_for_the_statistics(django_capture_on_commit_callbacks):
    """Exclusions, final labels and quality items change what the statistics count: the service asks for
    them on commit whichever door the change came through, so a command leaves no dashboard saying
    "Up to date" over figures that no longer hold."""
    from evaluation.models import StatisticsJob

    work = project_with_work("stc3", slug="cli-fresh", annotators=2)
    dialogue = work.project.dialogues.order_by("position").first()
    value = work.project.criteria.get(key="A").values[0]["value"]
    commands = [
        ("lead_exclusions", "add", "cli-fresh", work.annotators[0].username, "--reason", "spam"),
        ("lead_exclusions", "remove", "cli-fresh", work.annotators[0].username),
        ("lead_adjudication", "set", "cli-fresh", dialogue.external_id, "A", "0", value),
        ("lead_adjudication", "remove", "cli-fresh", dialogue.external_id, "A", "0"),
        ("lead_quality", "settings", "cli-fresh", "--source", "own"),
    ]
    for command in commands:
        StatisticsJob.objects.filter(project=work.project).delete()
        with django_capture_on_commit_callbacks(execute=True):
            run(*command)
        job = StatisticsJob.objects.filter(project=work.project).first()
        assert job is not None and job.requested_at is not None, command
