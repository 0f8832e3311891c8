"""The export page (leads): a gold export, the Parquet dataset or the project archive, written by a worker
(``lead_jobs``). The page says how far the job is and links the file once it is written; the download itself is
the API's URL, which serves the stored file."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET

from annotator.access import lead_project
from annotator.exporters import AGGREGATIONS, EXPORT_FORMATS, ExportFormatMismatch, export_format_check
from annotator.exporters.parquet import ParquetUnavailable, parquet_check
from config.throttling import job_start_allowed
from evaluation.services.lead_jobs import lead_job_ask, shown


@login_required
@require_GET
def export_page(request, slug: str):
    project = lead_project(request, slug)
    fmt = request.GET.get("format", "")
    if fmt == "archive":
        kind, params, download = "archive", {}, reverse("api-archive", args=[slug])
    else:
        if fmt not in EXPORT_FORMATS and fmt != "parquet":
            raise Http404
        aggregation = request.GET.get("aggregation") or "votes"
        if aggregation not in AGGREGATIONS:
            raise Http404
        kind, params = "export", {"format": fmt, "aggregation": aggregation}
        download = f"{reverse('api-export', args=[slug])}?{urlencode(params)}"
    problem = ""
    try:
        if fmt == "parquet":
            parquet_check()
        elif kind == "export":
            export_format_check(project=project, fmt=fmt)
    except (ParquetUnavailable, ExportFormatMismatch) as exc:
        problem = str(exc)
    state = None
    if not problem:
        state = shown(
            lead_job_ask(
                kind=kind, project=project, params=params, user=request.user, may_start=job_start_allowed(request)
            )
        )
        problem = (state.result or {}).get("problem", "")
    return render(
        request,
        "evaluation/export.html",
        {
            "project": project,
            "format": fmt,
            "params": params,
            "shown": state,
            "problem": problem,
            # a file job stores no JSON result: its file is what it computed
            "download": download if state is not None and state.job is not None and state.job.result_file else "",
        },
    )
