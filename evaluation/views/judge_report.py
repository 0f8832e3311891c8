"""The judge page (leads): one judge's report against the humans, its plots, and the comparison of the
project's judges, computed on a worker (``lead_jobs``): the page shows the last stored report with its time, or
the job at work, and never computes itself."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import render
from django.utils.translation import gettext

from annotator.access import lead_project
from annotator.selectors.judges import judge_of
from config.throttling import job_start_allowed
from evaluation.services.lead_jobs import lead_job_ask, shown
from evaluation.views.judge_plots import alt_test_plot, ppi_plot, reliability_plot
from scoring.judges.alt_test import EPSILON


def _epsilon(request) -> float:
    try:
        value = float(request.GET.get("epsilon", EPSILON))
    except ValueError:
        return EPSILON
    return value if 0 <= value <= 1 else EPSILON


@login_required
def judge_page(request, slug: str, name: str):
    """The judge's figures: alt-test, agreement, calibration, bias, PPI system scores; all judges compared."""
    project = lead_project(request, slug)
    judge = judge_of(project, name)
    if judge is None:
        raise Http404(gettext("no such judge"))
    epsilon = _epsilon(request)
    state = shown(
        lead_job_ask(
            kind="judge_report",
            project=project,
            params={"judge": judge.pk, "epsilon": epsilon},
            user=request.user,
            may_start=job_start_allowed(request),
        )
    )
    context = {"project": project, "judge": judge, "epsilon": epsilon, "shown": state, "report": None}
    if state.result:
        context.update(_figures(project, state.result["report"], epsilon))
        context["comparison"] = state.result["comparison"]
    return render(request, "evaluation/judge_report.html", context)


def _figures(project, report: dict, epsilon: float) -> dict:
    criteria = {c.key: c.label for c in project.criteria.all()}
    calibration = [
        {"key": key, "label": criteria.get(key, key), **c, "plot": reliability_plot(c["bins"])}
        for key, c in report["calibration"].items()
        if c
    ]
    return {
        "report": report,
        "agreement": [{"key": k, "label": criteria.get(k, k), **a} for k, a in report["agreement"].items()],
        "calibration": calibration,
        "verbosity": [{"key": k, "label": criteria.get(k, k), **v} for k, v in report["bias"]["verbosity"].items()],
        "alt_plot": alt_test_plot(report["alt_test"]["per_annotator"], epsilon),
        "ppi_plot": ppi_plot(report["ppi"]["systems"]),
    }
