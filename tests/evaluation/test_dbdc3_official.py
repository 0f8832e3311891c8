"""``score_run`` (service and command) on the DBDC3 English eval set equals the official evaluation script.

The reference is ``tests/reference_dbdc3_eval.py`` (a Python 3 port of ``prog/eval/eval.py``);
the runs are ``tests/fixtures/dbdc_runs.py``'s three systems, which disagree with the gold labels
in different ways.
"""

import json

import pytest

from annotator.services.imports import dialogues_import
from evaluation.models import Run
from tests.fixtures.dbdc_runs import RUN_KINDS, log_files, write_run
from tests.reference_dbdc3_eval import OURS, evaluate

pytestmark = pytest.mark.shared_data


def test_score_run_equals_the_official_script(dbdc_dir, make_project, manage, tmp_path):
    from evaluation.runs.services.scoring import run_score

    project = make_project("dbdc", slug="dbdc3-en-eval")
    dialogues_import(project=project, paths=[dbdc_dir / "eval"])
    logs = log_files(dbdc_dir / "eval")
    for kind in RUN_KINDS:
        exact = write_run(logs, tmp_path / f"{kind}-exact", kind, seed=23)
        every = write_run(logs, tmp_path / f"{kind}-every", kind, seed=23, every_system_turn=True)
        for threshold in (0.0, 0.5):
            reference = evaluate(logs, exact, threshold)
            # the service, on the run that also labels the unannotated opening prompts
            run = run_score(project=project, path=every, name=f"{kind}-{threshold}", threshold=threshold)
            assert run.scores["n_turns"] == 2000 and run.scores["threshold"] == threshold
            assert any("ignored the labels of 89 turns" in note for note in run.scores["notes"])
            for theirs, ours in OURS.items():
                assert run.scores["breakdown"][ours] == pytest.approx(reference[theirs], abs=1e-6), (ours, kind)
    # the command, on the run of exactly the annotated turns, with the script's -t
    for kind, threshold in (("random", "0.5"), ("grouped", "0")):
        result = manage(
            "score_run", project.slug, str(tmp_path / f"{kind}-exact"), "--threshold", threshold, "--json", check=True
        )
        scores = json.loads(result.stdout)
        reference = evaluate(logs, tmp_path / f"{kind}-exact", float(threshold))
        assert scores["notes"] == []
        for theirs, ours in OURS.items():
            assert scores["breakdown"][ours] == pytest.approx(reference[theirs], abs=1e-6), (ours, kind)
    assert Run.objects.filter(project=project, name="grouped-exact").exists()


def test_score_run_refuses_a_broken_run_naming_file_dialogue_and_turn(dbdc_dir, make_project, manage, tmp_path):
    project = make_project("dbdc", slug="dbdc3-broken")
    dialogues_import(project=project, paths=[dbdc_dir / "eval"])
    run = write_run(log_files(dbdc_dir / "eval"), tmp_path / "run", "random", seed=1)
    path = sorted(run.glob("*.labels.json"))[0]
    record = json.loads(path.read_text())
    record["turns"][1]["labels"][0]["prob-O"] = 1.5
    path.write_text(json.dumps(record))
    turn = record["turns"][1]["turn-index"]
    result = manage("score_run", project.slug, str(run))
    assert result.returncode != 0
    assert f"{path.name}: dialogue {record['dialogue-id']}: field turns[1].labels[0].prob-O: turn {turn}:" in (
        result.stderr
    )
    assert not Run.objects.filter(project=project).exists()
