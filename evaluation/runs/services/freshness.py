"""Runs scored against the current gold: a changed gold re-scores them in the background.

Every run's scores carry the fingerprint of the gold they were computed against (``Run.gold_fingerprint``,
the judgements' fingerprint of ``evaluation.selectors.fingerprint``, which changes with an exclusion, the
source filter, an adjudication, a new submission or a removed import). When the statistics find a new
fingerprint they ask for ``runs_rescore_stale`` (``schedule.runs_rescore_request``); until it has run, the
leaderboard shows each stale run as stale with the reason (``selectors.leaderboard``) and the comparisons
use only the runs scored against the current gold (``services.compare``).
"""

from __future__ import annotations

import logging

from django.db import InterfaceError, OperationalError

from annotator.models import Project
from evaluation.models import Run, RunKind, RunStatus
from evaluation.runs.services.compare import comparisons_refresh
from evaluation.runs.services.events import run_outcome_emit
from evaluation.runs.services.scoring import run_score, zip_files
from evaluation.selectors.fingerprint import judgements_fingerprint
from scoring.errors import InputError

log = logging.getLogger(__name__)


def runs_rescore_stale(*, project_id: int) -> int:
    """Score again every scored run of the project whose gold fingerprint is not the current one, then
    refresh the comparisons; how many runs were scored again.

    Safe to run twice (and concurrently with an upload): a run found current is skipped, and scoring
    replaces a run's scores by name. A run whose files were not kept (scored before they were) stays
    stale: the leaderboard asks for it to be uploaded again. A run the current gold refuses (a dialogue
    whose import was removed) is rejected with the reader's message; its files stay for *Score again*.
    """
    project = Project.objects.get(pk=project_id)
    fingerprint = judgements_fingerprint(project)
    stale = (
        Run.objects.filter(project=project, status=RunStatus.SCORED)
        .exclude(gold_fingerprint=fingerprint)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    rescored = 0
    for run_id in list(stale):
        run = Run.objects.filter(pk=run_id, status=RunStatus.SCORED).exclude(gold_fingerprint=fingerprint).first()
        if run is None or (run.source is None and run.kind != RunKind.REORDERING):
            continue
        rescored += _rescore(project, run)
    if rescored:
        comparisons_refresh(project=project)
    return rescored


def _rescore(project: Project, run: Run) -> bool:
    """Score ``run`` again against the current gold and send its ``run.scored`` (or ``run.failed``) webhook."""
    options = run.options or {}
    try:
        if run.kind == RunKind.REORDERING:
            scored = run_score(project=project, name=run.name)
        else:
            scored = run_score(
                project=project,
                files=zip_files(bytes(run.source)),
                name=run.name,
                alpha=options.get("alpha", 0.5),
                strict=options.get("strict", False),
                threshold=options.get("threshold", 0.0),
            )
    except InputError as exc:
        scored = _rejected(run, str(exc))
    except (OperationalError, InterfaceError):
        raise  # transient: the task retries
    except Exception as exc:  # never leave a run half-done: rejected with the reason, files kept
        log.exception("run %s (%s) could not be scored again", run.pk, run.name)
        scored = _rejected(run, f"{run.source_name}: the run could not be scored again ({type(exc).__name__}: {exc})")
    run_outcome_emit(run=scored, rescored=True)
    return True


def _rejected(run: Run, message: str) -> Run:
    Run.objects.filter(pk=run.pk).update(status=RunStatus.FAILED, error=message[:5000])
    run.status, run.error = RunStatus.FAILED, message[:5000]
    return run
