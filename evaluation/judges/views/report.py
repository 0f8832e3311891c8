"""The judge page (leads): one judge's report against the humans, its plots, and the comparison of the
project's judges, computed on a worker (``lead_jobs``): the page shows the last stored report with its time, or
the job at work, and never computes itself."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import render
from django.utils.translation import gettext

from annotator.access import lead_project
from annotator.judges.selectors import judge_of
from config.throttling import job_start_allowed
from evaluation.judges.services.wording import criterion_sentences, margin_sentence, verdict_sentences
from evaluation.judges.views.plots import alt_test_plot, ppi_plot, reliability_plot
from evaluation.services.lead_jobs import lead_job_ask, shown


def _epsilon(request) -> float | None:
    """The margin given in the page's field; None (from who annotated) when absent or not a number in [0, 1]."""
    try:
        value = float(request.GET["epsilon"])
    except (KeyError, ValueError):
        return None
    return value if 0 <= value <= 1 else None


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
    context = {
        "project": project,
        "judge": judge,
        "epsilon": epsilon if epsilon is not None else "",
        "epsilon_given": epsilon is not None,
        "shown": state,
        "report": None,
    }
    if state.result:
        context.update(_figures(project, state.result["report"]))
        context["comparison"] = state.result["comparison"]
    return render(request, "evaluation/judges/report.html", context)


def _figures(project, report: dict) -> dict:
    criteria = {c.key: c.label for c in project.criteria.all()}
    calibration = [
        {"key": key, "label": criteria.get(key, key), **c, "plot": reliability_plot(c["bins"])}
        for key, c in report["calibration"].items()
        if c
    ]
    return {
        "report": report,
        "epsilon": report["alt_test"]["epsilon"],
        "verdict_head": verdict_sentences(report["alt_test"])[0],
        "margin_text": margin_sentence(report["alt_test"]["margin"]),
        "criterion_verdicts": [
            {"key": key, "label": criteria.get(key, key), **c, "sentences": criterion_sentences(key, c)}
            for key, c in report["alt_test"]["criteria"].items()
            if "verdict" in c
        ],
        "agreement": [{"key": k, "label": criteria.get(k, k), **a} for k, a in report["agreement"].items()],
        "calibration": calibration,
        "verbosity": [{"key": k, "label": criteria.get(k, k), **v} for k, v in report["bias"]["verbosity"].items()],
        "alt_plot": alt_test_plot(report["alt_test"]["per_annotator"], report["alt_test"]["epsilon"]),
        "ppi_plot": ppi_plot(report["ppi"]["systems"]),
    }
