"""The scheme page (leads): the project's criteria edited one at a time (add, edit, reorder, remove) with a preview
of the questions as annotators see them, a scheme file uploaded in place of the scheme, and the scheme downloaded
as a file. Every change goes through ``annotator.services.schemes``, which refuses what would reinterpret
stored answers."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext

from annotator.access import lead_project
from annotator.filenames import attachment
from annotator.input_errors import input_error_text
from annotator.presets.document import scheme_yaml
from annotator.scheme_forms import CriterionForm, SchemeFileForm
from annotator.selectors.annotation import scheme_preview
from annotator.services.schemes import (
    SchemeChangeRefused,
    scheme_criterion_move,
    scheme_criterion_remove,
    scheme_criterion_save,
    scheme_export,
    scheme_file_apply,
)
from annotator.wording import scheme_label
from scoring.errors import InputError

DOWNLOADS = {"yaml": "application/yaml", "json": "application/json"}


def _download(project, fmt: str) -> HttpResponse:
    document = scheme_export(project=project)
    text = scheme_yaml(document) if fmt == "yaml" else json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    response = HttpResponse(text.encode("utf-8"), content_type=f"{DOWNLOADS[fmt]}; charset=utf-8")
    response["Content-Disposition"] = attachment(f"{project.slug}-scheme.{fmt}")
    return response


def _act(request, project, action: str):
    """Carry out the posted ``action``; the form with its errors when it is not valid, else None."""
    post = request.POST
    if action == "upload":
        form = SchemeFileForm(post, request.FILES)
        if not form.is_valid():
            return form
        upload = form.cleaned_data["file"]
        scheme_file_apply(project=project, raw=upload.read(), name=upload.name)
        messages.success(request, gettext("The project follows the scheme of %(name)s now.") % {"name": upload.name})
    elif action in ("save", "add"):
        form = CriterionForm(post, prefix=post.get("form_prefix") or None)
        if not form.is_valid():
            return form
        replacing = post.get("replacing") if action == "save" else None
        old = next((c for c in scheme_export(project=project)["criteria"] if c["key"] == replacing), None)
        scheme_criterion_save(project=project, criterion=form.document(old), replacing=replacing)
        messages.success(request, gettext("Saved criterion %(key)s.") % {"key": form.cleaned_data["key"]})
    elif action in ("up", "down"):
        scheme_criterion_move(project=project, key=post.get("key", ""), offset=-1 if action == "up" else 1)
    elif action == "remove":
        scheme_criterion_remove(project=project, key=post.get("key", ""))
        messages.success(request, gettext("Removed criterion %(key)s.") % {"key": post.get("key", "")})
    return None


@login_required
def scheme_page(request, slug: str):
    project = lead_project(request, slug)
    if request.GET.get("download") in DOWNLOADS:
        return _download(project, request.GET["download"])
    error, invalid = "", None
    if request.method == "POST":
        action = request.POST.get("action", "")
        try:
            invalid = _act(request, project, action)
        except (InputError, SchemeChangeRefused, ValueError) as exc:
            error = input_error_text(exc) if isinstance(exc, InputError) else str(exc)
        if not error and invalid is None:
            return redirect("lead_scheme", slug=slug)
        project.refresh_from_db()
    document = scheme_export(project=project)
    criteria = [
        {"document": c, "form": CriterionForm(initial=CriterionForm.initial_of(c), prefix=f"c{i}")}
        for i, c in enumerate(document["criteria"])
    ]
    posted_prefix = request.POST.get("form_prefix") if invalid is not None else None
    for row in criteria:
        if posted_prefix and row["form"].prefix == posted_prefix:
            row["form"] = invalid
    add_form = invalid if isinstance(invalid, CriterionForm) and posted_prefix == "new" else None
    context = {
        "project": project,
        "scheme_label": scheme_label(project),
        "criteria": criteria,
        "add_form": add_form or CriterionForm(prefix="new", initial={"level": "nominal", "unit": "dialogue"}),
        "file_form": invalid if isinstance(invalid, SchemeFileForm) else SchemeFileForm(),
        "preview": scheme_preview(project),
        "error": error,
        "missing": (),
    }
    status = 400 if error or invalid is not None else 200
    return render(request, "annotator/scheme.html", context, status=status)
