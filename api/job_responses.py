"""Answers of the endpoints whose work runs as a job (``evaluation.services.lead_jobs``): 200 with the stored
result when it is current, else 202 with the job at work (``Retry-After``: ask again then; the same URL answers
200 once it is done; also while a stale result waits to be computed again, ``next_at``, see
``annotator.services.jobs.recompute_at``), 429 when the user started too many jobs in the last minute and none is
at work, or the problem the job reported (400)."""

from __future__ import annotations

import math

from django.http import FileResponse, Http404
from django.urls import reverse
from django.utils import timezone
from rest_framework import status
from rest_framework.response import Response

from annotator.models import Job
from annotator.services.jobs import Asked
from annotator.templatetags.jobs import job_outcome
from evaluation.services.lead_jobs import job_file_path

RETRY_AFTER = "5"


def job_data(job: Job | None) -> dict | None:
    """A job as the API shows it."""
    if job is None:
        return None
    return {
        "id": job.pk,
        "state": job.state,
        "queued_at": job.queued_at,
        "started_at": job.started_at,
        "finished_at": job.finished_at,
        "progress": {"done": job.progress_done, "total": job.progress_total},
        "error": job_outcome(job) if job.state == "failed" else "",
    }


def job_pending_response(asked: Asked) -> Response | None:
    """The answer while no current result is stored (None when one is: the caller answers it)."""
    if asked.fresh and asked.result is not None:
        return None
    body = {
        "job": job_data(asked.running),
        "last_failure": job_data(asked.failed),
        "stored": job_data(asked.result),
        "status_url": reverse("api-job", args=[asked.running.project.slug, asked.running.pk])
        if asked.running
        else None,
    }
    if asked.running is not None:
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Retry-After": RETRY_AFTER})
    if asked.next_at is not None:  # stale, computed again at next_at (spaced while the judgements keep changing)
        body["next_at"] = asked.next_at
        wait = max(1, math.ceil((asked.next_at - timezone.now()).total_seconds()))
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Retry-After": str(wait)})
    if asked.throttled:
        return Response(body, status=status.HTTP_429_TOO_MANY_REQUESTS, headers={"Retry-After": "60"})
    return Response(body, status=status.HTTP_503_SERVICE_UNAVAILABLE, headers={"Retry-After": RETRY_AFTER})


def job_file_response(job: Job, *, content_type: str) -> FileResponse:
    """The file a finished job wrote, as a download (sent by the server from the file: nothing computed)."""
    path = job_file_path(job)
    if path is None:
        raise Http404("the stored file is gone")
    return FileResponse(open(path, "rb"), as_attachment=True, filename=job.result_name, content_type=content_type)
