"""The lead's judges page: the project's automatic raters, a new one from a file or a run, and removal."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_POST

from annotator.access import lead_project
from annotator.input_errors import input_error_text
from annotator.judges.selectors import judges_of
from annotator.judges.services.labels import JUDGE_FORMATS, judge_import_upload, judge_remove
from annotator.models import JudgeKind
from evaluation.judges.services.from_runs import judge_from_run
from evaluation.models import Run, RunKind, RunStatus
from scoring.errors import InputError

FORMAT_LABELS = {
    "auto": gettext_lazy("Detect from the file"),
    "stc3": gettext_lazy("STC-3 / DialEval JSON"),
    "dbdc": gettext_lazy("DBDC3 *.log.json (a file or a zip)"),
    "pairwise": gettext_lazy("Pairwise JSON lines"),
    "labels": gettext_lazy("JSON lines of labels"),
}


def _render(request, project, *, error: str = "", given: dict | None = None, status: int = 200):
    runs = Run.objects.filter(project=project, kind__in=[RunKind.STC3, RunKind.DBDC], status=RunStatus.SCORED)
    return render(
        request,
        "evaluation/judges/list.html",
        {
            "project": project,
            "judges": judges_of(project),
            "runs": runs.only("pk", "name").order_by("name"),
            "formats": [(fmt, FORMAT_LABELS.get(fmt, fmt)) for fmt in JUDGE_FORMATS],
            "error": error,
            "given": given or {},
            "JudgeKind": JudgeKind,
        },
        status=status,
    )


@login_required
def judges_page(request, slug: str):
    """The list (GET); a new judge (POST: a file of labels, or a run)."""
    project = lead_project(request, slug)
    if request.method != "POST":
        return _render(request, project)
    given = {
        "name": request.POST.get("name", "").strip(),
        "description": request.POST.get("description", ""),
        "format": request.POST.get("format", "auto"),
        "run": request.POST.get("run", ""),
    }
    uploaded = request.FILES.get("file")
    try:
        if given["run"]:
            run = Run.objects.filter(project=project, pk=given["run"]).first() if given["run"].isdigit() else None
            if run is None:
                raise Http404("no such run")
            judge = judge_from_run(
                run=run, name=given["name"], description=given["description"], created_by=request.user
            )
        elif uploaded is not None:
            fmt = given["format"] if given["format"] in JUDGE_FORMATS else "auto"
            judge = judge_import_upload(
                project=project,
                uploaded=uploaded,
                name=given["name"],
                fmt=fmt,
                description=given["description"],
                created_by=request.user,
            )
        else:
            error = gettext("Choose the judge's file, or a run to register as the judge.")
            return _render(request, project, error=error, given=given, status=400)
    except InputError as exc:
        error = gettext("Nothing was imported: %(error)s") % {"error": input_error_text(exc)}
        return _render(request, project, error=error, given=given, status=400)
    messages.success(
        request,
        gettext("Added judge %(name)s with %(n)s labels.") % {"name": judge.name, "n": judge.labels.count()},
    )
    return redirect("lead_judges", slug=slug)


@login_required
@require_POST
def judge_delete(request, slug: str, judge_id: int):
    project = lead_project(request, slug)
    judge = judges_of(project).filter(pk=judge_id).first()
    if judge is None:
        raise Http404("no such judge")
    judge_remove(judge=judge)
    messages.success(request, gettext("Removed judge %(name)s and its labels.") % {"name": judge.name})
    return redirect("lead_judges", slug=slug)
