"""Whether a run's scores are current: computed against the gold the judgements give now.

A run scored against another gold (``Run.gold_fingerprint`` is not the judgements' fingerprint) is stale
until the background re-scoring (``evaluation.runs.services.freshness``) has run; the leaderboard and
the API show it as stale with this reason.
"""

from __future__ import annotations

from django.db.models import BooleanField, ExpressionWrapper, Q, QuerySet
from django.utils.translation import gettext

from evaluation.models import Run, RunKind, RunStatus


def with_has_files(runs: QuerySet) -> QuerySet:
    """``runs`` with ``has_files`` (whether the files are kept) and without reading the files themselves."""
    kept = ExpressionWrapper(Q(source__isnull=False), output_field=BooleanField())
    return runs.defer("source").annotate(has_files=kept)


def run_stale_reason(run: Run, fingerprint: str) -> str | None:
    """Why ``run``'s scores are stale against the gold of ``fingerprint``; None if they are current (or the
    run has no scores yet). ``run`` best comes from ``with_has_files`` (else its files are looked up)."""
    if run.status != RunStatus.SCORED or run.gold_fingerprint == fingerprint:
        return None
    has_files = getattr(run, "has_files", None)
    if has_files is None:
        has_files = Run.objects.filter(pk=run.pk, source__isnull=False).exists()
    if not has_files and run.kind != RunKind.REORDERING:
        return gettext(
            "Stale: scored against an earlier gold (the judgements that count changed since: a submission, an "
            "exclusion, the source filter, an adjudication or an import). Its files were not kept: upload it "
            "again to score it against the current gold."
        )
    return gettext(
        "Stale: scored against an earlier gold (the judgements that count changed since: a submission, an "
        "exclusion, the source filter, an adjudication or an import). It is being scored again in the "
        "background; the comparisons leave it out until then."
    )
