"""The annotator's pages: the queue, the annotation page, autosave and submission.

The autosave endpoint (``draft``: GET the item's saved state, POST changes) and the submission
answer JSON to the page's script, including a JSON 401 when the session has ended, so that a fetch
never follows a redirect to the login page; a plain form post that finds the person signed out is
sent to the login page with the item (never the POST-only URL) as the page to come back to.

A study participant's page shows the time left (``static/js/study_timer.js``); a save after their
time limit and its grace, or to an item released to another participant, answers 410 with
``{"detail", "code": "time_over" | "released"}`` so that the page can say why, and the item's page
itself sends them to the study's page, which says where they stand.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from annotator.access import MembershipEnded, member_project, own_assignment
from annotator.models import Assignment, AssignmentStatus
from annotator.selectors.annotation import annotation_page, annotation_state
from annotator.selectors.qualification import is_training
from annotator.selectors.queue import annotator_queue
from annotator.selectors.studies import participant_clock, participant_home, released_item_of, released_message
from annotator.services.judgements import ConflictError, Given, ItemClosed, SubmissionError, judgements_save

SIGNED_OUT = gettext_noop("You were signed out: sign in again (your answers are kept).")


@login_required
def queue(request, slug: str):
    project, _membership = member_project(request, slug)
    study_page = participant_home(user=request.user, project=project)
    if study_page is not None:  # a study's participant: the study's page says what comes next
        return redirect(study_page)
    return render(
        request, "annotator/queue.html", {"project": project, **annotator_queue(project=project, user=request.user)}
    )


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
    page = annotation_page(assignment)
    neighbours = annotator_queue(project=assignment.dialogue.project, user=request.user)
    return render(
        request,
        "annotator/annotate.html",
        {
            "page": page,
            "assignment": assignment,
            "project": assignment.dialogue.project,
            "errors": errors.get("problems", []),
            "missing": errors.get("missing", []),
            "read_only": assignment.status == AssignmentStatus.SUBMITTED,
            "queue": neighbours,
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


def _name_to_given(name: str, value, base=None) -> Given:
    for given in (value, base):
        if given is not None and (isinstance(given, bool) or not isinstance(given, (str, int, float))):
            raise SubmissionError([f"the value of {name!r} must be a string, not {_json_kind(given)}"])
    try:
        _j, key, unit = name.split(":", 2)
        if _j != "j":
            raise ValueError
        return Given(key, int(unit), "" if value is None else str(value), None if base is None else str(base))
    except ValueError:
        raise SubmissionError([f"malformed field name {name!r}"]) from None


def _order(value, what: str) -> list[int] | None:
    if value in (None, ""):
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (json.JSONDecodeError, RecursionError):
            raise SubmissionError([f"the {what} is not a JSON list"]) from None
    if not isinstance(value, list) or not all(type(i) is int and 0 <= i < 1 << 31 for i in value):
        raise SubmissionError([f"the {what} must be a list of turn numbers"])
    return value


def _int(value, default=None):
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return default


def _seconds(raw) -> int:
    """Seconds spent since the last save: a whole, finite, non-negative number (a missing or blank one is 0)."""
    if raw in (None, ""):
        return 0
    try:
        seconds = float(raw) if isinstance(raw, str) else raw
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds):
            raise ValueError
        return max(0, min(int(seconds), 1 << 31))
    except (TypeError, ValueError, OverflowError):
        raise SubmissionError([f"seconds must be a finite number, not {str(raw)[:40]!r}"]) from None


def _json_kind(value) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )


def _json_object(request) -> Mapping:
    """The request's body as a JSON object; ``SubmissionError`` saying why when it is not one."""
    try:
        data = json.loads(request.body or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise SubmissionError(["the request is not JSON"]) from None
    except RecursionError:
        raise SubmissionError(["the request is nested too deeply"]) from None
    if not isinstance(data, Mapping):
        raise SubmissionError([f"the request must be a JSON object, not {_json_kind(data)}"])
    return data


def _changes_from_json(data: Mapping) -> dict:
    """The page's save: ``{"version", "changes": {"j:KEY:UNIT": value}, "base": {...}, "reordering",
    "reordering_base", "seconds"}``; a value "" removes the answer."""
    changes, base = data.get("changes") or {}, data.get("base") or {}
    if not isinstance(changes, dict) or not isinstance(base, dict):
        raise SubmissionError(["changes and base must be objects"])
    return {
        "values": [_name_to_given(name, value, base.get(name)) for name, value in changes.items()],
        "reordering": _order(data.get("reordering"), "reordering"),
        "reordering_base": _order(data.get("reordering_base"), "reordering base"),
        "version": _int(data.get("version")),
        "seconds": _seconds(data.get("seconds")),
    }


def _changes_from_form(data) -> dict:
    """A plain form post (the page without its script): every answer on the page; an empty select clears."""
    return {
        "values": [_name_to_given(name, value) for name, value in data.items() if name.startswith("j:")],
        "reordering": _order(data.get("reordering"), "reordering"),
        "version": _int(data.get("version")),
        "seconds": _seconds(data.get("seconds")),
    }


def _refusal(assignment_id: int, exc: SubmissionError) -> JsonResponse:
    """A refused save as JSON: 409 with the conflicts, or when the item is submitted; 400 otherwise."""
    if isinstance(exc, ConflictError):
        state = annotation_state(assignment_id)
        return JsonResponse(
            {
                "ok": False,
                "reason": "conflict",
                "problems": exc.problems,
                "conflicts": [{"name": c.name, "theirs": c.stored, "yours": c.given} for c in exc.conflicts],
                **state,
            },
            status=409,
        )
    if Assignment.objects.filter(pk=assignment_id, status=AssignmentStatus.SUBMITTED).exists():
        return JsonResponse({"ok": False, "reason": "submitted", "problems": exc.problems}, status=409)
    return JsonResponse(
        {"ok": False, "reason": "invalid", "problems": exc.problems, "missing": exc.missing}, status=400
    )


def _closed(request, assignment_id: int, exc: ItemClosed | None = None) -> JsonResponse | None:
    """410 for a study participant's save that comes too late (``exc``) or to an item released to another
    participant; None when ``assignment_id`` is no released item of the user's (then it is a plain 404)."""
    if exc is None:
        if released_item_of(user=request.user, assignment_id=assignment_id) is None:
            return None
        exc = ItemClosed(ItemClosed.RELEASED, released_message())
    detail = str(exc)
    return JsonResponse(
        {"ok": False, "reason": exc.code, "code": exc.code, "detail": detail, "problems": [detail]}, status=410
    )


def _saved(request, saved: Assignment, sent_version: int | None, **extra) -> JsonResponse:
    body = {
        "ok": True,
        "status": saved.status,
        "version": saved.version,
        "seconds_spent": saved.seconds_spent,
        "saved_at": timezone.now().isoformat(),
        **extra,
    }
    if sent_version is not None and saved.version != sent_version + 1:
        # saved elsewhere in between: send the whole state so the page shows the other answers too
        body.update(annotation_state(saved.pk), stale=True)
    return JsonResponse(body)


@_signed_in_for_item
@require_http_methods(["GET", "POST"])
def draft(request, assignment_id: int):
    """Autosave. GET: the saved state (version, answers, a fresh CSRF token). POST (JSON): merge the
    changes; 409 on a conflict or once the item is submitted, 400 on invalid values, 401 signed out,
    403 once the annotator was removed from the project, 410 for a study participant out of time."""
    try:
        own_assignment(request, assignment_id)
        if request.method == "GET":
            return JsonResponse({"ok": True, **annotation_state(assignment_id), "csrf_token": get_token(request)})
        data = _json_object(request)
        given = _changes_from_json(data) if "changes" in data else _changes_from_form(data)
        saved = judgements_save(assignment_id=assignment_id, user=request.user, **given)
    except Http404:
        closed = _closed(request, assignment_id)
        if closed is None:
            raise
        return closed
    except ItemClosed as exc:
        return _closed(request, assignment_id, exc)
    except MembershipEnded as exc:
        return JsonResponse({"ok": False, "reason": "removed", "problems": [str(exc)]}, status=403)
    except SubmissionError as exc:
        return _refusal(assignment_id, exc)
    return _saved(request, saved, given["version"])


@_signed_in_for_item
@require_http_methods(["GET", "POST"])
def submit(request, assignment_id: int):
    """The submission: JSON from the page's script (answers JSON), or a plain form post (redirects).
    A GET (an old bookmark, a login redirect) goes to the item's page. A removed annotator gets 403."""
    is_json = request.content_type == "application/json"
    try:
        assignment = own_assignment(request, assignment_id)
    except Http404:
        closed = _closed(request, assignment_id)
        if closed is None:
            raise
        return closed if is_json else redirect("annotate", assignment_id=assignment_id)
    except MembershipEnded as exc:
        if is_json:
            return JsonResponse({"ok": False, "reason": "removed", "problems": [str(exc)]}, status=403)
        raise
    if request.method == "GET":
        return redirect("annotate", assignment_id=assignment_id)
    given = None
    try:
        given = _changes_from_json(_json_object(request)) if is_json else _changes_from_form(request.POST)
        saved = judgements_save(assignment_id=assignment.pk, user=request.user, submit=True, **given)
    except ItemClosed as exc:
        return _closed(request, assignment_id, exc) if is_json else redirect("annotate", assignment_id=assignment_id)
    except MembershipEnded as exc:
        if is_json:
            return JsonResponse({"ok": False, "reason": "removed", "problems": [str(exc)]}, status=403)
        raise
    except SubmissionError as exc:
        if is_json:
            return _refusal(assignment_id, exc)
        if given is not None and not isinstance(exc, ConflictError):
            _keep_as_draft(request, assignment, given)
        # back to the item's own URL (the address bar never stays on the POST-only URL)
        request.session[f"submit-errors:{assignment_id}"] = {"problems": exc.problems, "missing": exc.missing}
        return redirect("annotate", assignment_id=assignment_id)
    messages.success(
        request, gettext("Submitted dialogue %(external_id)s.") % {"external_id": assignment.dialogue.external_id}
    )
    if is_training(assignment):  # a training item: show the expected answers beside the annotator's own
        next_url = reverse("training_feedback", args=[assignment.pk])
    else:
        following = annotator_queue(project=assignment.dialogue.project, user=request.user)["next_item"]
        next_url = (
            reverse("annotate", args=[following.pk])
            if following is not None
            else reverse("queue", args=[assignment.dialogue.project.slug])
        )
    if is_json:
        return _saved(request, saved, None, next_url=next_url)
    return redirect(next_url)


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
