"""Reading, validating and scoring a run against a project's gold data, and saving the scores.

Which reader and scorer apply is the preset's ``run_scheme`` (``annotator.presets``).
"""

from __future__ import annotations

from pathlib import Path

from django.db import transaction
from django.utils import timezone

from annotator.importers.limits import archive_limits
from annotator.models import Project
from annotator.presets import PRESETS, RunScheme
from scoring.app.models import Run, RunKind, RunStatus
from scoring.app.services.payloads import json_finite
from scoring.errors import N_, InputError
from scoring.files import expand_archives, walk_path
from scoring.memory import gc_paused


def run_scheme(project: Project) -> RunScheme | None:
    return PRESETS[project.preset].run_scheme


def _json_files(files) -> list[tuple[str, bytes]]:
    return [(f.display, f.content) for f in files if f.relative.endswith(".json")]


def run_score(
    *,
    project: Project,
    path: Path | None = None,
    files: list[tuple[str, bytes]] | None = None,
    name: str | None = None,
    alpha: float = 0.5,
    strict: bool = False,
    threshold: float = 0.0,
) -> Run:
    """Read, validate and score a run (a path: file, folder or zip; or ``files`` as (name, bytes)) and save it.

    For coherence projects neither is given and the annotators' reorderings are scored.
    Raises ``InputError`` (naming file, dialogue and field) and saves nothing on bad input.
    Scoring the same name again replaces the earlier scores.
    """
    scheme = run_scheme(project)
    if scheme is None:
        raise InputError(project.slug, N_("this project's preset has no system runs to score"))
    # each scheme's scorer is imported when used: a process scoring one run loads only its own
    if scheme == RunScheme.REORDERING:
        from scoring.app.services.runs.reorderings import reorderings_score

        scores, per_dialogue = reorderings_score(project=project)
        return _save(project, name or "reorderings", RunKind.REORDERING, "", {}, scores, per_dialogue)
    if files is None:
        if path is None:
            raise InputError(project.slug, N_("needs a run file (a path)"))
        files = _json_files(walk_path(path, archive_limits()))
    else:
        files = _json_files(expand_archives(files, archive_limits()))
    source = str(path) if path is not None else ", ".join(n for n, _r in files)[:500]
    if not files:
        raise InputError(source or "run", N_("contains no JSON files"))
    with gc_paused():  # a parsed run and its scores per dialogue: many small acyclic objects (scoring.memory)
        if scheme == RunScheme.DBDC:
            from scoring.app.services.runs.dbdc import dbdc_run_score

            kind, options = RunKind.DBDC, {"strict": strict, "threshold": threshold}
            scores, per_dialogue = dbdc_run_score(project=project, files=files, strict=strict, threshold=threshold)
        else:
            from scoring.app.services.runs.stc3 import stc3_run_score

            kind, options = RunKind.STC3, {"alpha": alpha, "strict": strict}
            scores, per_dialogue = stc3_run_score(project=project, files=files, alpha=alpha, strict=strict)
        default_name = Path(path).stem if path is not None else Path(files[0][0].split(":")[0]).stem
        return _save(project, name or default_name, kind, source, options, scores, per_dialogue)


def _save(project: Project, name: str, kind: str, source: str, options: dict, scores: dict, per_dialogue: dict) -> Run:
    """Store the scores under ``name``, replacing an earlier run of that name.

    An update by name, not ``update_or_create``: that would first read the earlier run with its
    per-dialogue scores (a megabyte of JSON for 3,700 dialogues) only to overwrite them.
    """
    fields = {
        "kind": kind,
        "source_name": source,
        "options": options,
        "scores": json_finite(scores),
        "per_dialogue": json_finite(per_dialogue),
        "scored_at": timezone.now(),
        "status": RunStatus.SCORED,
        "error": "",
        "source": None,
    }
    with transaction.atomic():
        if Run.objects.filter(project=project, name=name).update(**fields):
            run = Run.objects.defer("scores", "per_dialogue", "source").get(project=project, name=name)
            run.scores, run.per_dialogue, run.source = fields["scores"], fields["per_dialogue"], None
        else:
            run = Run.objects.create(project=project, name=name, **fields)
    return run
