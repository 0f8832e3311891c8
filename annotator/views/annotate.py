"""The annotator's pages: the queue, the annotation page, autosave and submission."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from annotator.access import member_project, own_assignment
from annotator.models import Assignment, AssignmentStatus
from annotator.selectors.annotation import annotation_page
from annotator.selectors.queue import annotator_queue
from annotator.services.judgements import Given, SubmissionError, judgements_save
from annotator.services.qualification import is_training


@login_required
def queue(request, slug: str):
    project, _membership = member_project(request, slug)
    return render(
        request, "annotator/queue.html", {"project": project, **annotator_queue(project=project, user=request.user)}
    )


@login_required
def annotate(request, assignment_id: int, errors: list[str] | None = None):
    assignment = own_assignment(request, assignment_id)
    page = annotation_page(assignment)
    neighbours = annotator_queue(project=assignment.dialogue.project, user=request.user)
    return render(
        request,
        "annotator/annotate.html",
        {
            "page": page,
            "assignment": assignment,
            "project": assignment.dialogue.project,
            "errors": errors or [],
            "read_only": assignment.status == AssignmentStatus.SUBMITTED,
            "queue": neighbours,
        },
        status=400 if errors else 200,
    )


def _given_from(data) -> tuple[list[Given], list[int] | None, int]:
    """Judgements ``j:KEY:UNIT`` -> value, the reordering (JSON list) and seconds from a form or JSON body."""
    values = []
    for name, value in data.items():
        if name.startswith("j:") and value not in ("", None):
            try:
                _j, key, unit = name.split(":", 2)
                values.append(Given(key, int(unit), str(value)))
            except ValueError:
                raise SubmissionError([f"malformed field name {name!r}"]) from None
    reordering = data.get("reordering") or None
    if isinstance(reordering, str):
        try:
            reordering = json.loads(reordering)
        except json.JSONDecodeError:
            raise SubmissionError(["the reordering is not a JSON list"]) from None
    if reordering is not None and (not isinstance(reordering, list) or not all(isinstance(i, int) for i in reordering)):
        raise SubmissionError(["the reordering must be a list of turn numbers"])
    try:
        seconds = int(data.get("seconds") or 0)
    except (TypeError, ValueError):
        seconds = 0
    return values, reordering, seconds


@login_required
@require_POST
def draft(request, assignment_id: int):
    """Autosave (JSON in, JSON out). 409 once the item is submitted, 400 on invalid values."""
    own_assignment(request, assignment_id)
    try:
        data = json.loads(request.body or b"{}")
        values, reordering, seconds = _given_from(data)
        saved = judgements_save(
            assignment_id=assignment_id, user=request.user, values=values, reordering=reordering, seconds=seconds
        )
    except json.JSONDecodeError:
        return JsonResponse({"ok": False, "problems": ["the request is not JSON"]}, status=400)
    except SubmissionError as exc:
        status = 409 if Assignment.objects.filter(pk=assignment_id, status=AssignmentStatus.SUBMITTED).exists() else 400
        return JsonResponse({"ok": False, "problems": exc.problems}, status=status)
    return JsonResponse({"ok": True, "status": saved.status, "seconds_spent": saved.seconds_spent})


@login_required
@require_POST
def submit(request, assignment_id: int):
    assignment = own_assignment(request, assignment_id)
    try:
        values, reordering, seconds = _given_from(request.POST)
    except SubmissionError as exc:
        return annotate(request, assignment_id, errors=exc.problems)
    try:
        judgements_save(
            assignment_id=assignment.pk,
            user=request.user,
            values=values,
            reordering=reordering,
            seconds=seconds,
            submit=True,
        )
    except SubmissionError as exc:
        _keep_as_draft(request, assignment, values, reordering)
        return annotate(request, assignment_id, errors=exc.problems)
    messages.success(request, f"Submitted dialogue {assignment.dialogue.external_id}.")
    if is_training(assignment):  # a training item: show the expected answers beside the annotator's own
        return redirect("training_feedback", assignment_id=assignment.pk)
    following = annotator_queue(project=assignment.dialogue.project, user=request.user)["next_item"]
    if following is not None:
        return redirect("annotate", assignment_id=following.pk)
    return redirect("queue", slug=assignment.dialogue.project.slug)


def _keep_as_draft(request, assignment: Assignment, values: list[Given], reordering: list[int] | None) -> None:
    """After a refused submission, keep what can be kept as a draft so the annotator loses nothing."""
    if assignment.status == AssignmentStatus.SUBMITTED:
        return
    for order in (reordering, None):
        try:
            judgements_save(assignment_id=assignment.pk, user=request.user, values=values, reordering=order)
            return
        except SubmissionError:
            continue
