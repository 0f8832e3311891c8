"""Annotator reliability from the latent-truth models (Dawid-Skene, GLAD, MACE), kept per project.

The models take seconds even on a small project (crowd-kit's EM for Dawid-Skene and GLAD runs on pandas frames), so they
do not run in the statistics recomputation that follows every submission (the interactive queue). Instead the
recomputation asks for an estimate on the heavy queue when the stored one is older than the judgements; the
estimate is stored with the judgements' fingerprint, and the statistics are recomputed once more to carry it
(their reliability panel then names each annotator's model figures and the spammer flag). Running the
estimate twice is harmless: an unchanged fingerprint makes the second run a no-op.
"""

from __future__ import annotations

import numpy as np
from django.conf import settings
from django.db import transaction

from annotator.models import Project
from annotator.selectors.judgement_arrays import CriterionJudgements, project_judgements
from evaluation.models import ModelReliability
from evaluation.selectors.fingerprint import judgements_fingerprint
from evaluation.services.schedule import model_estimate_request
from scoring.aggregation import MODELS_EXTRA_MISSING, RELIABILITY, aggregate, method_available

MIN_MODEL_JUDGEMENTS = 20  # fewer labels than this: a model's reliability estimate is not reported
# The models run up to these sizes (judgements of a criterion; settings.MODEL_LIMITS); GLAD's M-step is slow.
MODEL_LIMITS = dict(settings.MODEL_LIMITS)


def criterion_model_reliability(data: CriterionJudgements) -> dict:
    """``{"methods": {method: {"reliability", "skipped"}}, "annotators": {user id: {method: value | None}}}``.

    A method is skipped above its size limit (``MODEL_LIMITS``) and, without the optional models extra, where
    it needs it (Dawid-Skene, GLAD: ``skipped`` says how to install it); an annotator with fewer than
    ``MIN_MODEL_JUDGEMENTS`` labels gets None (the models say little about them)."""
    n = len(data.value)
    per = np.bincount(data.annotator, minlength=len(data.annotators))
    methods: dict[str, dict] = {}
    annotators: dict[str, dict[str, float | None]] = {str(int(u)): {} for u in data.annotators}
    for method, limit in MODEL_LIMITS.items():
        if not method_available(method):
            methods[method] = {"reliability": RELIABILITY[method], "skipped": MODELS_EXTRA_MISSING}
            continue
        if n > limit:
            methods[method] = {
                "reliability": RELIABILITY[method],
                "skipped": f"{n} judgements, more than the {limit} estimated with the statistics",
            }
            continue
        methods[method] = {"reliability": RELIABILITY[method], "skipped": ""}
        result = aggregate(
            data.unit, data.annotator, data.value, n_units=data.n_units, n_values=len(data.values),
            n_annotators=len(data.annotators), method=method,
        )  # fmt: skip
        for a, user_id in enumerate(data.annotators.tolist()):
            r = result.reliability[a]
            annotators[str(int(user_id))][method] = (
                None if per[a] < MIN_MODEL_JUDGEMENTS or not np.isfinite(r) else float(r)
            )
    return {"methods": methods, "annotators": annotators}


def model_reliability_stored(*, project: Project, fingerprint: str) -> dict | None:
    """The stored estimate if it covers the judgements with ``fingerprint``, else None."""
    return (
        ModelReliability.objects.filter(project=project, fingerprint=fingerprint)
        .values_list("payload", flat=True)
        .first()
    )


def model_reliability_request(*, project_id: int, automatic: bool = False) -> None:
    """Ask the heavy queue for a new estimate once the current transaction commits.

    ``automatic`` (after a statistics recomputation): coalesced and spaced like the statistics'
    (``schedule.model_estimate_request``); the lead's request goes at once."""
    transaction.on_commit(lambda: model_estimate_request(project_id=project_id, spaced=automatic))


def model_reliability_recompute(*, project_id: int) -> bool:
    """Estimate and store the models' reliability for the project's current judgements; True if it was new.

    The worker runs it through ``jobs.model_estimate_job_run``, which also recomputes the statistics so that
    their payload carries the estimate. Without the optional models extra only MACE is estimated; the
    dashboard says how to install the others."""
    project = Project.objects.get(pk=project_id)
    fingerprint = judgements_fingerprint(project)
    if model_reliability_stored(project=project, fingerprint=fingerprint) is not None:
        return False
    payload = {
        key: criterion_model_reliability(data) for key, data in project_judgements(project).items() if len(data.value)
    }
    ModelReliability.objects.update_or_create(
        project=project, defaults={"fingerprint": fingerprint, "payload": payload}
    )
    return True
