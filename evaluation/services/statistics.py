"""Project statistics: computed from the judgements table through the library, stored with provenance."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

import scoring
from annotator.models import Project
from annotator.presets import Summary
from annotator.presets.of_project import project_scheme
from annotator.selectors.judgement_arrays import CriterionJudgements, project_judgements
from annotator.selectors.population import (
    annotators_included,
)
from evaluation.handout.services import adaptive_summary
from evaluation.json_codec import json_finite
from evaluation.models import LiveState, ProjectStatistics
from evaluation.pairwise.services import bradley_terry_summary
from evaluation.selectors.agreement_data import block_key
from evaluation.selectors.fingerprint import judgements_fingerprint
from evaluation.services.agreement_evidence import agreement_evidence
from evaluation.services.dashboard import annotator_figures, distributions_and_disputes
from evaluation.services.gold_cache import gold_arrays_store
from evaluation.services.live_rebuild import live_state_rebuild
from evaluation.services.model_reliability import model_reliability_request, model_reliability_stored
from evaluation.services.nlpcc_summary import nlpcc_summary
from evaluation.services.payloads import StatisticsPayload
from evaluation.services.reliability import reliability_summary
from evaluation.services.scale_numbers import alpha_levels, numeric_values
from evaluation.services.schedule import runs_rescore_request
from evaluation.services.uch_summary import uch_summary
from evaluation.services.work_summary import work_summary
from scoring.agreement import (
    agreement_shares,
    fleiss_kappa,
    krippendorff_alpha_from_counts,
    pearson_inter_rater_long,
    randolph_kappa,
)
from scoring.gold import group_indices, merge_counts

DISTANCES = ("interval", "ratio")  # the levels whose alpha reads the scale's numbers


def agreement_summary(
    counts: np.ndarray, level: str, values: np.ndarray, *, key: str, categories: list[str],
    n_categories: int | None = None, running: bool = True,
) -> dict:  # fmt: skip
    """Agreement of one criterion (or one speaker's units, or one label merge) from its counts, each coefficient
    with its interval and the data behind it (``agreement_evidence``; ``key`` seeds the resamples).

    ``running`` False leaves out the figures the live state keeps current (the units, Fleiss' and Randolph's
    kappa, alpha: ``incremental.RUNNING_FIGURES``): the scheduled recomputation of a criterion stores only what
    is not additive, and the readers take the rest from the live state (``statistics_with_running_figures``)."""
    pairable = counts[counts.sum(axis=1) >= 2]
    shares = agreement_shares(pairable)
    levels = alpha_levels(level)
    out = {}
    if running:
        out = {
            "n_units": len(pairable),
            "fleiss_kappa": fleiss_kappa(pairable),
            "randolph_kappa": randolph_kappa(pairable, n_categories=n_categories),
            "krippendorff_alpha": {
                level: krippendorff_alpha_from_counts(pairable, level, values if level in DISTANCES else None)
                for level in levels
            },
        }
    return {
        **out,
        "agree_2plus": shares.agree_2plus,
        "agree_all": shares.agree_all,
        **agreement_evidence(
            pairable, key=key, levels=levels, values=values, categories=categories, n_categories=n_categories
        ),
    }


def criterion_statistics(
    data: CriterionJudgements, merges: dict[str, list[list[str]]] | None = None, *, running: bool = True
) -> dict:
    """The ``stats --json`` entry of one criterion (``running`` False: without the figures the live state keeps,
    ``agreement_summary``; those of each speaker and label merge are not in the live state and stay)."""
    criterion = data.criterion
    counts = data.counts()
    values = numeric_values(data.values)
    entry = agreement_summary(
        counts, criterion.level, values, key=criterion.key, categories=list(data.values), running=running
    )
    entry["n_annotators"] = len(data.annotators)
    # what the figures are computed from: every label counted, and those published as counts without annotators
    # (NLPCC): "0 annotators" beside a kappa of 4,000 counts would contradict it
    entry["n_labels"] = int(counts.sum())
    entry["n_imported_counts"] = int(data.unit_counts.sum())
    if criterion.level != "nominal" and len(data.value):
        r = pearson_inter_rater_long(data.unit, data.annotator, values[data.value], n_annotators=len(data.annotators))
        entry["pearson_inter_rater"] = {"mean": r.mean, "std": r.std}
    if criterion.speakers:
        entry["by_speaker"] = {}
        for speaker in criterion.speakers:
            columns = data.scale(speaker)
            rows = data.unit_speaker == speaker
            sub = agreement_summary(
                counts[rows][:, columns], criterion.level, values[columns],
                key=block_key(criterion.key, speaker=speaker), categories=[data.values[c] for c in columns],
            )  # fmt: skip
            sub["n_annotators"] = len(np.unique(data.annotator[rows[data.unit]])) if len(data.unit) else 0
            sub["n_imported_counts"] = int(data.unit_counts[rows].sum())
            entry["by_speaker"][speaker] = sub
    if merges:
        entry["merges"] = {}
        for name, groups in merges.items():
            merged = merge_counts(counts, group_indices(data.values, groups))
            sub = agreement_summary(
                merged, "nominal", np.arange(len(groups), dtype=float),
                key=block_key(criterion.key, merge=name), categories=["+".join(g) for g in groups],
            )  # fmt: skip
            sub["n_annotators"] = entry["n_annotators"]
            sub["n_imported_counts"] = entry["n_imported_counts"]
            entry["merges"][name] = sub
    return entry


def project_statistics(
    project: Project,
    judgements: dict[str, CriterionJudgements] | None = None,
    *,
    fingerprint: str | None = None,
    running: bool = True,
) -> StatisticsPayload:
    """The statistics payload of a project: agreement per criterion (``stats --json``).

    ``running`` False gives what the scheduled recomputation stores: everything but the figures the live state
    keeps current with every save (``incremental.RUNNING_FIGURES``), which the readers take from it
    (``incremental.statistics_with_running_figures``); True (``stats`` computing in its own process) gives them
    too, computed from the same counts.

    ``judgements`` are the project's judgement arrays and ``fingerprint`` their fingerprint when the caller
    has read them already. The latent-truth models' reliability is the stored estimate for this
    fingerprint (``evaluation.services.model_reliability``), or marked pending."""
    spec = project_scheme(project)
    merges = spec.merges
    judgements = project_judgements(project) if judgements is None else judgements
    criteria = {}
    for key, data in judgements.items():
        if data.n_units == 0:
            continue
        criteria[key] = criterion_statistics(data, merges.get(key), running=running)
    payload = {"project": project.slug, "criteria": criteria}
    if Summary.NLPCC in spec.summaries:
        payload["nlpcc"] = nlpcc_summary(project, judgements)
    summary = uch_summary(project, judgements) if Summary.UCH in spec.summaries else None
    if summary is not None:
        payload["uch"] = summary
    if Summary.BRADLEY_TERRY in spec.summaries:
        payload["bradley_terry"] = bradley_terry_summary(project)
    payload["annotators"] = annotator_figures(project, judgements)
    payload.update(distributions_and_disputes(project, judgements, running=running))
    if fingerprint is None:
        fingerprint = judgements_fingerprint(project)
    models = model_reliability_stored(project=project, fingerprint=fingerprint)
    payload["reliability"] = reliability_summary(project, judgements, models)
    judged = {int(u) for data in judgements.values() for u in data.annotators.tolist()}
    payload["population"] = asdict(annotators_included(project, by="username", judged=judged))
    payload["labels"] = label_counts(judgements, n_annotators=len(judged))
    payload["work"] = work_summary(project, judgements)
    if (adaptive := adaptive_summary(project)) is not None:
        payload["adaptive"] = adaptive
    return json_finite(payload)


def label_counts(judgements: dict[str, CriterionJudgements], *, n_annotators: int) -> dict:
    """What every figure is computed from, read from the same arrays: the labels (judgements and imported
    counts together), the judgements with their annotators, and the counts imported without annotators."""
    imported = sum(int(data.unit_counts.sum()) for data in judgements.values())
    given = sum(len(data.value) for data in judgements.values())
    return {"total": given + imported, "judgements": given, "imported_counts": imported, "annotators": n_annotators}


def statistics_recompute(*, project_id: int, force: bool = False) -> ProjectStatistics:
    """Compute and store a project's statistics; skipped when the judgements have not changed.

    What is stored is what the live state does not keep (``project_statistics(running=False)``): a live state
    never built is built first (``live_state_built``), so that the readers find the running figures there
    whenever a payload is stored.

    Statistics that wait for the models' estimate ask for it either way (``model_reliability_request``):
    a request while one is queued adds nothing, and one queued so long ago that its worker must have died
    is taken over (``schedule.model_estimate_request``), so that a submission or *Recompute now* also
    rescues an estimate lost with a killed heavy worker.
    """
    project = Project.objects.get(pk=project_id)
    live_state_built(project)  # the running figures the stored payload leaves out: there first
    checked = timezone.now()  # before reading: a request made later may not be covered
    fingerprint = judgements_fingerprint(project)
    current = ProjectStatistics.objects.filter(project=project).first()
    if current and current.fingerprint == fingerprint and not force and not _models_arrived(current, fingerprint):
        unchecked = Q(checked_at__lt=checked) | Q(checked_at__isnull=True)  # never move it back (a slower run)
        if ProjectStatistics.objects.filter(unchecked, pk=current.pk).update(checked_at=checked):
            current.checked_at = checked
        stored = current
    else:
        stored = _statistics_store(project, fingerprint, checked)
    if stored.payload.get("reliability", {}).get("models_pending", False):
        model_reliability_request(project_id=project.pk, automatic=True)
    return stored


def live_state_built(project: Project) -> None:
    """Build the project's live state here when it was never built (the recomputation runs on a worker already,
    and reads the judgements anyway). A stale state is left to its own rebuild (``rebuild_live_statistics``):
    until that commits, its figures are those it held, and every reader says so."""
    if not LiveState.objects.filter(project=project, built_at__isnull=False).exists():
        live_state_rebuild(project_id=project.pk)


def _statistics_store(project: Project, fingerprint: str, checked) -> ProjectStatistics:
    judgements = project_judgements(project)
    n = sum(len(data.value) for data in judgements.values())  # the judgements the statistics are computed from
    payload = project_statistics(project, judgements, fingerprint=fingerprint, running=False)
    with transaction.atomic():
        gold_arrays_store(project=project, fingerprint=fingerprint, judgements=judgements)
        stored, _ = ProjectStatistics.objects.update_or_create(
            project=project,
            defaults={
                "payload": payload,
                "n_judgements": n,
                "fingerprint": fingerprint,
                "library_version": scoring.__version__,
                "computed_at": timezone.now(),
                "checked_at": checked,
            },
        )
    runs_rescore_request(project_id=project.pk, fingerprint=fingerprint)  # a new gold: stale runs scored again
    return stored


def _models_arrived(current: ProjectStatistics, fingerprint: str) -> bool:
    """The stored statistics wait for the models' estimate, and it is there now."""
    pending = current.payload.get("reliability", {}).get("models_pending", False)
    return pending and model_reliability_stored(project=current.project, fingerprint=fingerprint) is not None
