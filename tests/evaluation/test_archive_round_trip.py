"""The archive is the study of record: a project that uses every feature, exported, restored into an empty
database and compared table by table (row by row, ids mapped), with its statistics, gold and run scores.

For every preset with the demo data, and with the real collections where a preset has one (STC-3 Chinese,
DBDC3 English).
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from annotator.exporters import export_gold
from annotator.models import (
    AnnotatorExclusion,
    Assignment,
    Judge,
    Membership,
    Project,
    Role,
    Webhook,
)
from annotator.presets import PRESETS
from annotator.presets.document import scheme_document
from annotator.services.adjudication import adjudication_record
from annotator.services.exclusions import annotator_exclude
from annotator.services.imports import dialogues_import
from annotator.services.projects import membership_add, project_create
from evaluation.archive.coverage import ARCHIVED
from evaluation.archive.export import project_archive, project_archive_data
from evaluation.archive.restore import project_archive_import
from evaluation.models import ModelReliability, Run
from evaluation.runs.selectors.freshness import run_stale_reason
from evaluation.selectors.fingerprint import judgements_fingerprint
from evaluation.services.statistics import statistics_recompute
from tests.evaluation.archive_tables import project_tables
from tests.factories import user_make
from tests.figures import figures_differences
from tests.fixtures.full_project import full_project

pytestmark = pytest.mark.django_db
# the demo projects, version 1 archives and DBDC3 on both databases (DBDC3's posts keep source metadata whose
# keys are not in sorted order, which SQLite keeps as written); STC-3 CN on PostgreSQL only (the same code, at a
# size the SQLite lane need not spend minutes on)
BOTH = pytest.mark.both_databases(
    reason="a restore writes every JSON column (jsonb on PostgreSQL, text on SQLite) and bulk-inserts the "
    "judgements; the statistics are compared figure by figure after it"
)

GOLD_FORMATS = {"stc3": ["stc3"], "dbdc": ["dbdc"], "pairwise": ["pairwise", "preference-pairs"]}


def _removed(project) -> dict:
    """Each assignment's removed answers by dialogue, annotator, criterion key and unit."""
    keys = dict(project.criteria.values_list("pk", "key"))
    out = {}
    for external_id, user, removed in Assignment.objects.filter(dialogue__project=project).values_list(
        "dialogue__external_id", "annotator__username", "removed"
    ):
        for pair, version in (removed or {}).items():
            criterion, unit = pair.split(":")
            participant = user.startswith("study")  # a participant's account is new after a restore
            out[(external_id, "participant" if participant else user, keys[int(criterion)], unit)] = version
    return out


def _ids_named(payload, external_of: dict[int, str]):
    """The statistics payload with each ``dialogue_id`` (a database id, for the pages' links) as the dialogue's
    external id."""
    if isinstance(payload, dict):
        return {k: external_of[v] if k == "dialogue_id" else _ids_named(v, external_of) for k, v in payload.items()}
    if isinstance(payload, list):
        return [_ids_named(v, external_of) for v in payload]
    return payload


def state(project) -> dict:
    """Everything the archive must keep, comparable across databases. (The statistics leave out the latent-truth
    models' estimate, which a worker adds in the background when it is due, whenever that is.)"""
    ModelReliability.objects.filter(project=project).delete()
    fingerprint = judgements_fingerprint(project)
    run_names = dict(Run.objects.filter(project=project).values_list("pk", "name"))
    return {
        "tables": project_tables(project),
        "removed": _removed(project),
        "judge_sources": {
            j.name: {k: run_names.get(v) if k == "run" else v for k, v in j.source.items()}
            for j in Judge.objects.filter(project=project)
        },
        "runs_current": {r.name: run_stale_reason(r, fingerprint) is None for r in Run.objects.filter(project=project)},
        "statistics": _ids_named(
            statistics_recompute(project_id=project.pk, force=True).payload,
            dict(project.dialogues.values_list("pk", "external_id")),
        ),
        "gold": {
            fmt: export_gold(project=project, fmt=fmt)
            for fmt in ["distributions-json", *GOLD_FORMATS.get(project.preset, [])]
        },
    }


def empty_database() -> None:
    Project.objects.all().delete()
    get_user_model().objects.all().delete()
    assert not Assignment.objects.exists() and not Run.objects.exists()


def assert_restored_equal(before: dict, project) -> None:
    after = state(project)
    for label in ARCHIVED:  # one table at a time, for a readable difference
        assert after["tables"].rows[label] == before["tables"].rows[label], before["tables"].difference(
            label, after["tables"]
        )
    for part in ("removed", "judge_sources", "runs_current", "gold"):
        assert after[part] == before[part], part
    differences = figures_differences(before["statistics"], after["statistics"], "statistics")
    assert not differences, differences[:20]


# the tables a preset's project cannot have rows in
NOT_IN = {
    "annotator.Candidate": lambda p: PRESETS[p].comparison is None,
    "annotator.PairwiseSettings": lambda p: PRESETS[p].comparison is None,
    "annotator.Reordering": lambda p: not PRESETS[p].reordering,
    "annotator.GoldCount": lambda p: p != "nlpcc",
    "scoring.Run": lambda p: PRESETS[p].run_scheme is None,
    "annotator.Study": lambda p: PRESETS[p].reordering,
    "annotator.Participant": lambda p: PRESETS[p].reordering,
    "annotator.ReleasedItem": lambda p: PRESETS[p].reordering,
}


@BOTH
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_project_using_every_feature_is_restored_whole_into_an_empty_database(preset, tmp_path):
    project, _lead = full_project(preset, tmp_path)
    raw = project_archive(project)  # before the statistics are recomputed: that re-scores the stale run
    before = state(project)
    for label, rows in before["tables"].rows.items():  # the project holds a row of every table its preset can have
        assert bool(rows) != NOT_IN.get(label, lambda p: False)(preset), label
    assert before["removed"]
    assert any(before["runs_current"].values()) or PRESETS[preset].run_scheme is None  # (a preset without runs)
    hooks = dict(Webhook.objects.filter(project=project).values_list("url", "secret"))
    assert not any(secret.encode() in raw for secret in hooks.values())  # no webhook secret leaves

    empty_database()
    restored = project_archive_import(raw=raw, display="backup.zip")

    assert_restored_equal(before, restored.project)
    for url, secret in Webhook.objects.filter(project=restored.project).values_list("url", "secret"):
        assert secret.startswith("whsec_") and secret != hooks[url]  # a new secret, and switched off
    assert not Webhook.objects.filter(project=restored.project, active=True).exists()
    assert any("webhook" in note for note in restored.notes)
    if preset == "stc3":  # the run current against the archived gold stays current; the stale one is scored again
        assert before["runs_current"] == {"earlier": False, "random": True, "waiting": True}


def real_project(preset: str, path, slug: str):
    """A real collection with a lead's decisions over it: an excluded annotator, an adjudicated unit."""
    project = project_create(slug=slug, preset=preset)
    dialogues_import(project=project, paths=[path])
    lead = user_make(f"{slug}-lead")
    membership_add(project=project, user=lead, role=Role.LEAD)
    first = Membership.objects.filter(project=project, imported=True).order_by("rank").first()
    annotator_exclude(project=project, username=first.user.username, reason="Off-task answers.", excluded_by=lead)
    dialogue = project.dialogues.order_by("position").first()
    criterion = project.criteria.order_by("position").first()
    judged = (
        Assignment.objects.filter(dialogue=dialogue).first().judgements.filter(criterion=criterion).order_by("unit")[0]
    )
    adjudication_record(project=project, dialogue_id=dialogue.pk, criterion=criterion.key, unit=judged.unit,
                        value=judged.value, note="Checked.", adjudicator=lead)  # fmt: skip
    return project


@pytest.mark.shared_data
@pytest.mark.parametrize("collection", ["stc3-cn", pytest.param("dbdc3-en", marks=BOTH)])
def test_a_real_collection_with_an_excluded_annotator_keeps_its_figures(collection, request):
    if collection == "stc3-cn":
        project = real_project("stc3", request.getfixturevalue("stc3_dir") / "train_data_cn.json", "stc3-cn")
    else:
        project = real_project("dbdc", request.getfixturevalue("dbdc_dir") / "eval", "dbdc3-en")
    raw = project_archive(project)
    before = state(project)
    assert AnnotatorExclusion.objects.filter(project=project).count() == 1

    empty_database()
    restored = project_archive_import(raw=raw, display=f"{collection}.zip")

    assert_restored_equal(before, restored.project)
    if collection == "dbdc3-en":  # the figures: 560 annotators once one is excluded, not 561
        breakdown = before["statistics"]["criteria"]["breakdown"]
        print(json.dumps({k: breakdown[k] for k in list(breakdown)[:3]}, default=str)[:500])


V1 = Path(__file__).resolve().parents[1] / "fixtures" / "archives_v1"


@BOTH
@pytest.mark.parametrize("preset", ["coherence", "dbdc", "pairwise"])
def test_an_archive_of_version_1_is_still_restored_whole(preset):
    raw = (V1 / f"archive-v1-{preset}.zip").read_bytes()
    old = json.loads(zipfile.ZipFile(io.BytesIO(raw)).read("archive.json"))
    assert old["version"] == 1
    restored = project_archive_import(raw=raw, display="v1.zip").project
    new = project_archive_data(restored)
    # what version 1 held comes back as it was; the parts it did not have are empty
    assert new["version"] == 2
    assert [{k: c[k] for k in o} for c, o in zip(new["criteria"], old["criteria"], strict=True)] == old["criteria"]
    scheme = {c.key: c for c in PRESETS[preset].criteria}  # what version 1 did not have: the preset's
    assert all(c["applies_to"] == scheme[c["key"]].applies_to and c["not_applicable"] is None for c in new["criteria"])
    assert new["gold_counts"] == old["gold_counts"]
    assert new["dialogues"] == [d | {"batch": None} for d in old["dialogues"]]
    assert {k: new["project"][k] for k in old["project"]} == old["project"]
    assert new["project"]["scheme"] == scheme_document(PRESETS[preset])  # the preset's shipped scheme
    for name in set(new["project"]) - set(old["project"]) - {"scheme"}:  # the fields version 1 did not have
        assert new["project"][name] == Project._meta.get_field(name).get_default(), name
    assert sorted(json.dumps(m, sort_keys=True) for m in new["members"]) == sorted(
        json.dumps(m, sort_keys=True) for m in old["members"]
    )
    for was, now in zip(old["assignments"], new["assignments"]):
        assert {k: v for k, v in now.items() if k not in ("removed", "reopened_at", "reordering", "shown_first")} == {
            k: v for k, v in was.items() if k not in ("reordering", "shown_first")
        }
        assert now["shown_first"] == was.get("shown_first", "")
        if was["reordering"]:
            assert now["reordering"] == was["reordering"] | {"revision": 0}
    assert [row[:6] + row[7:] for row in new["judgements"]] == [row[:6] + [row[6] if len(row) > 6 else ""]
                                                                for row in old["judgements"]]  # fmt: skip
    assert all(not new[part] for part in ("studies", "judges", "webhooks", "exclusions", "import_batches"))
