"""``python -m scoring stc3 RUN GOLD``: DialEval-1's ``eval.py`` without the platform, run as a real process.

Its scores equal the official script's (when ``../dialeval1/eval.py`` is beside the repository), the straightforward
reference scorer's (``tests/reference_scoring.py``) and ``manage.py score_run --json``'s on the same files; bad input
exits with status 2 and a message naming the file, the dialogue and the field; the process imports neither Django
nor scipy; the gold counts kept in the cache folder are read again when the gold file changes.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.collections import stc3_dialogues, write_json
from tests.reference_scoring import gold_of, random_stc3_run, score_stc3

ROOT = Path(__file__).resolve().parents[2]
OFFICIAL = ROOT.parent / "dialeval1" / "eval.py"  # DialEval-1's script, not part of the repository


def scoring_cli(*args, cache: Path | None = None) -> subprocess.CompletedProcess:
    """``python -m scoring ARGS`` as a user runs it; ``cache``: its cache folder (``XDG_CACHE_HOME``)."""
    env = dict(os.environ)
    env.pop("XDG_CACHE_HOME", None)
    if cache is not None:
        env["XDG_CACHE_HOME"] = str(cache)
    command = [sys.executable, "-m", "scoring", *map(str, args)]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def scores_of(*args, cache: Path) -> dict:
    result = scoring_cli(*args, "--json", cache=cache)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture
def files(tmp_path) -> tuple[Path, Path]:
    """A seeded random run and its gold file (the STC-3 fixture dialogues)."""
    gold = write_json(tmp_path / "gold.json", stc3_dialogues())
    return write_json(tmp_path / "run.json", random_stc3_run(stc3_dialogues(), seed=3)), gold


@pytest.mark.shared_data
def test_scores_equal_the_reference_scorer_on_stc3_chinese(stc3_dir, tmp_path):
    dialogues = json.loads((stc3_dir / "train_data_cn.json").read_text(encoding="utf-8"))
    run = random_stc3_run(dialogues, seed=7)
    path = write_json(tmp_path / "run.json", run)
    for alpha in (0.5, 0.3):
        ours = scores_of("stc3", path, stc3_dir / "train_data_cn.json", "--alpha", alpha, cache=tmp_path / "cache")
        expected = score_stc3(run, gold_of(dialogues), alpha=alpha)
        assert ours["n_dialogues"] == 3700 and set(ours["quality"]) == {"A", "S", "E"}
        for key in "ASE":
            for metric in ("rsnod", "nmd"):
                assert ours["quality"][key][metric] == pytest.approx(expected["quality"][key][metric], abs=1e-12)
        for metric in ("rnss", "jsd"):
            assert ours["nugget"][metric] == pytest.approx(expected["nugget"][metric], abs=1e-12)


@pytest.mark.shared_data
@pytest.mark.skipif(not OFFICIAL.exists(), reason="needs DialEval-1's eval.py in ../dialeval1 (not redistributed)")
@pytest.mark.parametrize("alpha", ["0.5", "0.3"])
def test_scores_equal_the_official_eval_script(stc3_dir, tmp_path, alpha):
    """The official script's -log2 of each mean, on 300 dialogues of STC-3 Chinese (it takes 8 s for all 3,700)."""
    dialogues = json.loads((stc3_dir / "train_data_cn.json").read_text(encoding="utf-8"))[:300]
    gold = write_json(tmp_path / "gold.json", dialogues)
    run = write_json(tmp_path / "run.json", random_stc3_run(dialogues, seed=11))
    official = subprocess.run(
        [sys.executable, str(OFFICIAL), str(run), str(gold), "--alpha", alpha],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert official.returncode == 0, official.stderr
    theirs = ast.literal_eval(official.stdout.strip())  # the script prints a Python dict
    ours = scores_of("stc3", run, gold, "--alpha", alpha, cache=tmp_path / "cache")
    for measure in ("rsnod", "nmd"):
        assert set(theirs["quality"][measure]) == set(ours["quality"])
        for key, value in theirs["quality"][measure].items():
            assert ours["quality"][key][f"{measure}_neglog2"] == pytest.approx(value, rel=1e-12, abs=0)
    for measure in ("rnss", "jsd"):
        assert ours["nugget"][f"{measure}_neglog2"] == pytest.approx(theirs["nugget"][measure], rel=1e-12, abs=0)


@pytest.mark.django_db(transaction=True)
def test_scores_equal_score_run_on_the_same_files(files, make_project, manage, tmp_path):
    """The same numbers, to the last bit, as the platform's command on a project that imported the gold file."""
    from annotator.services.imports import dialogues_import

    run, gold = files
    project = make_project("stc3", slug="stc3-cli")
    dialogues_import(project=project, paths=[gold])
    for options in ([], ["--alpha", "0.25"]):
        platform = manage("score_run", project.slug, str(run), "--json", *options, check=True)
        assert scores_of("stc3", run, gold, *options, cache=tmp_path / "cache") == json.loads(platform.stdout)
    # a run of some dialogues only, with quality estimates but no nugget ones
    part = [{"id": "d2", "quality": random_stc3_run(stc3_dialogues(), seed=5)[1]["quality"]}]
    part_path = write_json(tmp_path / "part.json", part)
    platform = json.loads(manage("score_run", project.slug, str(part_path), "--json", check=True).stdout)
    assert scores_of("stc3", part_path, gold, cache=tmp_path / "cache") == platform
    assert platform["n_dialogues"] == 1 and "nugget" not in platform
    # both say the run covers one of the gold's two dialogues, and the text says which is missing
    assert platform["coverage"] == {
        "dialogues": 1,
        "gold_dialogues": 2,
        "complete": False,
        "missing": ["d1"],
        "n_missing": 1,
    }
    text = scoring_cli("stc3", part_path, gold, cache=tmp_path / "cache").stdout
    assert "  note: scored on 1 of the gold's 2 dialogues (missing: d1)" in text


def test_text_output_names_each_metric(files, tmp_path):
    run, gold = files
    result = scoring_cli("stc3", run, gold, cache=tmp_path / "cache")
    assert result.returncode == 0 and result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0] == f"{run} against {gold}: 2 dialogues"
    assert any(line.startswith("  quality.A: rsnod 0.") and "rsnod_neglog2" in line for line in lines)
    assert any(line.startswith("  nugget.jsd_neglog2: ") for line in lines)


def _hostile_runs():
    """(name, what to do to the run's JSON text or records, what the message names)."""

    def records(change):
        def apply(run):
            change(run)
            return json.dumps(run)

        return apply

    return [
        (
            "nan",
            lambda run: json.dumps(run).replace('"2": 0.', '"2": NaN, "x": 0.', 1),
            "dialogue d1: field quality.A.2",
        ),
        (
            "negative",
            records(lambda run: run[0]["quality"]["A"].update({"2": -0.5, "1": run[0]["quality"]["A"]["1"] + 0.5})),
            "dialogue d1: field quality.A.2: probability -0.5 is negative",
        ),
        (
            "wrong length",
            records(lambda run: run[1]["nugget"].pop()),
            "dialogue d2: field nugget: 1 turn distributions",
        ),
        ("unknown dialogue", records(lambda run: run[0].update(id="d9")), "dialogue d9: field id: is not in the gold"),
        ("duplicate dialogue", records(lambda run: run.append(run[0])), "dialogue d1: field id: appears twice"),
        ("not json", lambda run: json.dumps(run)[:-9], "malformed JSON"),
        ("not a list", lambda run: json.dumps(run[0]), "expected a JSON list of dialogues"),
        (
            "sum",
            records(lambda run: run[1]["quality"].update(E={"2": 0.5, "1": 0.5, "0": 0.7})),
            "dialogue d2: field quality.E: probabilities sum to 1.7, not 1",
        ),
        (
            "label",
            records(lambda run: run[0]["nugget"][1].update(CNUG=0.2)),
            "dialogue d1: field nugget[1].CNUG: unknown label",
        ),
        ("string", records(lambda run: run[1]["quality"]["S"].update({"0": "high"})), "field quality.S.0: probability"),
    ]


@pytest.mark.parametrize("name, change, message", _hostile_runs(), ids=[h[0] for h in _hostile_runs()])
def test_bad_runs_exit_2_naming_file_dialogue_and_field(files, tmp_path, name, change, message):
    run, gold = files
    bad = tmp_path / "bad run.json"
    bad.write_text(change(json.loads(run.read_text())), encoding="utf-8")
    result = scoring_cli("stc3", bad, gold, "--json", cache=tmp_path / "cache")
    assert result.returncode == 2, result
    assert result.stdout == ""
    assert result.stderr.startswith(f"python -m scoring: error: {bad}: ")
    assert message in result.stderr, result.stderr


def _hostile_golds():
    def change(edit):
        def apply(dialogues):
            edit(dialogues)
            return dialogues

        return apply

    return [
        (
            "label of the other speaker",
            change(lambda g: g[0]["annotations"][1]["nugget"].__setitem__(1, "CNUG")),
            "dialogue d1: field annotations[1].nugget[1]: 'CNUG' is not one of HNUG, HNUG*, HNaN",
        ),
        (
            "score off the scale",
            change(lambda g: g[1]["annotations"][0]["quality"].update(S=3)),
            "dialogue d2: field annotations[0].quality.S: 3 is outside -2..2",
        ),
        (
            "float score",
            change(lambda g: g[1]["annotations"][0]["quality"].update(S=1.0)),
            "dialogue d2: field annotations[0].quality.S: expected int, got float",
        ),
        (
            "boolean score",
            change(lambda g: g[0]["annotations"][0]["quality"].update(A=True)),
            "dialogue d1: field annotations[0].quality.A: expected int, got bool",
        ),
        (
            "missing criterion",
            change(lambda g: g[1]["annotations"][1]["quality"].pop("E")),
            "dialogue d2: field annotations[1].quality.E: is missing",
        ),
        (
            "nugget labels for fewer turns",
            change(lambda g: g[0]["annotations"][0]["nugget"].pop()),
            "dialogue d1: field annotations[0].nugget: 2 nugget labels for 3 turns",
        ),
        (
            "no annotations (a test file)",
            change(lambda g: g[1].pop("annotations")),
            "dialogue d2: field annotations: is missing",
        ),
        ("duplicate dialogue", change(lambda g: g.append(g[0])), "dialogue d1: field id: appears twice"),
        (
            "unknown sender",
            change(lambda g: g[1]["turns"][1].update(sender="bot")),
            "dialogue d2: field turns[1].sender: 'bot' is not one of customer, helpdesk",
        ),
    ]


@pytest.mark.parametrize("name, change, message", _hostile_golds(), ids=[h[0] for h in _hostile_golds()])
def test_bad_gold_files_exit_2_naming_file_dialogue_and_field(files, tmp_path, name, change, message):
    run, _gold = files
    bad = write_json(tmp_path / "bad gold.json", change(stc3_dialogues()))
    result = scoring_cli("stc3", run, bad, cache=tmp_path / "cache")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith(f"python -m scoring: error: {bad}: ") and message in result.stderr, result.stderr
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("stc3-gold-*"))


def test_missing_files_and_bad_options_exit_2(files, tmp_path):
    run, gold = files
    missing = scoring_cli("stc3", tmp_path / "none.json", gold, cache=tmp_path / "cache")
    assert missing.returncode == 2 and missing.stdout == ""
    assert f"{tmp_path / 'none.json'}: cannot be read (No such file or directory)" in missing.stderr
    assert scoring_cli("stc3", run, gold, "--alpha", "1.5").returncode == 2
    assert scoring_cli("stc3", run).returncode == 2


def test_strict_mode_requires_every_gold_dialogue(files, tmp_path):
    run, gold = files
    part = write_json(tmp_path / "part.json", json.loads(run.read_text())[:1])
    assert scores_of("stc3", part, gold, cache=tmp_path / "cache")["n_dialogues"] == 1
    strict = scoring_cli("stc3", part, gold, "--strict", cache=tmp_path / "cache")
    assert strict.returncode == 2 and "dialogue d2: field id: 1 gold dialogues are missing" in strict.stderr


def test_the_process_imports_neither_django_nor_scipy(files, tmp_path):
    run, gold = files
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "scoring", "stc3", str(run), str(gold), "--json"],
        cwd=ROOT,
        env=dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache")),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines() if line.startswith("import")}
    assert {"numpy", "scoring.runs", "scoring.run_files.stc3_gold"} <= imported  # the listing is complete
    assert not {m for m in imported if m.split(".")[0] in ("django", "scipy", "annotator", "config", "rest_framework")}


def test_gold_counts_are_kept_until_the_gold_file_changes(files, tmp_path):
    run, gold = files
    cache = tmp_path / "cache"
    first = scores_of("stc3", run, gold, cache=cache)
    kept = list((cache / "dialeval-studio").glob("stc3-gold-*"))
    assert len(kept) == 1
    assert scores_of("stc3", run, gold, cache=cache) == first  # read from the cache
    # the gold changes (another annotator's view of d1): the file is read again
    dialogues = stc3_dialogues()
    dialogues[0]["annotations"][0]["quality"]["A"] = -2
    write_json(gold, dialogues)
    changed = scores_of("stc3", run, gold, cache=cache)
    assert changed["quality"]["A"] != first["quality"]["A"]
    assert changed == scores_of("stc3", run, gold, "--no-cache", cache=tmp_path / "unused")
    assert not (tmp_path / "unused").exists()
    # a damaged cache file is read again from the gold file
    for path in (cache / "dialeval-studio").glob("stc3-gold-*"):
        path.write_bytes(path.read_bytes()[:-20])
    assert scores_of("stc3", run, gold, cache=cache) == changed


def test_the_library_scales_are_the_stc3_presets(make_project):
    """The gold file is counted over the scales a project of the ``stc3`` preset has (the platform's gold)."""
    from scoring.run_files.stc3_gold import NUGGET_LABELS, QUALITY_SCALE

    project = make_project("stc3")
    criteria = {c.key: c for c in project.criteria.all()}
    for key in "ASE":
        assert tuple(criteria[key].allowed_values()) == QUALITY_SCALE
    for speaker, labels in NUGGET_LABELS.items():
        assert tuple(criteria["nugget"].allowed_values(speaker)) == labels


# --- python -m scoring dbdc LABELS LOGS ------------------------------------------------------------------------


@pytest.mark.shared_data
def test_dbdc_scores_equal_the_official_script(dbdc_dir, tmp_path):
    """The DBDC3 evaluation script (its port, ``tests/reference_dbdc3_eval.py``) on the English eval set."""
    from tests.fixtures.dbdc_runs import RUN_KINDS, log_files, write_run
    from tests.reference_dbdc3_eval import OURS, evaluate

    logs = log_files(dbdc_dir / "eval")
    for kind in RUN_KINDS:
        labels = write_run(logs, tmp_path / kind, kind, seed=23)
        for threshold in ("0", "0.5"):
            ours = scores_of("dbdc", labels, dbdc_dir / "eval", "-t", threshold, cache=tmp_path / "cache")
            reference = evaluate(logs, labels, float(threshold))
            assert (ours["n_turns"], ours["n_dialogues"], ours["notes"]) == (2000, 200, [])
            for theirs, name in OURS.items():
                assert ours["breakdown"][name] == pytest.approx(reference[theirs], abs=1e-12), (name, kind)


@pytest.fixture
def dbdc_files(tmp_path) -> tuple[Path, Path]:
    """Two DBDC logs and a labels folder for them (labels for the unannotated opening prompt too)."""
    from tests.fixtures.collections import dbdc_dialogue
    from tests.fixtures.dbdc_runs import write_run

    logs = tmp_path / "logs"
    logs.mkdir()
    write_json(logs / "a.log.json", dbdc_dialogue("a"))
    write_json(logs / "b.log.json", dbdc_dialogue("b", ("X", "X", "T")))
    return write_run(
        sorted(logs.glob("*.log.json")), tmp_path / "labels", "random", seed=2, every_system_turn=True
    ), logs


@pytest.mark.django_db(transaction=True)
def test_dbdc_scores_equal_score_run_on_the_same_files(dbdc_files, make_project, manage, tmp_path):
    from annotator.services.imports import dialogues_import

    labels, logs = dbdc_files
    project = make_project("dbdc", slug="dbdc-cli")
    dialogues_import(project=project, paths=sorted(logs.glob("*.log.json")))
    for options in ([], ["--threshold", "0.7"]):
        platform = json.loads(manage("score_run", project.slug, str(labels), "--json", *options, check=True).stdout)
        assert scores_of("dbdc", labels, logs, *options, cache=tmp_path / "cache") == platform
        assert any("ignored the labels of 2 turns" in note for note in platform["notes"])
    text = scoring_cli("dbdc", labels, logs, cache=tmp_path / "cache").stdout.splitlines()
    assert text[0] == f"{labels} against {logs}: 2 dialogues, 4 turns" and text[1].startswith("  note: ")
    assert "  breakdown.F1(B): " in "\n".join(text)


def test_dbdc_bad_input_exits_2_naming_file_dialogue_and_field(dbdc_files, tmp_path):
    labels, logs = dbdc_files
    path = labels / "a.labels.json"
    record = json.loads(path.read_text())
    record["turns"][1]["labels"][0]["prob-O"] = -0.5
    path.write_text(json.dumps(record))
    result = scoring_cli("dbdc", labels, logs, cache=tmp_path / "cache")
    assert (result.returncode, result.stdout) == (2, "")
    assert f"{path}: dialogue a: field turns[1].labels[0].prob-O: turn 2:" in result.stderr, result.stderr
    log = json.loads((logs / "b.log.json").read_text())
    log["turns"][2]["annotations"][0]["breakdown"] = "Z"
    write_json(logs / "b.log.json", log)
    result = scoring_cli("dbdc", labels, logs, cache=tmp_path / "cache")
    assert (result.returncode, result.stdout) == (2, "")
    assert "b.log.json: dialogue b: field turns[2].annotations[0].breakdown: unknown label 'Z'" in result.stderr
    assert scoring_cli("dbdc", labels, tmp_path / "nowhere").returncode == 2
    assert scoring_cli("dbdc", labels, logs, "-t", "2").returncode == 2


def test_a_cache_folder_that_cannot_be_written_is_no_cache(files, tmp_path):
    run, gold = files
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder would be")
    assert scores_of("stc3", run, gold, cache=blocked) == scores_of("stc3", run, gold, "--no-cache", cache=blocked)
    assert blocked.read_text() == "a file where the cache folder would be"
