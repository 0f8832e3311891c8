"""The study report: its page for leads and its downloads as Markdown, LaTeX and HTML."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy

from annotator.access import lead_project
from annotator.filenames import attachment
from annotator.wording import wording_language
from evaluation.services.report.content import LANGUAGE_NAMES, REPORT_LANGUAGES, project_report
from evaluation.services.report.render import FORMATS, report_outline, report_render

FORMAT_LABELS = {
    "md": gettext_lazy("Markdown (.md)"),
    "tex": gettext_lazy("LaTeX (.tex)"),
    "html": gettext_lazy("HTML (.html)"),
}


def _language(request) -> str:
    """The report's language: the one asked for, else the page's."""
    asked = request.GET.get("language", "")
    return asked if asked in REPORT_LANGUAGES else wording_language()


@login_required
def report_page(request, slug: str):
    project = lead_project(request, slug)
    language = _language(request)
    report = project_report(project=project, language=language)
    blocks = report_outline(report)
    return render(
        request,
        "evaluation/report.html",
        {
            "project": project,
            "report": report,
            "blocks": blocks,
            "language": language,
            "languages": [(code, LANGUAGE_NAMES[code]) for code in REPORT_LANGUAGES],
            "formats": list(FORMAT_LABELS.items()),
        },
    )


@login_required
def report_download(request, slug: str, fmt: str):
    project = lead_project(request, slug)
    if fmt not in FORMATS:
        raise Http404
    language = _language(request)
    report = project_report(project=project, language=language)
    response = HttpResponse(report_render(report, fmt), content_type=f"{FORMATS[fmt]}; charset=utf-8")
    response["Content-Disposition"] = attachment(f"{project.slug}-report-{language}.{fmt}")
    return response
