"""stats and score_run on projects in the database."""

import json

import numpy as np
import pytest
from django.core.management import call_command

from annotator.services.imports import dialogues_import
from evaluation.models import Run
from evaluation.runs.services.scoring import run_score
from evaluation.selectors.fingerprint import judgements_fingerprint
from evaluation.services.statistics import project_statistics
from scoring.errors import InputError
from scoring.metric_names import TABLE1
from tests.fixtures.collections import dbdc_dialogue, stc3_dialogues, write_json
from tests.reference_scoring import gold_of, random_stc3_run, score_stc3

pytestmark = pytest.mark.django_db

AGREEMENT_KEYS = {
    "n_units",
    "n_annotators",
    "fleiss_kappa",
    "randolph_kappa",
    "krippendorff_alpha",
    "agree_2plus",
    "agree_all",
}


@pytest.fixture
def stc3_project(make_project, tmp_path):
    project = make_project("stc3")
    dialogues_import(project=project, paths=[write_json(tmp_path / "s.json", stc3_dialogues())])
    return project


def test_stats_json_shape(stc3_project, capsys):
    call_command("stats", stc3_project.slug, "--json")
    payload = json.loads(capsys.readouterr().out)
    assert payload["project"] == stc3_project.slug
    a = payload["criteria"]["A"]
    assert set(a) >= AGREEMENT_KEYS and set(a["krippendorff_alpha"]) == {"nominal", "ordinal", "interval"}
    assert "by_speaker" not in a and "merges" not in a
    nugget = payload["criteria"]["nugget"]
    assert set(nugget["krippendorff_alpha"]) == {"nominal"}  # nominal criterion: other levels left out
    assert set(nugget["by_speaker"]) == {"customer", "helpdesk"}
    assert nugget["by_speaker"]["customer"]["n_units"] == 3 and nugget["by_speaker"]["helpdesk"]["n_units"] == 2
    # A: d1 has (1, 2), d2 has (-2, -1): no unit with two equal values
    assert a["agree_2plus"] == 0.0 and a["n_units"] == 2 and a["n_annotators"] == 2


def test_stats_of_a_breakdown_project_has_label_merges(make_project, tmp_path):
    project = make_project("dbdc")
    dialogues_import(
        project=project,
        paths=[
            write_json(tmp_path / "a.log.json", dbdc_dialogue("a")),
            write_json(tmp_path / "b.log.json", dbdc_dialogue("b", ("X", "X", "T"))),
        ],
    )
    payload = project_statistics(project)
    merges = payload["criteria"]["breakdown"]["merges"]
    assert set(merges) == {"NB+PB,B", "NB,PB+B"}
    # units a:2 (O T X), a:4 (O O O), b:2 (X X T), b:4 (O O O): under NB,PB+B only a:2 disagrees
    assert merges["NB,PB+B"]["agree_all"] == 0.75
    assert payload["criteria"]["breakdown"]["agree_all"] == 0.5


def test_score_run_matches_the_straightforward_scorer(stc3_project, tmp_path):
    run = random_stc3_run(stc3_dialogues(), seed=4)
    saved = run_score(project=stc3_project, path=write_json(tmp_path / "run.json", run), name="r1")
    expected = score_stc3(run, gold_of(stc3_dialogues()))
    for key in "ASE":
        for metric in ("rsnod", "nmd"):
            assert saved.scores["quality"][key][metric] == pytest.approx(expected["quality"][key][metric], abs=1e-12)
        assert saved.scores["quality"][key]["rsnod_neglog2"] == pytest.approx(
            -np.log2(expected["quality"][key]["rsnod"])
        )
    for metric in ("rnss", "jsd"):
        assert saved.scores["nugget"][metric] == pytest.approx(expected["nugget"][metric], abs=1e-12)
    assert set(saved.per_dialogue) == {"d1", "d2"}
    assert Run.objects.get(project=stc3_project, name="r1").scores == saved.scores


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda r: r[0]["nugget"][0].update({"CNUG9": 0.1}), r"dialogue d1: field nugget\[0\]\.CNUG9: unknown label"),
        (
            lambda r: r[0]["quality"]["A"].update({"2": -0.5}),
            r"dialogue d1: field quality\.A\.2: probability -0\.5 is negative",
        ),
        (
            lambda r: r[1]["quality"]["S"].update({"0": "high"}),
            r"dialogue d2: field quality\.S\.0: probability 'high' is not",
        ),
        (lambda r: r[1]["nugget"].pop(), r"dialogue d2: field nugget: 1 turn distributions for 2 turns"),
        (lambda r: r[0].update({"id": "zzz"}), r"dialogue zzz: field id: is not in the gold data"),
        (lambda r: r[0]["nugget"][1].update({"CNUG": 0.2}), r"dialogue d1: field nugget\[1\]\.CNUG: unknown label"),
        (  # the run: a distribution summing to 1.7, which the STC-3 script would have rescaled and scored
            lambda r: r[1]["quality"].update({"E": {"2": 0.5, "1": 0.5, "0": 0.7}}),
            r"bad\.json: dialogue d2: field quality\.E: probabilities sum to 1\.7, not 1 \(allowed difference 1e-06\)",
        ),
        (
            lambda r: r[0]["nugget"][0].update({"CNaN": 0.0, "CNUG0": 0.0, "CNUG": 0.0, "CNUG*": 0.5}),
            r"dialogue d1: field nugget\[0\]: probabilities sum to 0\.5, not 1",
        ),
    ],
)
def test_bad_runs_are_rejected_with_dialogue_and_field(stc3_project, tmp_path, mutate, message):
    run = random_stc3_run(stc3_dialogues())
    mutate(run)
    with pytest.raises(InputError, match=message):
        run_score(project=stc3_project, path=write_json(tmp_path / "bad.json", run))
    assert not Run.objects.exists()


def test_the_threshold_option_is_for_breakdown_projects_only(stc3_project, tmp_path):
    from django.core.management.base import CommandError

    path = write_json(tmp_path / "run.json", random_stc3_run(stc3_dialogues()))
    with pytest.raises(CommandError, match="--threshold applies to breakdown projects only"):
        call_command("score_run", stc3_project.slug, str(path), "--threshold", "0.5")
    assert not Run.objects.exists()
    call_command("score_run", stc3_project.slug, str(path))
    assert Run.objects.get().options == {"alpha": 0.5, "strict": False}


def test_strict_mode_requires_every_gold_dialogue(stc3_project, tmp_path):
    run = random_stc3_run(stc3_dialogues())[:1]
    path = write_json(tmp_path / "part.json", run)
    assert run_score(project=stc3_project, path=path).scores["n_dialogues"] == 1
    with pytest.raises(InputError, match="dialogue d2: field id: 1 gold dialogues are missing"):
        run_score(project=stc3_project, path=path, name="strict", strict=True)


def test_dbdc_run_distribution_metrics(make_project, tmp_path):
    project = make_project("dbdc")
    dialogues_import(project=project, paths=[write_json(tmp_path / "a.log.json", dbdc_dialogue("a"))])
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    labels = {
        "dialogue-id": "a",
        "turns": [
            {"turn-index": 2, "labels": [{"breakdown": "O", "prob-O": 1.0, "prob-T": 0.0, "prob-X": 0.0}]},
            {"turn-index": 4, "labels": [{"breakdown": "O", "prob-O": 1.0, "prob-T": 0.0, "prob-X": 0.0}]},
        ],
    }
    write_json(run_dir / "a.labels.json", labels)
    run = run_score(project=project, path=run_dir, name="all-O")
    b = run.scores["breakdown"]
    # turn 4 is perfect (all O); turn 2 has gold (1/3, 1/3, 1/3) against (1, 0, 0)
    mse_turn2 = ((2 / 3) ** 2 + 2 * (1 / 3) ** 2) / 3
    assert b["MSE(NB,PB,B)"] == pytest.approx(mse_turn2 / 2)
    # weights: 1/3 for turn 2, 1 for turn 4
    assert b["MSE+w(NB,PB,B)"] == pytest.approx(mse_turn2 * (1 / 3) / (4 / 3))
    assert b["MSE(NB+PB,B)"] == pytest.approx(((1 - 2 / 3) ** 2 + (1 / 3) ** 2) / 2 / 2)
    # all 22 metrics of Table 1 plus precision and recall, with the paper's names
    assert list(b) == TABLE1 + ["Precision(B)", "Recall(B)", "Precision(PB+B)", "Recall(PB+B)"]
    labels["turns"].pop()
    write_json(run_dir / "a.labels.json", labels)
    with pytest.raises(InputError, match="dialogue a: field turns: annotated system turn 4 has no label"):
        run_score(project=project, path=run_dir, name="broken")


@pytest.mark.shared_data
def test_nlpcc_sample_reproduces_shan_et_al_section_5(shared_data, make_project):
    # Shan et al. (2019), 5.1: 997, 690, 288, 538 and 761 points of 1,200; total 273 of 500
    project = make_project("nlpcc")
    dialogues_import(project=project, paths=[shared_data / "nlpcc2019_task3_sample.xlsx"])
    scores = project_statistics(project)["nlpcc"]["sample_data"]
    expected = {
        "syntax": 997,
        "content_expression": 690,
        "emotional_expression": 288,
        "topic_divergence": 538,
        "contextual_association": 761,
    }
    for aspect, points in expected.items():
        assert scores[aspect] == pytest.approx(points / 1200 * 100)
    assert round(scores["total"]) == 273


def test_stats_uch_summary_for_nugget_projects(stc3_project):
    uch = project_statistics(stc3_project)["uch"]
    assert uch["auch_mean"] > 0
    # two dialogues are too few for a correlation; the criteria that can be correlated have intervals
    for entry in uch["kendall_tau"].values():
        assert entry["ci_low"] <= entry["tau"] <= entry["ci_high"]


def test_score_run_scores_reorderings_of_a_coherence_project(make_project, make_user, tmp_path):
    from annotator.models import Assignment, Reordering
    from annotator.services.imports import dialogues_import as do_import

    project = make_project("coherence")
    lines = tmp_path / "c.jsonl"
    lines.write_text(
        json.dumps({"id": "c1", "turns": [{"speaker": s, "text": f"t{i}"} for i, s in enumerate("ABABABABAB")]}) + "\n"
    )
    do_import(project=project, paths=[lines])
    dialogue = project.dialogues.get()
    for name, order in (("x", list(range(10))), ("y", [8, 9, 0, 1, 2, 3, 4, 5, 6, 7])):
        assignment = Assignment.objects.create(annotator=make_user(name), dialogue=dialogue, status="submitted")
        Reordering.objects.create(assignment=assignment, submitted_order=order)
    run = run_score(project=project, path=None)
    assert run.kind == "reordering"
    per = {v["annotator"]: v for v in run.scores["per_assignment"].values()}
    assert per["y"]["b2"] == pytest.approx(8 / 9) and per["y"]["b3"] == pytest.approx(0.75)
    assert per["x"]["tau"] == 1.0
    assert run.per_dialogue["c1"]["b23"] == pytest.approx((1 + (8 / 9 + 0.75) / 2) / 2)


def test_compare_runs_command(stc3_project, tmp_path, capsys):
    for seed in range(3):
        run_score(
            project=stc3_project,
            path=write_json(tmp_path / f"r{seed}.json", random_stc3_run(stc3_dialogues(), seed)),
            name=f"r{seed}",
        )
    call_command("compare_runs", stc3_project.slug, "--metric", "A.rsnod", "--trials", "500", "--json")
    result = json.loads(capsys.readouterr().out)
    assert result["runs"] == ["r0", "r1", "r2"] and result["n_items"] == 2
    p = np.array(result["tukey_hsd"]["p_values"])
    assert p.shape == (3, 3) and np.allclose(p, p.T) and (np.diag(p) == 1).all()
    with pytest.raises(Exception, match="per-dialogue metrics"):
        call_command("compare_runs", stc3_project.slug, "--metric", "nope")


def test_undefined_results_are_stored_as_null(make_project, make_user, tmp_path):
    # given a two-turn dialogue (b3 is undefined) and three identical runs (rank correlations over ties)
    from annotator.models import Assignment, Reordering
    from evaluation.models import RunComparison, RunStatus
    from evaluation.runs.services.compare import comparisons_refresh

    project = make_project("coherence")
    lines = tmp_path / "c.jsonl"
    lines.write_text(json.dumps({"id": "short", "turns": [{"speaker": s, "text": s} for s in "AB"]}) + "\n")
    dialogues_import(project=project, paths=[lines])
    assignment = Assignment.objects.create(
        annotator=make_user("a"), dialogue=project.dialogues.get(), status="submitted"
    )
    Reordering.objects.create(assignment=assignment, submitted_order=[0, 1])
    # when they are scored and stored (PostgreSQL's json refuses NaN)
    run = run_score(project=project, path=None)
    run.refresh_from_db()
    assert run.per_dialogue["short"]["b3"] is None and run.per_dialogue["short"]["tau"] == 1.0
    stc3 = make_project("stc3")
    same = {f"d{i}": {"A.nmd": 0.25} for i in range(12)}
    for name in "xyz":
        Run.objects.create(
            project=stc3,
            name=name,
            kind="stc3",
            status=RunStatus.SCORED,
            scores={},
            per_dialogue=same,
            gold_fingerprint=judgements_fingerprint(stc3),
        )
    assert comparisons_refresh(project=stc3, trials=200) == 1
    # then the undefined figures are null
    stored = RunComparison.objects.get(project=stc3, metric="A.nmd").payload
    assert stored["ranking_stability"]["mean_tau"] is None
