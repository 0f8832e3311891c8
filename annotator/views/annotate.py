"""The annotator's pages: the queue, the annotation page, autosave and submission.

The page's script saves and submits through the API (``POST /api/assignments/ID/judgements/``, one
protocol with scripts); ``draft`` answers it the item's saved state as JSON (a JSON 401 when the
session has ended, so that a fetch never follows a redirect to the login page). A plain form post
(the page without its script) that finds the person signed out is sent to the login page with the
item (never the POST-only URL) as the page to come back to.

A study participant's page shows the time left (``static/js/study_timer.js``); a save after their
time limit and its grace, or to an item released to another participant, answers 410 with
``{"detail", "code": "time_over" | "released"}`` (the API's, and ``draft`` for a released item) so that
the page can say why, and the item's page itself sends them to the study's page, which says where they stand.
"""

from __future__ import annotations

import json
from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from annotator.access import MembershipEnded, member_project, own_assignment
from annotator.handout.selectors.stopped import hand_out_stopped
from annotator.handout.services.next_item import next_item_hand_out
from annotator.models import Assignment, AssignmentStatus
from annotator.pairwise.services.pair_order import pair_orders_fill
from annotator.presets.of_project import project_scheme
from annotator.selectors.annotation import annotation_page, annotation_state
from annotator.selectors.glossary import label_glossary
from annotator.selectors.qualification import is_training
from annotator.selectors.queue import annotator_progress, annotator_queue
from annotator.services.judgements import ConflictError, Given, ItemClosed, SubmissionError, judgements_save
from annotator.studies.selectors import participant_clock, participant_home, released_item_of, released_message

SIGNED_OUT = gettext_noop("You were signed out: sign in again (your answers are kept).")


@login_required
def queue(request, slug: str):
    project, _membership = member_project(request, slug)
    study_page = participant_home(user=request.user, project=project)
    if study_page is not None:  # a study's participant: the study's page says what comes next
        return redirect(study_page)
    next_item_hand_out(project=project, user=request.user)  # active pairs, adaptive budgets: one item at a time
    mine = annotator_queue(project=project, user=request.user)
    # nothing more for them: say whether the project needs no more answers at all (a budget spent...)
    stopped = None if mine["next_item"] or mine["locked"] else hand_out_stopped(project)
    return render(request, "annotator/queue.html", {"project": project, "stopped": stopped, **mine})


@never_cache
@login_required
def annotate(request, assignment_id: int):
    """The item's page. ``no-store``: Back after a submission asks the server again and shows the
    submitted, read-only item instead of a stale editable copy. A study participant's item past their
    time (and its grace), or released to someone else, sends them to the study's page, which says why."""
    try:
        assignment = own_assignment(request, assignment_id)
    except Http404:
        released = released_item_of(user=request.user, assignment_id=assignment_id)
        if released is None:
            raise
        return redirect("study", token=released.participant.study.token)
    project = assignment.dialogue.project
    clock = participant_clock(user=request.user, project=project)
    if clock and assignment.status != AssignmentStatus.SUBMITTED and clock.now > clock.saves_end:
        return redirect(clock.study_url)
    errors = request.session.pop(f"submit-errors:{assignment_id}", None) or {}
    if project_scheme(project).comparison and not assignment.shown_first and not assignment.imported:
        pair_orders_fill(project=project, dialogue_ids=[assignment.dialogue_id])  # made by a path that gave none
        assignment.refresh_from_db(fields=["shown_first"])
    page = annotation_page(assignment)
    progress = annotator_progress(project=assignment.dialogue.project, user=request.user)
    return render(
        request,
        "annotator/annotate.html",
        {
            "page": page,
            "glossary": label_glossary(page),
            "assignment": assignment,
            "project": assignment.dialogue.project,
            "errors": errors.get("problems", []),
            "missing": errors.get("missing", []),
            "read_only": assignment.status == AssignmentStatus.SUBMITTED,
            "queue": progress,
            "study_clock": clock,
        },
    )


def _signed_in_for_item(view):
    """Like ``login_required``, but JSON requests get a JSON 401 and a form post is sent to the login
    page with the item's page (a GET URL) to come back to."""

    @wraps(view)
    def wrapped(request, assignment_id: int, *args, **kwargs):
        if request.user.is_authenticated:
            return view(request, assignment_id, *args, **kwargs)
        if _wants_json(request):
            return JsonResponse(
                {
                    "ok": False,
                    "reason": "signed_out",
                    "problems": [gettext(SIGNED_OUT)],
                    "csrf_token": get_token(request),
                },
                status=401,
            )
        return redirect_to_login(reverse("annotate", args=[assignment_id]))

    return wrapped


def _wants_json(request) -> bool:
    return request.content_type == "application/json" or "application/json" in request.headers.get("Accept", "")


def _name_to_given(name: str, value) -> Given:
    try:
        _j, key, unit = name.split(":", 2)
        if _j != "j":
            raise ValueError
        return Given(key, int(unit), value)
    except ValueError:
        raise SubmissionError([gettext("malformed field name %(name)s") % {"name": repr(name)}]) from None


def _changes_from_form(data) -> dict:
    """A plain form post (the page without its script): every answer on the page; an empty select clears.
    The page's script saves through the API instead (``api.views.assignments.AssignmentJudgements``)."""
    order = data.get("reordering") or None
    if order is not None:
        try:
            order = json.loads(order)
        except (json.JSONDecodeError, RecursionError):
            order = None
        if not isinstance(order, list) or not all(type(i) is int and 0 <= i < 1 << 31 for i in order):
            raise SubmissionError([gettext("the reordering must be a list of turn numbers")])
    return {
        "values": [_name_to_given(name, value) for name, value in data.items() if name.startswith("j:")],
        "reordering": order,
        "version": _whole(data.get("version")),
        "seconds": _whole(data.get("seconds")) or 0,
    }


def _closed(request, assignment_id: int) -> JsonResponse | None:
    """410 for an item released to another study participant; None when ``assignment_id`` is no released
    item of the user's (then it is a plain 404)."""
    if released_item_of(user=request.user, assignment_id=assignment_id) is None:
        return None
    detail = released_message()
    return JsonResponse(
        {
            "ok": False,
            "reason": ItemClosed.RELEASED,
            "code": ItemClosed.RELEASED,
            "detail": detail,
            "problems": [detail],
        },
        status=410,
    )


def _whole(raw) -> int | None:
    try:
        return max(0, min(int(raw), 1 << 31))
    except (TypeError, ValueError, OverflowError):
        return None


@_signed_in_for_item
@require_http_methods(["GET"])
def draft(request, assignment_id: int):
    """The item's saved state for the page's script (version, answers, a fresh CSRF token), e.g. after
    signing in again. The script saves through the API (``POST /api/assignments/ID/judgements/``);
    403 once the annotator was removed from the project, 410 for an item released to another participant."""
    try:
        own_assignment(request, assignment_id)
    except Http404:
        closed = _closed(request, assignment_id)
        if closed is None:
            raise
        return closed
    except MembershipEnded as exc:
        return JsonResponse({"ok": False, "reason": "removed", "problems": [str(exc)]}, status=403)
    return JsonResponse({"ok": True, **annotation_state(assignment_id), "csrf_token": get_token(request)})


@_signed_in_for_item
@require_http_methods(["GET", "POST"])
def submit(request, assignment_id: int):
    """The submission as a plain form post (the page without its script; redirects). A GET goes on from
    a submitted item (where the page's script goes after submitting through the API: the training
    feedback, the next item or the queue) and back to the item's page otherwise. A study participant's item
    out of time or released goes back to the item's page, which sends them to the study's page."""
    try:
        assignment = own_assignment(request, assignment_id)
    except Http404:
        if released_item_of(user=request.user, assignment_id=assignment_id) is None:
            raise
        return redirect("annotate", assignment_id=assignment_id)
    if request.method == "GET":
        if assignment.status != AssignmentStatus.SUBMITTED:
            return redirect("annotate", assignment_id=assignment_id)
        return _after_submission(request, assignment)
    given = None
    try:
        given = _changes_from_form(request.POST)
        judgements_save(assignment_id=assignment.pk, user=request.user, submit=True, **given)
    except ItemClosed:
        return redirect("annotate", assignment_id=assignment_id)
    except SubmissionError as exc:
        if given is not None and not isinstance(exc, ConflictError):
            _keep_as_draft(request, assignment, given)
        # back to the item's own URL (the address bar never stays on the POST-only URL)
        request.session[f"submit-errors:{assignment_id}"] = {"problems": exc.problems, "missing": exc.missing}
        return redirect("annotate", assignment_id=assignment_id)
    return _after_submission(request, assignment)


def _after_submission(request, assignment: Assignment):
    """Says the item was submitted and goes on: a training item's feedback, the next item or the queue."""
    messages.success(
        request, gettext("Submitted dialogue %(external_id)s.") % {"external_id": assignment.dialogue.external_id}
    )
    if is_training(assignment):  # a training item: show the expected answers beside the annotator's own
        return redirect("training_feedback", assignment.pk)
    next_item_hand_out(project=assignment.dialogue.project, user=request.user)  # (one item at a time)
    following = annotator_progress(project=assignment.dialogue.project, user=request.user).next_item_id
    if following is not None:
        return redirect("annotate", following)
    return redirect("queue", assignment.dialogue.project.slug)


def _keep_as_draft(request, assignment: Assignment, given: dict) -> None:
    """After a refused form submission, keep what can be kept as a draft so the annotator loses nothing
    (with the page's version: never over answers changed elsewhere)."""
    if assignment.status == AssignmentStatus.SUBMITTED:
        return
    for order in (given["reordering"], None):
        try:
            judgements_save(assignment_id=assignment.pk, user=request.user, **dict(given, reordering=order))
            return
        except ItemClosed:
            return
        except SubmissionError:
            continue
