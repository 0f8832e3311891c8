"""The real collections in ../shared/data import and export back identically."""

import io
import json
import zipfile

import pytest

from annotator.exporters import export_gold
from annotator.models import Judgement
from annotator.services.imports import dialogues_import

pytestmark = [pytest.mark.django_db, pytest.mark.shared_data]


def test_stc3_english_training_set_round_trip(stc3_dir, make_project):
    project = make_project("stc3")
    source = json.loads((stc3_dir / "train_data_en.json").read_text(encoding="utf-8"))
    report = dialogues_import(project=project, paths=[stc3_dir / "train_data_en.json"])
    assert report.dialogues == len(source) == 1672 and report.annotators_created == 19
    assert json.loads(export_gold(project=project, fmt="stc3")) == source


def test_dbdc3_english_eval_round_trip(dbdc_dir, make_project):
    project = make_project("dbdc")
    report = dialogues_import(project=project, paths=[dbdc_dir / "eval"])
    files = sorted((dbdc_dir / "eval").rglob("*.log.json"))
    assert report.dialogues == len(files) == 200
    exported = zipfile.ZipFile(io.BytesIO(export_gold(project=project, fmt="dbdc")))
    assert len(exported.namelist()) == len(files)
    # members are named by dialogue id, flat (the source's folders are not kept: test_zip_slip.py)
    for path in files:
        record = json.loads(path.read_text(encoding="utf-8"))
        assert json.loads(exported.read(f"{record['dialogue-id']}.log.json")) == record, path.name
    assert Judgement.objects.filter(assignment__dialogue__project=project).count() == report.judgements == 60000


def test_dbdc3_japanese_eval_round_trip_and_kappa_per_grouping(dbdc_ja_dir, make_project):
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    from evaluation.services.statistics import project_statistics
    from scoring.gold import merge_counts
    from tests.fixtures.collections import dbdc_turn_counts

    project = make_project("dbdc")
    report = dialogues_import(project=project, paths=[dbdc_ja_dir / "eval"])
    files = sorted((dbdc_ja_dir / "eval").rglob("*.log.json"))
    assert report.dialogues == len(files) == 150
    assert {d.language for d in project.dialogues.all()} == {"ja"}
    exported = zipfile.ZipFile(io.BytesIO(export_gold(project=project, fmt="dbdc")))
    assert len(exported.namelist()) == len(files)
    for path in files:
        record = json.loads(path.read_text(encoding="utf-8"))
        # one flat member per dialogue, named by its id (the export never recreates source folders)
        assert json.loads(exported.read(f"{record['dialogue-id']}.log.json")) == record, path.name
    # the Japanese logs annotate the opening system utterance too: 11 system turns x 30 annotators per dialogue
    assert Judgement.objects.filter(assignment__dialogue__project=project).count() == report.judgements == 49500
    # Fleiss' kappa of the imported project per label grouping equals statsmodels' on the files' counts
    counts = dbdc_turn_counts(dbdc_ja_dir / "eval")
    breakdown = project_statistics(project)["criteria"]["breakdown"]
    assert breakdown["n_units"] == len(counts) == 1650
    assert breakdown["fleiss_kappa"] == pytest.approx(sm_fleiss(counts, method="fleiss"), abs=1e-9)
    for name, groups in {"NB+PB,B": [[0, 1], [2]], "NB,PB+B": [[0], [1, 2]]}.items():
        expected = sm_fleiss(merge_counts(counts, groups), method="fleiss")
        assert breakdown["merges"][name]["fleiss_kappa"] == pytest.approx(expected, abs=1e-9), name
