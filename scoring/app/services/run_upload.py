"""Uploaded runs: kept as a zip of their files, queued, and scored by a worker."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from django.db import transaction

from annotator.models import Project
from annotator.presets import RunScheme
from scoring.app.models import Run, RunKind, RunStatus
from scoring.app.services.compare import comparisons_refresh
from scoring.app.services.run_scoring import run_scheme, run_score
from scoring.app.services.schedule import safe_enqueue
from scoring.errors import InputError


def run_upload(*, project: Project, name: str, files: list[tuple[str, bytes]], options: dict | None = None) -> Run:
    """Keep an uploaded run (as a zip of its files) and queue it for scoring by a worker."""
    if not name.strip():
        raise InputError("run", "needs a name", field="name")
    if not files:
        raise InputError(name, "has no files", field="files")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        used: set[str] = set()
        for i, (filename, raw) in enumerate(files):
            member = Path(filename).name or "run.json"
            if member in used:  # keep every file even when two share a name
                member = f"{i:04d}-{member}"
            used.add(member)
            archive.writestr(member, raw)
    kind = RunKind.DBDC if run_scheme(project) == RunScheme.DBDC else RunKind.STC3
    with transaction.atomic():
        run, _ = Run.objects.update_or_create(
            project=project,
            name=name,
            defaults={
                "kind": kind,
                "status": RunStatus.PENDING,
                "error": "",
                "source": buffer.getvalue(),
                "source_name": ", ".join(Path(f).name for f, _r in files)[:500],
                "options": options or {},
                "scores": {},
                "per_dialogue": {},
                "scored_at": None,
            },
        )
        transaction.on_commit(lambda: _enqueue_scoring(run.pk))
    return run


def run_delete(*, project: Project, run_id: int) -> str:
    """Delete one of the project's runs (scored, rejected or waiting) and refresh the comparisons of the
    rest once this commits. Returns the run's name; raises ``Run.DoesNotExist`` for another project's run."""
    with transaction.atomic():
        run = Run.objects.defer("source", "per_dialogue").get(project=project, pk=run_id)
        name = run.name
        run.delete()
        transaction.on_commit(lambda: _enqueue_comparisons(project.pk))
    return name


def _enqueue_comparisons(project_id: int) -> None:
    from scoring.app.tasks import refresh_run_comparisons

    safe_enqueue(refresh_run_comparisons, project_id)


def _enqueue_scoring(run_id: int) -> None:
    from scoring.app.tasks import score_uploaded_run

    safe_enqueue(score_uploaded_run, run_id)


def run_score_stored(*, run_id: int) -> Run:
    """Score an uploaded run (the worker's side). Safe to run twice: a scored run is left as it is."""
    run = Run.objects.select_related("project").get(pk=run_id)
    if run.status != RunStatus.PENDING or run.source is None:
        return run
    with zipfile.ZipFile(io.BytesIO(bytes(run.source))) as archive:
        files = [(n, archive.read(n)) for n in sorted(archive.namelist())]
    options = run.options or {}
    try:
        scored = run_score(
            project=run.project,
            files=files,
            name=run.name,
            alpha=options.get("alpha", 0.5),
            strict=options.get("strict", False),
            threshold=options.get("threshold", 0.0),
        )
    except InputError as exc:
        Run.objects.filter(pk=run.pk).update(status=RunStatus.FAILED, error=str(exc), source=None)
        run.refresh_from_db()
        return run
    comparisons_refresh(project=run.project)
    return scored
