"""CSV exports never start a cell from imported text with = + - @ tab or CR; numbers stay numbers."""

from __future__ import annotations

import csv
import doctest
import io

import pytest

from annotator.exporters import cells, export_gold
from annotator.services.imports import dialogues_import
from evaluation.models import Run, RunKind
from evaluation.runs.selectors.scores_csv import per_dialogue_csv
from tests.fixtures.collections import stc3_dialogues, write_json

pytestmark = pytest.mark.django_db

HOSTILE_IDS = ["=cmd|' /C calc'!A0", "+1+cmd", "-2+3", "@SUM(A1:A9)", "\tTAB", "\rCR"]
DANGEROUS = ("=", "+", "-", "@", "\t", "\r")


def rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def test_csv_cell_examples():
    assert doctest.testmod(cells).failed == 0


def test_gold_distributions_csv_keeps_formulas_out_and_numbers_in(make_project, tmp_path):
    project = make_project("stc3")
    template = stc3_dialogues()[0]
    data = [dict(template, id=dialogue_id) for dialogue_id in HOSTILE_IDS]
    dialogues_import(project=project, paths=[write_json(tmp_path / "hostile.json", data)])
    table = rows(export_gold(project=project, fmt="distributions-csv").decode("utf-8"))
    header, body = table[0], table[1:]
    assert header[:8] == ["criterion", "dialogue", "unit", "speaker", "n", "value", "count", "probability"]
    dialogues = {row[1] for row in body}
    assert dialogues == {"'" + d for d in HOSTILE_IDS}
    for row in body:
        for cell in row:
            assert not cell.startswith(DANGEROUS) or cells.PLAIN_NUMBER.fullmatch(cell), row
    # numbers stay numbers: scale values such as -2 and -1, counts and probabilities
    quality = [row for row in body if row[0] == "A"]
    assert {row[5] for row in quality} == {"-2", "-1", "0", "1", "2"}
    for row in body:
        int(row[2]), int(row[4]), int(row[6]), float(row[7])


@pytest.mark.both_databases(
    reason="a run's scores per dialogue stream out through each database's JSON functions (jsonb_each, json_each)"
)
def test_run_per_dialogue_csv_keeps_formulas_out_and_numbers_in(make_project):
    project = make_project("stc3")
    run = Run.objects.create(
        project=project,
        name="r",
        kind=RunKind.STC3,
        per_dialogue={d: {"quality.A.RNSS": [0.25, -0.5][i % 2], "nugget.JSD": 1} for i, d in enumerate(HOSTILE_IDS)},
    )
    table = rows(per_dialogue_csv(run))
    assert table[0] == ["dialogue", "nugget.JSD", "quality.A.RNSS"]
    stored = Run.objects.get(pk=run.pk).per_dialogue  # the order the database keeps the dialogues in
    assert [row[0] for row in table[1:]] == ["'" + d for d in stored]
    assert sorted(row[0] for row in table[1:]) == sorted("'" + d for d in HOSTILE_IDS)
    # a negative score is still a number
    assert [float(row[2]) for row in table[1:]] == [stored[d]["quality.A.RNSS"] for d in stored]
    assert sorted(float(row[2]) for row in table[1:]) == [-0.5] * 3 + [0.25] * 3
