"""A judge never enters the humans' data: every gold export (each format, the Parquet dataset), the statistics
payload (agreement, gold distributions, annotators' quality figures), the quality-control checks and the
judgements' fingerprint are the same, byte for byte, before and after a judge labels every unit."""

from __future__ import annotations

import json

import pytest

from annotator.exporters import DISTRIBUTION_FORMATS, export_formats_of, export_gold
from annotator.judges.services.labels import judge_import
from annotator.models import JudgeLabel, QualityItemKind
from annotator.selectors.judgement_arrays import project_judgements
from annotator.selectors.quality import checked_answers
from evaluation.selectors.fingerprint import judgements_fingerprint
from evaluation.services.dataset_export import dataset_write
from evaluation.services.statistics import project_statistics
from tests.factories import project_with_submissions

pytestmark = pytest.mark.django_db

JUDGE_PARTS = ("judges",)  # payload parts about judges (the judge report's), not the humans'


def human_figures(project, folder) -> dict:
    """Everything the humans' data feeds, as comparable values."""
    import pyarrow.parquet as pq

    exports = {}
    for fmt in export_formats_of(project):
        for aggregation in ("votes", "dawid-skene") if fmt in DISTRIBUTION_FORMATS else ("votes",):
            exports[(fmt, aggregation)] = export_gold(project=project, fmt=fmt, aggregation=aggregation)
    counts = dataset_write(project=project, directory=folder)
    tables = {name: pq.read_table(folder / name).to_pylist() for name in counts}
    payload = project_statistics(project)
    payload = {k: v for k, v in payload.items() if k not in JUDGE_PARTS}
    checks = {kind: checked_answers(project=project, kind=kind) for kind in QualityItemKind.values}
    return {
        "exports": exports,
        "tables": tables,
        "card": (folder / "README.md").read_text(encoding="utf-8"),
        "payload": json.dumps(payload, sort_keys=True, default=str),
        "checks": {kind: (c.criterion, c.expected, c.given, c.correct.tolist()) for kind, c in checks.items()},
        "fingerprint": judgements_fingerprint(project),
    }


def labels_of_every_unit(project, path):
    """A judge's labels of every unit the humans judged, each the scale's last value, with a distribution;
    the judge is named like one of the imported annotators."""
    lines = {}
    for key, data in project_judgements(project).items():
        external = dict(project.dialogues.values_list("pk", "external_id"))
        for d, u, s in zip(data.unit_dialogue.tolist(), data.unit_index.tolist(), data.unit_speaker.tolist()):
            allowed = [data.values[i] for i in data.scale(s)]
            distribution = {v: 1 / len(allowed) for v in allowed}
            label = {"criterion": key, "unit": u, "value": allowed[-1], "distribution": distribution}
            lines.setdefault(external[d], []).append(label)
    path.write_text("".join(json.dumps({"id": i, "labels": ls}) + "\n" for i, ls in lines.items()), encoding="utf-8")
    return path


@pytest.mark.parametrize("preset", ["stc3", "dbdc", "pairwise", "dch1"])
def test_a_judge_changes_no_export_statistic_or_check(preset, tmp_path):
    work = project_with_submissions(preset, slug=f"never-{preset}")
    before = human_figures(work.project, tmp_path / "before")
    judge_import(project=work.project, path=labels_of_every_unit(work.project, tmp_path / "judge.jsonl"), name="1")
    assert JudgeLabel.objects.filter(judge__project=work.project).count() > 0
    after = human_figures(work.project, tmp_path / "after")
    assert before["exports"] and before["tables"]
    for part in before:
        assert after[part] == before[part], part
