"""The lead's heavy pages as jobs: the power analysis, a judge's report, the study report, the gold and Parquet
exports and the project archive are computed on a worker, never inside the request that asks.

A page or an endpoint asks ``lead_job_ask``: it answers the last stored result (with the time it was computed and
whether the judgements changed since), or the job at work on it with its progress, starting one when nothing
current is stored (at the user's rate of starts, ``JOB_START_RATE``). The workers' side (``lead_job_run``, called by
``evaluation.tasks``) calls the same services the pages called before and stores what they return on the job
(``annotator.services.jobs.job_result_store``): a JSON result, or a file under ``MEDIA_ROOT/jobs/``, with the
version of what it read (``lead_job_fingerprint``), which the next ask compares with the current one.
"""

from __future__ import annotations

import hashlib
import math
import typing
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path

from django.conf import settings
from django.db.models import Count, Max, Sum
from django.utils import timezone

from annotator.models import Assignment, Dialogue, Job, Judge, JudgeLabel, Membership, Project
from annotator.services.jobs import Asked, job_progress, job_result_or_start, job_result_store
from evaluation.models import Run
from evaluation.selectors.dashboard import freshness as statistics_freshness
from evaluation.selectors.fingerprint import judgements_version
from evaluation.services.freshness import result_freshness

TASKS = {
    "power": "evaluation.tasks.compute_power",
    "judge_report": "evaluation.tasks.compute_judge_report",
    "study_report": "evaluation.tasks.compute_study_report",
    "export": "evaluation.tasks.export_gold",
    "archive": "evaluation.tasks.export_archive",
}
WEB_SIMULATIONS = 100  # per K of a power analysis asked from the page (the command line takes --simulations)


def lead_job_key(kind: str, project: Project, params: dict) -> str:
    """What a lead's job computes: its kind, the project and its parameters (sorted).

    >>> class P: pk = 3
    >>> lead_job_key("power", P(), {"k_max": 50, "criterion": "A"})
    'power:3:criterion=A&k_max=50'
    """
    return f"{kind}:{project.pk}:" + "&".join(f"{k}={params[k]}" for k in sorted(params))


def lead_job_fingerprint(kind: str, project: Project, params: dict) -> str:
    """The version of what the job reads: the judgements' version (``judgements_version``, a few rows whatever the
    project's size: every page asking for a stored result compares it), and per kind what else it depends on (a
    judge's labels and who annotated; the stored statistics for the report; for the archive the dialogues, items
    (drafts too), members, runs and judges, by count, last id and the items' versions)."""
    parts = [judgements_version(project)]
    if kind == "judge_report":  # the judge's labels, and who annotated (the margin's default)
        labels = JudgeLabel.objects.filter(judge_id=params["judge"]).aggregate(n=Count("pk"), last=Max("pk"))
        parts.append(f"{labels['n']}:{labels['last']}:{project.annotators_are}")
    if kind == "study_report":  # the stored statistics it cites, and whether they are current (its first line)
        state = statistics_freshness(project=project, count_new_items=False)
        parts.append(f"{state['stored'] and state['stored'].computed_at}:{state['up_to_date']}")
    if kind == "archive":  # what it holds besides the judgements that count: drafts, members, runs, judges
        for model, field in ((Dialogue, "project"), (Run, "project"), (Judge, "project"), (Membership, "project")):
            parts.append(str(model.objects.filter(**{field: project}).aggregate(n=Count("pk"), last=Max("pk"))))
        items = Assignment.objects.filter(dialogue__project=project)
        parts.append(str(items.aggregate(n=Count("pk"), last=Max("pk"), versions=Sum("version"))))
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


def lead_job_ask(*, kind: str, project: Project, params: dict, user=None, may_start=lambda: True) -> Asked:
    """The stored result of ``kind`` with ``params``, or the job computing it (started if needed)."""
    return job_result_or_start(
        task=TASKS[kind],
        args=[project.pk, params],
        project=project,
        key=lead_job_key(kind, project, params),
        fingerprint=lead_job_fingerprint(kind, project, params),
        user=user,
        may_start=may_start,
    )


# -- The workers' side ---------------------------------------------------------------------------------------


def lead_job_run(*, kind: str, job_id: int, project_id: int, params: dict) -> None:
    """The worker's side of a lead's job of ``kind``: the version of what it reads (``lead_job_fingerprint``, taken
    before it reads, so that a change made meanwhile makes the result stale rather than wrongly current), then the
    service's result or file, stored on the job (``job_result_store``)."""
    project = Project.objects.get(pk=project_id)
    fingerprint = lead_job_fingerprint(kind, project, params)
    stored = RUNNERS[kind](job_id=job_id, project=project, params=params)
    job_result_store(job_id=job_id, fingerprint=fingerprint, **stored)


def _power(*, job_id: int, project: Project, params: dict) -> dict:
    """``project_power`` with ``params``; a problem it names (no labels yet, an unknown criterion) is the
    result's ``problem``, shown on the page as before."""
    from evaluation.services.power import PowerError, project_power

    try:
        return {"result": {"power": project_power(project, n_sim=WEB_SIMULATIONS, **params), "problem": ""}}
    except (PowerError, ValueError) as exc:
        return {"result": {"power": None, "problem": str(exc)}}


def _judge_report(*, job_id: int, project: Project, params: dict) -> dict:
    """The judge's report (``judge_report_cached``; ``params["epsilon"]`` None: the margin of who annotated) and the
    comparison of the project's judges beside the report's reference judges."""
    from annotator.judges.selectors import judges_of
    from evaluation.judges.services.cached import judge_report_cached, judges_comparison

    judge = Judge.objects.get(pk=params["judge"], project=project)
    epsilon = None if params["epsilon"] is None else float(params["epsilon"])
    report = judge_report_cached(project, judge, epsilon)
    job_progress(job_id=job_id, done=1, total=2)
    comparison = judges_comparison(project, judges_of(project), epsilon, references=report)
    return {"result": {"report": report, "comparison": comparison}}


def _study_report(*, job_id: int, project: Project, params: dict) -> dict:
    """The study report in ``params["language"]``: its blocks (the page lays them out) and its three renderings
    (the downloads)."""
    from evaluation.services.report.content import project_report
    from evaluation.services.report.render import FORMATS, report_outline, report_render

    report = project_report(project=project, language=params["language"])
    return {
        "result": {
            "blocks": blocks_stored(report_outline(report)),
            "status": report.statistics.status,
            "renders": {fmt: report_render(report, fmt) for fmt in FORMATS},
        }
    }


def _gold_export(*, job_id: int, project: Project, params: dict) -> dict:
    """A gold export (``export_gold_chunks``) or the Parquet dataset (``dataset_zip_chunks``) written to a file."""
    from annotator.exporters import EXPORT_FORMATS, export_gold_chunks
    from evaluation.services.dataset_export import dataset_zip_chunks

    fmt, aggregation = params["format"], params.get("aggregation", "votes")
    try:
        if fmt == "parquet":
            chunks, extension = dataset_zip_chunks(project=project, aggregation=aggregation), "zip"
        else:
            chunks, extension = export_gold_chunks(project=project, fmt=fmt, aggregation=aggregation), None
            extension = EXPORT_FORMATS[fmt][2]
    except ValueError as exc:  # a format or an aggregation that does not fit: the job's answer, not a crash
        return {"result": {"problem": str(exc)}}
    name = f"{project.slug}-{fmt}.{extension}"
    return {"file": file_written(job_id, name, chunks), "name": name}


def _archive_export(*, job_id: int, project: Project, params: dict) -> dict:
    """The project archive (``project_archive_chunks``) written to a file."""
    from evaluation.archive.export import project_archive_chunks

    name = f"{project.slug}-archive.zip"
    return {"file": file_written(job_id, name, project_archive_chunks(project)), "name": name}


RUNNERS = {
    "power": _power,
    "judge_report": _judge_report,
    "study_report": _study_report,
    "export": _gold_export,
    "archive": _archive_export,
}


def file_written(job_id: int, name: str, chunks: typing.Iterable[bytes]) -> str:
    """``chunks`` written to ``MEDIA_ROOT/jobs/<job>/<name>`` (the job's progress: MiB written); its path under
    MEDIA_ROOT."""
    relative = Path("jobs") / str(job_id) / name
    path = Path(settings.MEDIA_ROOT) / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with open(path, "wb") as out:
        for chunk in chunks:
            out.write(chunk)
            before, written = written, written + len(chunk)
            if written >> 20 != before >> 20:
                job_progress(job_id=job_id, done=written >> 20)
    return str(relative)


def job_file_path(job: Job) -> Path | None:
    """The file a finished job wrote, if it is still there."""
    if not job.result_file:
        return None
    path = Path(settings.MEDIA_ROOT) / job.result_file
    return path if path.is_file() else None


# -- The study report's blocks as JSON -----------------------------------------------------------------------


def _block_types() -> dict[str, type]:
    from evaluation.services.report.outline import Block

    return {kind.__name__: kind for kind in typing.get_args(Block)}


BLOCK_TYPE = "block"  # the key naming each stored block's type (not "kind": a paragraph has a field of that name)


def blocks_stored(blocks: list) -> list[dict]:
    """The report's blocks as JSON, each with its type under ``BLOCK_TYPE`` beside its fields."""
    return [{BLOCK_TYPE: type(block).__name__, "fields": asdict(block)} for block in blocks]


def blocks_read(stored: list[dict]) -> list:
    """The blocks ``blocks_stored`` wrote, as the outline's objects again."""
    kinds = _block_types()
    return [kinds[b[BLOCK_TYPE]](**b["fields"]) for b in stored]


@dataclass(frozen=True)
class Shown:
    """What a page shows of a lead's job: its result (None: none yet), when that was computed, whether the
    judgements changed since, the job at work (queued or running, with its progress), the last failure, and
    whether the user started too many jobs to start another now, or when a stale result is computed again."""

    result: dict | None
    computed_at: object
    stale: bool
    running: Job | None
    failed: Job | None
    throttled: bool
    job: Job | None
    freshness_parts: list = field(default_factory=list)  # the result's ``Freshness``, as every page shows it
    next_at: datetime | None = None  # when the stale result is computed again (``jobs.recompute_at``)

    @property
    def recompute_factor(self) -> float:
        return settings.JOB_RECOMPUTE_DUTY_FACTOR

    @property
    def reload_seconds(self) -> int:
        """Seconds until the page reloads by itself: 5 while a job is at work, else just after ``next_at``."""
        if self.running is not None or self.next_at is None:
            return 5
        return max(1, math.ceil((self.next_at - timezone.now()).total_seconds()) + 1)


def shown(asked: Asked) -> Shown:
    result = asked.result
    parts = []
    if result is not None and result.project_id is not None:
        stale = not asked.fresh
        computed_at = result.finished_at
        pending = bool(asked.running or asked.next_at)
        parts = [result_freshness(result.project_id, computed_at=computed_at, stale=stale, running=pending)]
    return Shown(
        result=result.result if result is not None else None,
        computed_at=result.finished_at if result is not None else None,
        stale=result is not None and not asked.fresh,
        running=asked.running,
        failed=asked.failed,
        throttled=asked.throttled,
        job=result,
        freshness_parts=parts,
        next_at=asked.next_at,
    )
