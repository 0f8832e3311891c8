"""The latent-truth models' reliability is estimated on the heavy queue, not in every statistics recomputation,
and reaches the statistics once estimated; a planted random annotator is flagged by Dawid-Skene."""

import numpy as np
import pytest
from django.conf import settings

from annotator.selectors.judgement_arrays import project_judgements
from evaluation.models import ModelReliability, ProjectStatistics
from evaluation.services.jobs import model_estimate_job_run
from evaluation.services.model_reliability import criterion_model_reliability
from evaluation.services.statistics import statistics_recompute
from evaluation.tasks import estimate_model_reliability
from scoring.aggregation import aggregate
from tests.factories import breakdown_project, submit_all

pytestmark = pytest.mark.django_db


@pytest.fixture
def answered(tmp_path):
    work = breakdown_project(tmp_path, dialogues=16, annotators=4, k=4)
    rng = np.random.default_rng(7)
    for i, person in enumerate(work.annotators):
        submit_all(person, work.project, (lambda a, k, u: "OTX"[rng.integers(3)]) if i == 3 else (
            lambda a, k, u: "OTX"[(a.dialogue_id + u) % 3]
        ))  # fmt: skip
    return work


def test_statistics_leave_the_models_to_the_heavy_queue_and_carry_them_once_estimated(answered):
    project = answered.project
    # when the statistics are recomputed after the submissions
    stored = statistics_recompute(project_id=project.pk)
    # then they do not wait for the models: the panel says they are being estimated
    reliability = stored.payload["reliability"]
    assert reliability["models_pending"] is True and not ModelReliability.objects.filter(project=project).exists()
    assert all(entry["models"] == {} for entry in reliability["annotators"].values())
    assert {m["skipped"] for m in reliability["models"]["breakdown"].values()} == {"being estimated on the workers"}
    # and the estimate is a task of the heavy queue
    assert settings.CELERY_TASK_ROUTES[estimate_model_reliability.name]["queue"] == "heavy"

    # when the workers estimate it
    assert model_estimate_job_run(project_id=project.pk) is True
    # then the statistics carry each annotator's figures, equal to the library's on the same judgements
    stored = ProjectStatistics.objects.get(project=project)
    reliability = stored.payload["reliability"]
    assert reliability["models_pending"] is False
    data = project_judgements(project)["breakdown"]
    expected = aggregate(data.unit, data.annotator, data.value, n_units=data.n_units, n_values=3,
                         n_annotators=len(data.annotators), method="dawid-skene").reliability  # fmt: skip
    for user in answered.annotators:
        index = int(np.nonzero(data.annotators == user.pk)[0][0])
        figures = reliability["annotators"][user.username]["models"]["breakdown"]
        assert set(figures) == {"dawid-skene", "glad", "mace"}
        assert figures["dawid-skene"] == pytest.approx(expected[index])
    # and the random annotator has the lowest Dawid-Skene score and is flagged (by the model only below its
    # threshold: 32 random labels are too few to be sure); the consistent ones are not
    ds = {
        u.username: reliability["annotators"][u.username]["models"]["breakdown"]["dawid-skene"]
        for u in answered.annotators
    }
    flags = {u.username: reliability["annotators"][u.username]["flags"] for u in answered.annotators}
    random_one = answered.annotators[3].username
    assert min(ds, key=ds.get) == random_one, ds
    spammer_flag = any("Dawid-Skene" in f for f in flags[random_one])
    assert spammer_flag == (ds[random_one] < reliability["thresholds"]["dawid_skene_spammer"]), (ds, flags)
    assert any("agreement rises without them" in f for f in flags[random_one])
    assert not any("Dawid-Skene" in f for u in answered.annotators[:3] for f in flags[u.username])

    # and estimating again changes nothing (safe to run twice)
    before = ModelReliability.objects.get(project=project).computed_at
    assert model_estimate_job_run(project_id=project.pk) is False
    assert ModelReliability.objects.get(project=project).computed_at == before


def test_a_new_judgement_makes_the_estimate_stale(answered):
    project = answered.project
    model_estimate_job_run(project_id=project.pk)
    assert ProjectStatistics.objects.get(project=project).payload["reliability"]["models_pending"] is False
    # when one more annotator joins and answers (the fingerprint changes)
    from annotator.services.projects import membership_add
    from tests.factories import user_make

    late = user_make("late-annotator")
    membership_add(project=project, user=late, role="annotator")
    from annotator.models import Assignment

    first = project.dialogues.order_by("position").first()
    Assignment.objects.create(annotator=late, dialogue=first)
    submit_all(late, project, lambda a, k, u: "O")
    stored = statistics_recompute(project_id=project.pk)
    # then the statistics no longer show the old estimate as current
    assert stored.payload["reliability"]["models_pending"] is True


def test_size_limits_skip_a_model_with_a_reason():
    from evaluation.services import model_reliability

    class Data:  # the arrays of a criterion, as CriterionJudgements holds them
        unit = np.repeat(np.arange(10), 3)
        annotator = np.tile(np.arange(3), 10)
        value = (unit + annotator) % 2
        annotators = np.array([11, 12, 13])
        n_units, values = 10, ["a", "b"]

    limits = dict(model_reliability.MODEL_LIMITS)
    try:
        model_reliability.MODEL_LIMITS.update({"glad": 5, "mace": 5})
        out = criterion_model_reliability(Data)
    finally:
        model_reliability.MODEL_LIMITS.update(limits)
    assert out["methods"]["glad"]["skipped"].startswith("30 judgements, more than the 5")
    assert out["methods"]["dawid-skene"]["skipped"] == ""
    assert set(out["annotators"]["11"]) == {"dawid-skene"}
    # 10 labels each: fewer than the 20 a model's figure needs, so none is reported
    assert out["annotators"]["11"]["dawid-skene"] is None


def test_automatic_estimates_are_coalesced_and_spaced_by_the_last_ones_duration(answered, monkeypatch, settings):
    """Under a stream of submissions every recomputation asks for the models again: one estimate is queued at a
    time, and it waits STATISTICS_DUTY_FACTOR times the last estimate's duration (a tenth of a worker at most)."""
    from evaluation.models import StatisticsJob
    from evaluation.services import schedule

    settings.MODEL_ESTIMATE_DELAY_SECONDS, settings.STATISTICS_DUTY_FACTOR = 3, 10
    sent = []
    monkeypatch.setattr(
        "config.enqueue.task_send", lambda name, *args, countdown=None, **_options: sent.append(countdown) or True
    )
    project = answered.project
    # two requests while the first is queued: one estimate, after the delay
    assert schedule.model_estimate_request(project_id=project.pk) is True
    assert schedule.model_estimate_request(project_id=project.pk) is False
    assert sent == [3]
    # the worker runs it: no longer pending, its duration recorded
    assert model_estimate_job_run(project_id=project.pk) is True
    job = StatisticsJob.objects.get(project=project)
    assert not job.models_pending and job.models_last_duration > 0
    # the next automatic request waits ten times that (or the delay); the lead's goes at once
    assert schedule.model_estimate_request(project_id=project.pk) is True
    assert sent[-1] == pytest.approx(max(3, 10 * job.models_last_duration))
    assert schedule.model_estimate_request(project_id=project.pk, spaced=False) is True
    assert sent[-1] is None
