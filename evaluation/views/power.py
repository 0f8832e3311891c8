"""The power-analysis helper's page (the dashboard's form leads here): annotators per item needed, by simulation
from the labels collected so far (``evaluation.services.power``), computed on a worker (``lead_jobs``): the page
shows the last result for the asked parameters with its time, or the job at work, and never computes itself."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.http import require_GET

from annotator.access import lead_project
from config.throttling import job_start_allowed
from evaluation.services.lead_jobs import lead_job_ask, shown
from evaluation.services.power import TARGETS


def _number(text: str | None, default, kind=float):
    try:
        return kind(text) if text not in (None, "") else default
    except ValueError:
        return default


@login_required
@require_GET
def power_page(request, slug: str):
    project = lead_project(request, slug)
    q = request.GET
    asked = {
        "criterion": q.get("criterion") or None,
        "target": q.get("target") if q.get("target") in TARGETS else "alpha_width",
        "width": _number(q.get("width"), 0.1),
        "power": _number(q.get("power"), 0.8),
        "effect": _number(q.get("effect"), None),
        "system_field": q.get("system_field") or "system",
        "k_max": min(max(_number(q.get("k_max"), 20, int), 2), 50),
        "delta": min(max(_number(q.get("delta"), 0.02), 0.0001), 0.5),
    }
    state = shown(
        lead_job_ask(
            kind="power", project=project, params=asked, user=request.user, may_start=job_start_allowed(request)
        )
    )
    stored = state.result or {}
    return render(
        request,
        "evaluation/power.html",
        {
            "project": project,
            "asked": asked,
            "shown": state,
            "result": stored.get("power"),
            "problem": stored.get("problem", ""),
            "criteria": list(project.criteria.order_by("position").values_list("key", flat=True)),
        },
    )
