"""A study set up, run and exported end to end by a shell script of ``manage.py`` commands, as a lead scripts one:
a project from a scheme file with its lead, transcripts, guidelines and wording, members, settings of quality
control, the adaptive budget, a webhook and a crowd study, the existing ratings, a reopened item and a revoked
token, then the statistics, the report, the gold data, the scheme, the participants' CSV and the archive."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
import zipfile

import pytest
from rest_framework.authtoken.models import Token

from annotator.models import AdaptiveBudget, Assignment, AssignmentStatus, Membership, Project, Study, Webhook
from tests.live_servers import ROOT
from tests.schemes.test_fed_like import FED_LIKE, _jsonl, _ratings, _transcripts

pytestmark = pytest.mark.django_db(transaction=True)

SCRIPT = """\
#!/usr/bin/env bash
set -euo pipefail
m() { "$PYTHON" manage.py "$@"; }
cd "$ROOT"
m create_project pilot --scheme "$WORK/fed-like.yaml" --lead lead1
m import_dialogues pilot "$WORK/chats.jsonl"
m lead_project settings pilot --guidelines-file "$WORK/guidelines.txt" --annotators-per-dialogue 2 \\
  --annotators-are crowd
m lead_project wording pilot ja --question "interesting=応答は面白いですか？"
m lead_members add pilot ann1
m lead_members add pilot ann2 --password a-long-passphrase-9
m lead_quality settings pilot --too-fast-seconds 5
m assign pilot
m lead_adaptive settings pilot --mode adaptive --min-k 2 --max-k 4
m lead_pairwise settings pilot || echo "refused: not a comparison project"
m lead_webhooks add pilot https://hooks.example.org/pilot --event item.submitted
m lead_webhooks disable pilot "$(m lead_webhooks list pilot | cut -f1)"
m lead_studies create pilot "Pilot study"
study=$(m lead_studies list pilot | cut -f1)
m lead_studies settings pilot "$study" --items-per-participant 3 --time-limit-minutes 30
m lead_studies open pilot "$study"
m import_annotations pilot "$WORK/ratings.jsonl"
m lead_items reopen pilot c0 "$RATER" --reason "Please check the last turn."
m lead_tokens revoke pilot ann1
m lead_judges list pilot
m stats pilot --json > "$WORK/stats.json"
m report pilot --format md --output "$WORK/report.md"
m export_gold pilot --format distributions-json --output "$WORK/gold.json"
m export_scheme pilot --output "$WORK/scheme.yaml"
m lead_studies participants pilot "$study" --output "$WORK/participants.csv"
m export_project pilot --output "$WORK/pilot.zip"
echo done
"""


def test_a_study_end_to_end_by_a_script(tmp_path, django_user_model):
    # given the lead's account, their files and a script of manage.py commands
    django_user_model.objects.create_user(username="lead1", password="a-long-passphrase-9")
    ann1 = django_user_model.objects.create_user(username="ann1", password="a-long-passphrase-9")
    Token.objects.create(user=ann1)
    (tmp_path / "fed-like.yaml").write_text(FED_LIKE, encoding="utf-8")
    transcripts = _transcripts(12)
    _jsonl(tmp_path / "chats.jsonl", transcripts)
    ratings = _ratings(transcripts)
    _jsonl(tmp_path / "ratings.jsonl", ratings)
    (tmp_path / "guidelines.txt").write_text("Read the whole conversation first.", encoding="utf-8")
    script = tmp_path / "study.sh"
    script.write_text(SCRIPT, encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    from tests.conftest import database_url

    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "PYTHON": sys.executable,
        "ROOT": str(ROOT),
        "WORK": str(tmp_path),
        "DATABASE_URL": database_url(),
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "RATER": "pilot.imported." + next(r["annotator"] for r in ratings if r["item"] == "c0"),
    }

    # when the script runs
    done = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True, timeout=900)

    # then every step succeeded
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("done")
    assert "refused: not a comparison project" in done.stdout
    project = Project.objects.get(slug="pilot")
    assert Membership.objects.get(project=project, user__username="lead1").role == "lead"
    assert project.guidelines == "Read the whole conversation first." and project.annotators_per_dialogue == 2
    assert project.annotators_are == "crowd"
    assert project.wordings["ja"]["questions"]["interesting"] == "応答は面白いですか？"
    assert AdaptiveBudget.objects.get(project=project).adaptive
    assert not Webhook.objects.get(project=project).active
    study = Study.objects.get(project=project)
    assert study.is_open and study.items_per_participant == 3 and study.time_limit_minutes == 30
    assert Assignment.objects.filter(dialogue__project=project, imported=False).exists()  # the assignment ran
    reopened = Assignment.objects.filter(dialogue__project=project, imported=True, status=AssignmentStatus.IN_PROGRESS)
    assert reopened.count() == 1 and reopened.get().reopen_reason == "Please check the last turn."
    assert reopened.get().dialogue.external_id == "c0"
    assert not Token.objects.filter(user__username="ann1").exists()

    # and the exports hold the study: statistics, report, gold, the scheme, the participants and the archive
    stats = json.loads((tmp_path / "stats.json").read_text(encoding="utf-8"))
    assert set(stats["criteria"]) == {"interesting", "understandable", "coherent", "consistent"}
    assert "consistent" in (tmp_path / "report.md").read_text(encoding="utf-8")
    gold = json.loads((tmp_path / "gold.json").read_text(encoding="utf-8"))
    assert all("N/A" not in item["counts"] for item in gold["criteria"]["consistent"]["items"])
    scheme = (tmp_path / "scheme.yaml").read_text(encoding="utf-8")
    assert "not_applicable" in scheme and "応答は面白いですか？" in scheme
    assert (tmp_path / "participants.csv").read_text(encoding="utf-8").splitlines()[0].startswith("external_id,")
    with zipfile.ZipFile(tmp_path / "pilot.zip") as archive:
        assert json.loads(archive.read("archive.json"))["project"]["scheme"]["key"] == "fed-like"
