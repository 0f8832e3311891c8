"""The study report of the real collections in ../shared/data: STC-3 Chinese (19 annotators) and the DBDC3
English evaluation set (3-way and merged kappas), every figure with its interval, equal to statsmodels' on the
files' own counts; the methods paragraph states the annotators per unit the files hold (19 per dialogue and
utterance block, 30 per system turn), not the project's K, DBDC3's four systems from the folders of its logs
(never the users' ``speaker-id``), and STC-3's nugget agreement per speaker with the pooled figure beside."""

from __future__ import annotations

import json

import numpy as np
import pytest

from annotator.services.imports import dialogues_import
from evaluation.services.report.content import project_report
from evaluation.services.report.methods import figure_text, main_method
from evaluation.services.report.render import report_render
from evaluation.services.statistics import statistics_recompute
from scoring.gold import merge_counts
from tests.fixtures.collections import dbdc_turn_counts

pytestmark = [pytest.mark.django_db, pytest.mark.shared_data]


def _assert_interval(figure, value):
    assert figure.value == pytest.approx(value, abs=1e-9)
    assert figure.ci_method in ("bootstrap", "jackknife") and figure.ci is not None
    lo, hi = figure.ci
    assert lo <= figure.value <= hi


def test_stc3_chinese_report_names_its_19_annotators_agreement_with_intervals(stc3_dir, make_project):
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    project = make_project("stc3", slug="stc3-cn", name="STC-3 Chinese training set")
    path = stc3_dir / "train_data_cn.json"
    dialogues_import(project=project, paths=[path])
    stored = statistics_recompute(project_id=project.pk)
    report = project_report(project=project)
    assert report.statistics.status == "current" and report.labels["annotators"] == 19
    rows = {(r.criterion, r.kind, r.part): r for r in report.agreement}
    data = json.loads(path.read_text(encoding="utf-8"))
    for key in "ASE":
        counts = np.array([[sum(a["quality"][key] == v for a in d["annotations"]) for v in range(-2, 3)] for d in data])
        row = rows[(key, "criterion", "")]
        assert row.n_annotators == 19 and row.n_units == len(data)
        _assert_interval(row.fleiss, sm_fleiss(counts, method="fleiss"))
        _assert_interval(row.randolph, sm_fleiss(counts, method="randolph"))
        assert row.alpha_level == "ordinal" and row.alpha.ci is not None
        assert row.alpha.ci_method == "bootstrap"  # thousands of units: no jackknife
    text = report_render(report, "md")
    main = main_method(report)
    assert "19 annotators" in text and stored.fingerprint in text
    for key in "ASE":
        row = rows[(key, "criterion", "")]
        assert f"Fleiss' κ = {figure_text(row.fleiss, main)}" in text.replace("\\[", "[").replace("\\]", "]")
        assert "[" in figure_text(row.fleiss, main)  # with its interval
    assert "interval not computed" not in text
    methods = report.methods
    assert "Each dialogue was judged by 19 annotators (A, S, E)." in methods
    assert "Each utterance block was judged by 19 annotators (nugget)." in methods
    assert "The judgements of 3700 dialogues were imported with the source collection" in methods
    assert "was to be judged by" not in methods and "judged by 3 annotators" not in methods
    # nuggets: the customer's and the helpdesk's labels differ; each speaker's figure first, pooled beside
    nugget = [r for r in report.agreement if r.criterion == "nugget"]
    assert [(r.kind, r.part) for r in nugget] == [("speaker", "customer"), ("speaker", "helpdesk"), ("pooled", "")]
    assert nugget[2].fleiss.value > max(nugget[0].fleiss.value, nugget[1].fleiss.value)  # pooling inflates it
    assert methods.index("nugget, helpdesk units (") < methods.index("Pooled over the speakers")
    assert "nugget (15400 units" not in methods  # never stated as the criterion's own figure
    assert report.systems == []  # STC-3 files name no system


def test_dbdc3_english_report_gives_the_3_way_and_merged_kappas(dbdc_dir, make_project):
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    project = make_project("dbdc", slug="dbdc3-en", name="DBDC3 English evaluation set")
    dialogues_import(project=project, paths=[dbdc_dir / "eval"])
    statistics_recompute(project_id=project.pk)
    report = project_report(project=project)
    counts = dbdc_turn_counts(dbdc_dir / "eval")
    rows = {(r.kind, r.part): r for r in report.agreement if r.criterion == "breakdown"}
    three_way = rows[("criterion", "")]
    workers = {
        a["annotator-id"]
        for path in (dbdc_dir / "eval").rglob("*.log.json")
        for turn in json.loads(path.read_text(encoding="utf-8"))["turns"]
        for a in turn["annotations"]
    }
    assert three_way.n_units == len(counts) == 2000 and three_way.n_annotators == len(workers)  # 30 per turn
    _assert_interval(three_way.fleiss, sm_fleiss(counts, method="fleiss"))
    assert three_way.fleiss.value == pytest.approx(0.0654, abs=5e-4)  # DBDC3 EN: test_real_collections.py
    for name, groups, published in (("NB+PB,B", [[0, 1], [2]], 0.0769), ("NB,PB+B", [[0], [1, 2]], 0.0946)):
        merged = rows[("merge", name)]
        _assert_interval(merged.fleiss, sm_fleiss(merge_counts(counts, groups), method="fleiss"))
        assert merged.fleiss.value == pytest.approx(published, abs=5e-4)
    methods = report.methods
    main = main_method(report)
    for label, row in (("breakdown", three_way), ("breakdown, merged (NB+PB,B)", rows[("merge", "NB+PB,B")])):
        assert (
            f"{label} (2000 units, {len(workers)} annotators): Fleiss' κ = {figure_text(row.fleiss, main)}" in methods
        )
    tex = report_render(report, "tex")
    assert r"Fleiss' \ensuremath{\kappa} = 0.065 {[}" in tex
    assert "Each system turn was judged by 30 annotators (breakdown)." in methods
    assert "The dialogues come from 4 systems, named by the folder each log is in" in methods
    assert "CIC (50), IRIS (50), TKTK (50), YI (50)." in methods
    users = {
        json.loads(path.read_text(encoding="utf-8"))["speaker-id"] for path in (dbdc_dir / "eval").rglob("*.log.json")
    }
    assert report.systems == [("CIC", 50), ("IRIS", 50), ("TKTK", 50), ("YI", 50)]
    assert not {s for s, _n in report.systems} & users
