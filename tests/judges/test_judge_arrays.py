"""A judge's labels as arrays: keyed like the humans' units, joined with them by ``JudgeLabels.align``."""

from __future__ import annotations

import numpy as np
import pytest

from annotator.judges.selectors import judge_label_arrays, judges_of
from annotator.models import Judge, JudgeKind, JudgeLabel
from annotator.selectors.judgement_arrays import project_judgements
from tests.factories import project_with_submissions

pytestmark = pytest.mark.django_db


def test_judge_labels_align_with_the_humans_units():
    work = project_with_submissions("stc3", slug="arrays")
    humans = project_judgements(work.project)
    judge = Judge.objects.create(project=work.project, name="llm", kind=JudgeKind.IMPORTED)
    quality = humans["A"] if "A" in humans else next(iter(humans.values()))
    key = quality.criterion.key
    values = quality.values
    # label every other unit, in reverse order of writing, the last one with a distribution
    chosen = list(range(0, quality.n_units, 2))
    for i, u in enumerate(reversed(chosen)):
        JudgeLabel.objects.create(
            judge=judge,
            dialogue_id=int(quality.unit_dialogue[u]),
            criterion=quality.criterion,
            unit=int(quality.unit_index[u]),
            value=values[u % len(values)],
            distribution={values[0]: 0.25, values[-1]: 0.75} if i == 0 else None,
        )
    JudgeLabel.objects.create(
        judge=judge,
        dialogue_id=int(quality.unit_dialogue[1]),
        criterion=quality.criterion,
        unit=int(quality.unit_index[1]),
        value="",
        reason="unparsable",
    )
    labels = judge_label_arrays(judge)
    assert set(labels) == set(humans)
    mine = labels[key]
    assert len(mine) == len(chosen) and mine.missing == 1
    assert mine.values == values
    rows, units = mine.align(quality.unit_dialogue, quality.unit_index)
    assert units.tolist() == chosen
    assert mine.value[rows].tolist() == [values[u % len(values)] for u in chosen]
    assert mine.value_index[rows].tolist() == [u % len(values) for u in chosen]
    assert mine.distribution is not None
    labelled = ~np.isnan(mine.distribution).any(axis=1)
    assert labelled.sum() == 1
    expected = np.zeros(len(values))
    expected[0], expected[-1] = 0.25, 0.75
    np.testing.assert_allclose(mine.distribution[labelled][0], expected)
    assert mine.item[rows[0]] == work.project.dialogues.get(pk=quality.unit_dialogue[chosen[0]]).external_id
    listed = judges_of(work.project).get()
    assert (listed.n_labels, listed.n_missing) == (len(chosen), 1)
    others = [k for k in labels if k != key]
    assert all(len(labels[k]) == 0 and labels[k].distribution is None for k in others)
