"""Run upload and the leaderboard (leads)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_POST

from annotator.access import lead_project
from annotator.exporters.tables import DownloadTable, table_download
from annotator.filenames import attachment
from annotator.input_errors import input_error_text
from annotator.presets import RunScheme
from annotator.presets.of_project import project_scheme
from evaluation.models import Run, RunStatus
from evaluation.runs.selectors.leaderboard import ALL, leaderboard
from evaluation.runs.selectors.scores_csv import per_dialogue_csv_chunks
from evaluation.runs.services.upload import comparisons_request, run_delete, run_rescore, run_upload
from evaluation.services.freshness import project_freshness
from scoring.errors import InputError


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        single = super().clean
        return [single(d, initial) for d in data] if isinstance(data, (list, tuple)) else [single(data, initial)]


# The DBDC3 evaluation script's -t option, in its own words (prog/eval/README.md of dbd-challenge/dbdc3).
THRESHOLD_HELP = gettext_lazy(
    "Gold label threshold t, the DBDC3 evaluation script's -t: a turn's gold label is its most frequent "
    "label (NB, PB or B; the merged labels for the lenient metrics) if that label's share of the "
    "annotators is at least t, otherwise NB. 0 (the default) is the plain majority."
)


class RunUploadForm(forms.Form):
    """The upload form with only the options that apply to the project's run scheme."""

    name = forms.CharField(max_length=200, help_text=gettext_lazy("Uploading a name again replaces that run."))
    files = MultipleFileField(
        help_text=gettext_lazy("STC-3 submission JSON, or DBDC *.labels.json files or a zip of them.")
    )
    alpha = forms.FloatField(
        min_value=0, max_value=1, initial=0.5, help_text=gettext_lazy("Customer weight for nuggets.")
    )
    threshold = forms.FloatField(min_value=0, max_value=1, initial=0.0, help_text=THRESHOLD_HELP)
    strict = forms.BooleanField(required=False, help_text=gettext_lazy("Every gold dialogue must be in the run."))

    def __init__(self, *args, scheme: RunScheme, **kwargs):
        super().__init__(*args, **kwargs)
        for option in ("alpha", "threshold", "strict"):
            if option not in scheme.options:
                del self.fields[option]
        self.fields["files"].help_text = gettext(scheme.files_help)


def _say_upload(request, run: Run) -> None:
    """What became of an uploaded (or rescored) run: scored or rejected already (tasks that run in the request,
    the embedded default), or waiting for a worker."""
    run.refresh_from_db(fields=["status", "error"])
    if run.status == RunStatus.FAILED:
        messages.error(
            request,
            gettext("Run %(name)s was rejected (%(error)s). Upload a corrected file, and delete this run.")
            % {"name": run.name, "error": run.error},
        )
    elif run.status == RunStatus.SCORED:
        messages.success(request, gettext("Run %(name)s was uploaded and scored.") % {"name": run.name})
    else:
        messages.success(
            request,
            gettext("Run %(name)s was uploaded and waits for a worker to score it; this page shows it once scored.")
            % {"name": run.name},
        )


@login_required
def runs_page(request, slug: str):
    project = lead_project(request, slug)
    spec = project_scheme(project)
    uploads = spec.run_scheme is not None and spec.run_scheme.uploads
    form = RunUploadForm(request.POST or None, request.FILES or None, scheme=spec.run_scheme) if uploads else None
    if request.method == "POST" and form is not None and form.is_valid():
        data = form.cleaned_data
        options = {k: data[k] for k in spec.run_scheme.options}
        try:
            run = run_upload(
                project=project, name=data["name"], files=[(f.name, f.read()) for f in data["files"]], options=options
            )
        except InputError as exc:
            form.add_error(None, input_error_text(exc))
        else:
            _say_upload(request, run)
            return redirect("leaderboard", slug=slug)
    if request.method == "GET":
        download = table_download(request, prefix=project.slug, tables=[_leaderboard_table(project, request)])
        if download is not None:
            return download
    board = leaderboard(
        project=project,
        metric=request.GET.get("metric"),
        group=request.GET.get("group"),
        sort=request.GET.get("sort"),
        order=request.GET.get("order"),
    )
    context = {
        "project": project, "form": form, "preset": spec, **board,
        "freshness_parts": project_freshness(project=project),
    }  # fmt: skip
    return render(
        request, "evaluation/runs/leaderboard.html", context, status=400 if form is not None and form.errors else 200
    )


def _leaderboard_table(project, request) -> DownloadTable:
    """The leaderboard as a download: every run with every metric of the preset (not only the group shown),
    in the page's order."""
    board = leaderboard(project=project, group=ALL, sort=request.GET.get("sort"), order=request.GET.get("order"))
    keys = [c.key for c in board["columns"]]

    def rows():
        for run in board["runs"]:
            yield {
                "run": run.name,
                "status": run.status_label,
                "stale": run.stale_reason or "",
                "error": run.error,
                **dict(zip(keys, run.cells)),
            }

    return DownloadTable("leaderboard", ("run", "status", "stale", "error", *keys), rows)


@login_required
@require_POST
def run_remove(request, slug: str, run_id: int):
    """Delete a run (leads); the comparisons of the others are recomputed by a worker."""
    project = lead_project(request, slug)
    try:
        name = run_delete(project=project, run_id=run_id)
    except Run.DoesNotExist:
        raise Http404("no such run") from None
    messages.success(
        request,
        gettext("Deleted run %(name)s; the significance tests of the other runs are being recomputed.")
        % {"name": name},
    )
    return redirect("leaderboard", slug=slug)


@login_required
def run_per_dialogue(request, slug: str, run_id: int):
    run = get_object_or_404(Run.objects.only("pk", "name"), project=lead_project(request, slug), pk=run_id)
    response = StreamingHttpResponse(per_dialogue_csv_chunks(run), content_type="text/csv")
    response["Content-Disposition"] = attachment(f"{run.name}-per-dialogue.csv")
    return response


@login_required
@require_POST
def rescore(request, slug: str, run_id: int):
    """ "Score again": a run still waiting goes to the workers again; a rejected one is scored afresh."""
    project = lead_project(request, slug)
    try:
        run = run_rescore(project=project, run_id=run_id)
    except Run.DoesNotExist:
        raise Http404("no such run") from None
    _say_upload(request, run)
    return redirect("leaderboard", slug=slug)


@login_required
@require_POST
def refresh_comparisons(request, slug: str):
    project = lead_project(request, slug)
    if comparisons_request(project.pk):
        messages.success(request, gettext("Significance tests scheduled."))
    else:
        messages.error(request, gettext("The workers cannot be reached right now."))
    return redirect("leaderboard", slug=slug)


@login_required
@require_POST
def score_reorderings(request, slug: str):
    """Coherence projects: score the annotators' submitted reorderings as a run."""
    from evaluation.runs.services.scoring import run_score

    project = lead_project(request, slug)
    try:
        run = run_score(project=project)
    except InputError as exc:
        messages.error(request, input_error_text(exc))
    else:
        messages.success(request, gettext("Scored %(scores)s reorderings.") % {"scores": run.scores["n_reorderings"]})
    return redirect("leaderboard", slug=slug)
