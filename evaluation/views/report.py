"""The study report: its page for leads and its downloads as Markdown, LaTeX and HTML, computed on a worker
(``lead_jobs``): the page shows the last stored report with its time, or the job at work, and never computes
itself; a download serves the stored rendering."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext_lazy

from annotator.access import lead_project
from annotator.filenames import attachment
from annotator.wording import wording_language
from config.throttling import job_start_allowed
from evaluation.services.lead_jobs import blocks_read, lead_job_ask, shown
from evaluation.services.report.content import LANGUAGE_NAMES, REPORT_LANGUAGES
from evaluation.services.report.render import FORMATS

FORMAT_LABELS = {
    "md": gettext_lazy("Markdown (.md)"),
    "tex": gettext_lazy("LaTeX (.tex)"),
    "html": gettext_lazy("HTML (.html)"),
}


def _language(request) -> str:
    """The report's language: the one asked for, else the page's."""
    asked = request.GET.get("language", "")
    return asked if asked in REPORT_LANGUAGES else wording_language()


def _shown(request, project, language: str):
    return shown(
        lead_job_ask(
            kind="study_report",
            project=project,
            params={"language": language},
            user=request.user,
            may_start=job_start_allowed(request),
        )
    )


@login_required
def report_page(request, slug: str):
    project = lead_project(request, slug)
    language = _language(request)
    state = _shown(request, project, language)
    stored = state.result or {}
    return render(
        request,
        "evaluation/report.html",
        {
            "project": project,
            "shown": state,
            "status": stored.get("status"),
            "blocks": blocks_read(stored["blocks"]) if stored else [],
            "language": language,
            "languages": [(code, LANGUAGE_NAMES[code]) for code in REPORT_LANGUAGES],
            "formats": list(FORMAT_LABELS.items()) if stored else [],
        },
    )


@login_required
def report_download(request, slug: str, fmt: str):
    """The stored report in ``fmt``; while none is stored, the report's page (which says what is under way)."""
    project = lead_project(request, slug)
    if fmt not in FORMATS:
        raise Http404
    language = _language(request)
    state = _shown(request, project, language)
    if not state.result:
        return redirect(f"{reverse('report', args=[slug])}?language={language}")
    response = HttpResponse(state.result["renders"][fmt], content_type=f"{FORMATS[fmt]}; charset=utf-8")
    response["Content-Disposition"] = attachment(f"{project.slug}-report-{language}.{fmt}")
    return response
