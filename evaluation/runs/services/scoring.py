"""Reading, validating and scoring a run against a project's gold data, and saving the scores.

Which reader and scorer apply is the project's run scheme (``annotator.presets.RunScheme``, asked through
``project_scheme``): ``SCORERS`` holds one scorer per scheme key, and nothing else tests the key.
"""

from __future__ import annotations

import io
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from django.db import transaction
from django.utils import timezone

from annotator.importers.limits import archive_limits
from annotator.models import Project
from annotator.presets import RunScheme
from annotator.presets.of_project import project_scheme
from evaluation.json_codec import json_finite
from evaluation.models import Run, RunStatus
from evaluation.selectors.fingerprint import judgements_fingerprint
from scoring.errors import N_, InputError
from scoring.files import expand_archives, walk_path
from scoring.memory import gc_paused


def run_scheme(project: Project) -> RunScheme | None:
    return project_scheme(project).run_scheme


def uploads_check(project: Project) -> RunScheme:
    """The project's run scheme if it takes uploaded run files; ``InputError`` otherwise (every path that takes
    files asks this: the page, the API and ``manage.py score_run``)."""
    scheme = run_scheme(project)
    if scheme is None:
        raise InputError(project.slug, N_("this project's scheme has no system runs to score"))
    if not scheme.uploads:
        raise InputError(project.slug, N_("this project's runs are its annotators' reorderings: it takes no run files"))
    return scheme


def _stc3(*, project, fingerprint, files, alpha, strict, threshold):
    from evaluation.runs.services.stc3 import stc3_run_score

    scores = stc3_run_score(project=project, fingerprint=fingerprint, files=files, alpha=alpha, strict=strict)
    return scores, {"alpha": alpha, "strict": strict}


def _dbdc(*, project, fingerprint, files, alpha, strict, threshold):
    from evaluation.runs.services.dbdc import dbdc_run_score

    scores = dbdc_run_score(project=project, fingerprint=fingerprint, files=files, strict=strict, threshold=threshold)
    return scores, {"strict": strict, "threshold": threshold}


# the scorer of each run scheme that takes files (``RunScheme.key``); each imports its reader when used, so a
# process scoring one run loads only its own
SCORERS = {"stc3": _stc3, "dbdc": _dbdc}


def files_zip(files: list[tuple[str, bytes]]) -> bytes:
    """A run's files as one zip (what ``Run.source`` keeps), every file kept even when two share a name.

    Deflate's fastest level: on a run of STC-3 Chinese (3.3 MB of JSON) a fifth of the default level's time
    (30 ms, not 130 ms) for a zip a seventh larger.
    """
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        used: set[str] = set()
        for i, (filename, raw) in enumerate(files):
            member = Path(filename).name or "run.json"
            if member in used:
                member = f"{i:04d}-{member}"
            used.add(member)
            archive.writestr(member, raw)
    return buffer.getvalue()


def zip_files(source: bytes) -> list[tuple[str, bytes]]:
    """The files of a ``files_zip``, in name order."""
    with zipfile.ZipFile(io.BytesIO(source)) as archive:
        return [(n, archive.read(n)) for n in sorted(archive.namelist())]


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
    Scoring the same name again replaces the earlier scores. The scores carry the fingerprint of the gold
    they were computed against (read first: a change meanwhile leaves them marked stale, never the reverse)
    and the files are kept, so that the run is scored again when the gold changes (``runs.freshness``).
    """
    fingerprint = judgements_fingerprint(project)
    scheme = run_scheme(project)
    if scheme is None:
        raise InputError(project.slug, N_("this project's scheme has no system runs to score"))
    if not scheme.uploads:
        from evaluation.runs.services.reorderings import reorderings_score

        scores, per_dialogue = reorderings_score(project=project)
        scored = Scored(scores, per_dialogue, fingerprint, None)
        return _save(project, name or "reorderings", scheme.key, "", {}, scored)
    if files is None:
        if path is None:
            raise InputError(project.slug, N_("needs a run file (a path)"))
        given = list(walk_path(path, archive_limits()))
    else:
        given = list(expand_archives(files, archive_limits()))
    files = _json_files(given)
    source = str(path) if path is not None else ", ".join(n for n, _r in files)[:500]
    if not files:
        names = ", ".join(f.relative for f in given[:5]) + (", ..." if len(given) > 5 else "")
        raise InputError(
            str(path) if path is not None else ", ".join(f.display for f in given)[:500] or "run",
            N_("contains no JSON files (a run is JSON, a zip of JSON files, or either gzipped); it holds: %(names)s"),
            params={"names": names or "nothing"},
        )
    # The files are zipped on a thread of their own while the run is scored (zlib lets go of the interpreter's
    # lock while it compresses); bad input discards the zip.
    with gc_paused(), ThreadPoolExecutor(max_workers=1) as zipping:  # gc: a parsed run and its scores (scoring.memory)
        zipped = zipping.submit(files_zip, files)
        (scores, per_dialogue), options = SCORERS[scheme.key](
            project=project, fingerprint=fingerprint, files=files, alpha=alpha, strict=strict, threshold=threshold
        )
        default_name = Path(path).stem if path is not None else Path(files[0][0].split(":")[0]).stem
        scored = Scored(scores, per_dialogue, fingerprint, zipped.result())
        return _save(project, name or default_name, scheme.key, source, options, scored)


@dataclass(frozen=True)
class Scored:
    """What scoring a run gives: its scores, per dialogue too, the gold's fingerprint and the files (a zip)."""

    scores: dict
    per_dialogue: dict
    gold_fingerprint: str
    files: bytes | None


def _save(project: Project, name: str, kind: str, source: str, options: dict, scored: Scored) -> Run:
    """Store the scores under ``name``, replacing an earlier run of that name.

    An update by name, not ``update_or_create``: that would first read the earlier run with its
    per-dialogue scores (a megabyte of JSON for 3,700 dialogues) only to overwrite them.
    """
    fields = {
        "kind": kind,
        "source_name": source,
        "options": options,
        "scores": json_finite(scored.scores),
        "per_dialogue": json_finite(scored.per_dialogue),
        "scored_at": timezone.now(),
        "status": RunStatus.SCORED,
        "error": "",
        "source": scored.files,
        "gold_fingerprint": scored.gold_fingerprint,
    }
    with transaction.atomic():
        if Run.objects.filter(project=project, name=name).update(**fields):
            run = Run.objects.defer("scores", "per_dialogue", "source").get(project=project, name=name)
            run.scores, run.per_dialogue, run.source = fields["scores"], fields["per_dialogue"], scored.files
        else:
            run = Run.objects.create(project=project, name=name, **fields)
    return run
