"""Quality-control pages: the lead's controls, training items and qualification; an annotator's training feedback."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext, ngettext
from django.views.decorators.http import require_POST

from annotator.access import lead_project, own_assignment
from annotator.importers import InputError
from annotator.input_errors import input_error_text
from annotator.models import QUALITY_BOUNDS, QualityItemKind, SourceFilter
from annotator.selectors.manage import dialogue_search
from annotator.selectors.qualification import qualification_results, training_feedback
from annotator.selectors.quality import quality_item_questions, quality_items_of, unmarked_dialogues_page
from annotator.services.qualification import qualification_admit
from annotator.services.quality_items import (
    Expected,
    QualityError,
    quality_assignments_create,
    quality_item_remove,
    quality_item_set,
    quality_items_upload,
    quality_settings_get,
    quality_settings_update,
)


def _number(text, kind, default=None):
    try:
        return kind(text) if text not in (None, "") else default
    except (TypeError, ValueError):
        raise QualityError([f"{text!r} is not a number"]) from None


def _int_or(text, default: int) -> int:
    try:
        return int(text)
    except (TypeError, ValueError):
        return default


@login_required
def training_feedback_page(request, assignment_id: int):
    assignment = own_assignment(request, assignment_id)
    try:
        feedback = training_feedback(assignment=assignment)
    except ValueError:
        return redirect("annotate", assignment_id=assignment.pk)
    return render(
        request,
        "annotator/quality/feedback.html",
        {"assignment": assignment, "project": assignment.dialogue.project, **feedback},
    )


@login_required
def quality_page(request, slug: str, status: int = 200, error: str = ""):
    project = lead_project(request, slug)
    items = quality_items_of(project=project)
    find = dialogue_search(request.GET.get("find", ""))
    return render(
        request,
        "annotator/quality/manage.html",
        {
            "project": project,
            "settings": quality_settings_get(project=project),
            "bounds": QUALITY_BOUNDS,
            "sources": SourceFilter.choices,
            "kinds": QualityItemKind.choices,
            "items": items,
            "find": find,
            "find_query": urlencode({"find": find}) if find else "",
            "dialogues": unmarked_dialogues_page(project=project, contains=find, page=request.GET.get("page")),
            "qualification": qualification_results(project=project),
            "error": error,
        },
        status=status,
    )


@login_required
@require_POST
def quality_settings_save(request, slug: str):
    project = lead_project(request, slug)
    try:
        quality_settings_update(
            project=project,
            control_rate=_number(request.POST.get("control_rate"), float),
            default_tolerance=_number(request.POST.get("default_tolerance"), int),
            pass_mark=_number(request.POST.get("pass_mark"), float),
            too_fast_seconds=_number(request.POST.get("too_fast_seconds"), int),
            source=request.POST.get("source") or None,
            control_accuracy_flag=_number(request.POST.get("control_accuracy_flag"), float),
        )
    except QualityError as exc:
        return quality_page(request, slug, status=400, error=str(exc))
    messages.success(request, gettext("Saved the quality settings."))
    return redirect("quality", slug=slug)


@login_required
def quality_pick(request, slug: str):
    """The "mark a dialogue" form: on to the page of the chosen dialogue."""
    lead_project(request, slug)
    return redirect("quality_item", slug=slug, dialogue_id=_int_or(request.GET.get("dialogue"), 0))


@login_required
def quality_item_edit(request, slug: str, dialogue_id: int):
    project = lead_project(request, slug)
    if not project.dialogues.filter(pk=dialogue_id).exists():
        raise Http404("no such dialogue")
    form = quality_item_questions(project=project, dialogue_id=dialogue_id)
    error = ""
    if request.method == "POST":
        tolerances = {c["criterion"].key: request.POST.get(f"t:{c['criterion'].key}") for c in form["criteria"]}
        answers = []
        try:
            for name, value in request.POST.items():
                if name.startswith("e:") and value:
                    _e, key, unit = name.split(":", 2)
                    answers.append(Expected(key, int(unit), value, _number(tolerances.get(key), int, 0)))
            quality_item_set(
                project=project,
                dialogue_id=dialogue_id,
                kind=request.POST.get("kind", ""),
                answers=answers,
                explanation=request.POST.get("explanation", ""),
            )
        except (QualityError, ValueError) as exc:
            error = str(exc)
        else:
            messages.success(
                request, gettext("Saved the expected answers of %(form)s.") % {"form": form["dialogue"].external_id}
            )
            return redirect("quality", slug=slug)
    return render(
        request,
        "annotator/quality/item_edit.html",
        {"project": project, "kinds": QualityItemKind.choices, "error": error, **form},
        status=400 if error else 200,
    )


@login_required
@require_POST
def quality_item_delete(request, slug: str, dialogue_id: int):
    project = lead_project(request, slug)
    if not quality_item_remove(project=project, dialogue_id=dialogue_id):  # not an item of this project: nothing done
        raise Http404(gettext("not a control or training item"))
    messages.success(request, gettext("The dialogue is an ordinary item again."))
    return redirect("quality", slug=slug)


@login_required
@require_POST
def quality_upload(request, slug: str):
    project = lead_project(request, slug)
    uploaded = request.FILES.get("file")
    if uploaded is None:
        return quality_page(request, slug, status=400, error="Choose a file.")
    try:
        items = quality_items_upload(
            project=project,
            uploaded=uploaded,
            kind=request.POST.get("kind", ""),
            fmt=request.POST.get("format") or "auto",
            tolerance=_number(request.POST.get("tolerance"), int),
            explanation=request.POST.get("explanation", ""),
        )
    except (InputError, QualityError) as exc:
        reason = input_error_text(exc) if isinstance(exc, InputError) else str(exc)
        return quality_page(
            request, slug, status=400, error=gettext("Nothing was imported. %(error)s") % {"error": reason}
        )
    messages.success(
        request,
        ngettext(
            "Imported %(len)s item with its expected answers from %(name)s.",
            "Imported %(len)s items with their expected answers from %(name)s.",
            len(items),
        )
        % {"len": len(items), "name": uploaded.name},
    )
    return redirect("quality", slug=slug)


@login_required
@require_POST
def quality_mix(request, slug: str):
    project = lead_project(request, slug)
    report = quality_assignments_create(project=project, seed=_int_or(request.POST.get("seed"), 0))
    messages.success(request, report.summary)
    return redirect("quality", slug=slug)


@login_required
@require_POST
def qualification_admit_page(request, slug: str):
    project = lead_project(request, slug)
    username = request.POST.get("annotator", "")
    try:
        qualification_admit(
            project=project, username=username, admitted_by=request.user, note=request.POST.get("note", "")
        )
    except ValueError as exc:
        return quality_page(request, slug, status=400, error=str(exc))
    messages.success(request, gettext("Let %(username)s into the real queue.") % {"username": username})
    return redirect("quality", slug=slug)
