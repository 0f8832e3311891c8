"""The lead's exclusions and source filter (from the dashboard's reliability panel), and adjudication of
disputed units (leads and adjudicators). Each change asks the workers to recompute the statistics."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from annotator.access import adjudicator_project, lead_project
from annotator.selectors.adjudication import adjudicated_labels
from annotator.services.adjudication import AdjudicationError, adjudication_record, adjudication_remove
from annotator.services.exclusions import ExclusionError, annotator_exclude, annotator_include
from annotator.services.quality_items import QualityError, quality_settings_update
from evaluation.selectors.adjudication import adjudication_unit, disputed_with_adjudications
from evaluation.services.model_reliability import model_reliability_request


def _back_to_reliability(slug: str):
    return redirect(reverse("dashboard", kwargs={"slug": slug}) + "#reliability")


@login_required
@require_POST
def exclude(request, slug: str):
    project = lead_project(request, slug)
    username = request.POST.get("annotator", "")
    try:
        annotator_exclude(
            project=project, username=username, reason=request.POST.get("reason", ""), excluded_by=request.user
        )
    except ExclusionError as exc:
        messages.error(request, str(exc))
        return _back_to_reliability(slug)
    messages.success(
        request,
        gettext("Excluded %(username)s from gold data and statistics; they are recomputing.") % {"username": username},
    )
    return _back_to_reliability(slug)


@login_required
@require_POST
def include(request, slug: str):
    project = lead_project(request, slug)
    username = request.POST.get("annotator", "")
    try:
        lifted = annotator_include(project=project, username=username)
    except ExclusionError as exc:
        messages.error(request, str(exc))
        return _back_to_reliability(slug)
    if not lifted:
        messages.info(request, gettext("%(username)s was not excluded: nothing changed.") % {"username": username})
        return _back_to_reliability(slug)
    messages.success(
        request, gettext("%(username)s counts again; the statistics are recomputing.") % {"username": username}
    )
    return _back_to_reliability(slug)


@login_required
@require_POST
def estimate_models(request, slug: str):
    """The lead asks for the latent-truth models' estimate now (in-process set-ups estimate only on request)."""
    project = lead_project(request, slug)
    model_reliability_request(project_id=project.pk)
    messages.success(request, gettext("The models' reliability estimate was asked for; the panel shows it once done."))
    return _back_to_reliability(slug)


@login_required
@require_POST
def source(request, slug: str):
    project = lead_project(request, slug)
    try:
        quality_settings_update(project=project, source=request.POST.get("source", ""))
    except QualityError as exc:
        messages.error(request, str(exc))
        return _back_to_reliability(slug)
    messages.success(request, gettext("Changed whose judgements count; the statistics are recomputing."))
    return _back_to_reliability(slug)


@login_required
def adjudication(request, slug: str):
    project = adjudicator_project(request, slug)
    return render(
        request,
        "evaluation/adjudication.html",
        {"project": project, **disputed_with_adjudications(project=project)},
    )


@login_required
def adjudicate(request, slug: str, dialogue_id: int, criterion: str, unit: int):
    project = adjudicator_project(request, slug)
    if "\x00" in criterion or unit > 2**31 - 1:
        raise Http404("no such unit")
    error = ""
    if request.method == "POST":
        try:
            if request.POST.get("remove"):
                adjudication_remove(project=project, dialogue_id=dialogue_id, criterion=criterion, unit=unit)
            else:
                adjudication_record(
                    project=project,
                    dialogue_id=dialogue_id,
                    criterion=criterion,
                    unit=unit,
                    value=request.POST.get("value", ""),
                    note=request.POST.get("note", ""),
                    adjudicator=request.user,
                )
        except AdjudicationError as exc:
            error = str(exc)
        else:
            messages.success(
                request,
                gettext("Saved the final label of %(criterion)s unit %(unit)s.")
                % {"criterion": criterion, "unit": unit},
            )
            return redirect("adjudication", slug=slug)
    context = adjudication_unit(project=project, dialogue_id=dialogue_id, criterion=criterion, unit=unit)
    current = adjudicated_labels(project=project).get((criterion, dialogue_id, unit))
    return render(
        request,
        "evaluation/adjudicate.html",
        {"project": project, "current": current, "error": error, **context},
        status=400 if error else 200,
    )
