"""The statistics' straight-lining figures equal the library applied judgement by judgement."""

import numpy as np
import pytest

from annotator.selectors.judgement_arrays import project_judgements
from annotator.services.judgements import judgements_save
from evaluation.services.reliability import _straight
from scoring.reliability import straight_lining
from tests.factories import first_allowed_values, project_with_work

pytestmark = pytest.mark.django_db


def reference(judgements) -> dict[int, dict]:
    """One judgement at a time: items are (annotator, dialogue), groups (scale, speaker)."""
    items, groups, values, item_keys, scale_ids = [], [], [], {}, {}
    for data in judgements.values():
        for k in range(len(data.value)):
            user, unit = int(data.annotators[data.annotator[k]]), int(data.unit[k])
            items.append(item_keys.setdefault((user, int(data.unit_dialogue[unit])), len(item_keys)))
            groups.append(scale_ids.setdefault((tuple(data.values), data.unit_speaker[unit]), len(scale_ids)))
            values.append(int(data.value[k]))
    result = straight_lining(items, groups, values)
    owner = np.array([user for user, _d in item_keys], dtype=np.int64)
    out = {}
    for user_id in np.unique(owner).tolist():
        mine = owner[result.items] == user_id
        eligible = int(result.eligible[mine].sum())
        straight = int(result.straight[mine].sum())
        out[user_id] = {"eligible": eligible, "straight": straight, "share": straight / eligible if eligible else None}
    return out


@pytest.mark.parametrize("preset", ["stc3", "dch1", "dbdc"])
def test_straight_lining_per_annotator(preset):
    # given a project where one annotator gives the first value everywhere and the imported ones vary
    work = project_with_work(preset, annotators=2)
    for assignment in work.assignments_of(work.annotators[0]):
        judgements_save(
            assignment_id=assignment.pk, user=work.annotators[0], values=first_allowed_values(assignment), submit=True
        )
    judgements = project_judgements(work.project)
    # then the figures equal the reference, and the annotator who gave one value is straight-lining
    figures = _straight(judgements)
    assert figures == reference(judgements)
    mine = figures.get(work.annotators[0].pk)
    if mine and mine["eligible"]:
        assert mine["straight"] == mine["eligible"]
