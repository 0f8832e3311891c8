"""The gold cache: the same counts as reading the judgements, reused while they are unchanged, rebuilt after."""

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotator.presets import PRESETS
from annotator.selectors.judgement_arrays import project_judgements
from annotator.services.judgements import judgements_save
from evaluation.models import GoldCache
from evaluation.services.gold_cache import gold_arrays
from evaluation.services.statistics import statistics_recompute
from tests.factories import first_allowed_values, project_with_work

pytestmark = pytest.mark.django_db


def submit_all(work, upto: int | None = None):
    for person in work.annotators:
        for assignment in work.assignments_of(person)[:upto]:
            judgements_save(
                assignment_id=assignment.pk,
                user=person,
                values=first_allowed_values(assignment),
                reordering=list(assignment.shown_order) if PRESETS[work.project.preset].reordering else None,
                submit=True,
            )


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_cached_counts_equal_the_judgements(preset):
    # given a project of the preset with submitted work
    work = project_with_work(preset, annotators=2)
    submit_all(work)
    # when the gold arrays are built (and stored), then read back from the store
    built = gold_arrays(project=work.project)
    stored = gold_arrays(project=work.project)
    # then both equal the counts read from the judgements directly
    fresh = project_judgements(work.project)
    for key, data in fresh.items():
        for arrays in (built, stored):
            assert np.array_equal(arrays.criteria[key].counts(), data.counts()), key
            assert arrays.criteria[key].unit_dialogue.tolist() == data.unit_dialogue.tolist()
            assert arrays.criteria[key].unit_speaker.tolist() == data.unit_speaker.tolist()
            assert arrays.criteria[key].values == data.values


def test_reused_while_unchanged_and_rebuilt_after_a_submission():
    work = project_with_work("stc3", annotators=2)
    submit_all(work, upto=1)
    first = gold_arrays(project=work.project)
    # reading again touches no judgement row: the fingerprint aggregates the submitted items
    with CaptureQueriesContext(connection) as context:
        again = gold_arrays(project=work.project)
    reads = [q["sql"] for q in context.captured_queries if "annotator_judgement" in q["sql"]]
    assert reads == []
    assert np.array_equal(again.criteria["A"].counts(), first.criteria["A"].counts())
    # a new submission changes the fingerprint: the next read has the new judgement
    submit_all(work)
    after = gold_arrays(project=work.project)
    assert after.criteria["A"].counts().sum() > first.criteria["A"].counts().sum()
    assert np.array_equal(after.criteria["A"].counts(), project_judgements(work.project)["A"].counts())


def test_the_statistics_recomputation_stores_the_cache():
    work = project_with_work("dbdc", annotators=2)
    submit_all(work)
    statistics_recompute(project_id=work.project.pk)
    cache = GoldCache.objects.get(project=work.project)
    assert cache.fingerprint == work.project.statistics.fingerprint
