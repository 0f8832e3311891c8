"""Downloads of the data behind each agreement figure, as CSV."""

from __future__ import annotations

import csv

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse

from annotator.access import lead_project
from evaluation.models import ProjectStatistics
from evaluation.selectors.agreement_data import agreement_csv_rows


@login_required
def agreement_csv(request, slug: str):
    """``?block=KEY&table=categories|coincidences`` (a block of ``agreement_blocks``), or
    ``?block=CRITERION&table=cohen`` (the pairwise kappas with their intervals)."""
    project = lead_project(request, slug)
    stored = ProjectStatistics.objects.filter(project=project).first()
    key, table = request.GET.get("block", ""), request.GET.get("table", "")
    rows = agreement_csv_rows(stored.payload, list(project.criteria.all()), key, table) if stored else None
    if rows is None:
        raise Http404("no such agreement table")
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    name = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in f"{project.slug}-{key}-{table}")
    response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
    writer = csv.writer(response)
    writer.writerows(rows)
    return response
