"""The judge page (leads): one judge's report against the humans, its plots, and the comparison of the
project's judges."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import render
from django.utils.translation import gettext

from annotator.access import lead_project
from annotator.selectors.judges import judge_of, judges_of
from evaluation.services.judges.cached import judge_report_cached, judges_comparison
from evaluation.services.judges.wording import criterion_sentences, margin_sentence, verdict_sentences
from evaluation.views.judge_plots import alt_test_plot, ppi_plot, reliability_plot


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
    report = judge_report_cached(project, judge, epsilon)
    criteria = {c.key: c.label for c in project.criteria.all()}
    calibration = [
        {"key": key, "label": criteria.get(key, key), **c, "plot": reliability_plot(c["bins"])}
        for key, c in report["calibration"].items()
        if c
    ]
    return render(
        request,
        "evaluation/judge_report.html",
        {
            "project": project,
            "judge": judge,
            "epsilon": report["alt_test"]["epsilon"],
            "epsilon_given": epsilon is not None,
            "report": report,
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
            "comparison": judges_comparison(project, judges_of(project), epsilon, references=report),
        },
    )
