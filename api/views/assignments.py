"""An annotator's own assignments and their judgements (the same validation as the pages)."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiParameter
from rest_framework import generics
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access import MembershipEnded, require_qualified
from annotator.models import Assignment, AssignmentStatus
from annotator.selectors.assignments import own_assignment_detail, own_assignments
from annotator.services.judgements import ConflictError, Given, ItemClosed, SubmissionError, judgements_save
from annotator.studies.selectors import released_item_of, released_message
from api import serializers as s
from api.save_body import judgements_in_plain, saved_out
from api.schema_docs import documented


class AssignmentList(generics.ListAPIView):
    """Your assignments. Filters: ``project`` (slug), ``status``."""

    serializer_class = s.AssignmentOut

    @documented(parameters=[OpenApiParameter("project", str), OpenApiParameter("status", str)])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        filters = s.AssignmentFilters(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        items = own_assignments(user=self.request.user)
        if "project" in filters.validated_data:
            items = items.filter(dialogue__project__slug=filters.validated_data["project"])
        if "status" in filters.validated_data:
            items = items.filter(status=filters.validated_data["status"])
        return items


class AssignmentDetail(APIView):
    """One of your assignments with its saved judgements and reordering."""

    @documented(responses=s.AssignmentDetailOut)
    def get(self, request, pk: int):
        require_qualified(request.user, pk)
        return Response(s.AssignmentDetailOut(own_assignment_detail(user=request.user, assignment_id=pk)).data)


class AssignmentJudgements(APIView):
    """Save your judgements for your assignment: a draft, or with ``submit`` the submission. The
    annotation page saves through this same endpoint (with its session), so pages and scripts share
    one protocol, one validation and one set of messages.

    Judgements are merged one by one (the ones you do not send stay; a value "" removes one). A
    judgement is written over a stored value only when you saw that value (its ``base``): otherwise
    409 lists every such judgement with the stored state, and nothing is saved. Refusals carry a
    ``reason``: 400 ``invalid`` (``problems``, ``missing``), 403 ``removed`` or ``not_qualified``,
    404 ``gone`` (the item is no longer yours: released, or the study's time ran out), 409
    ``conflict`` or ``submitted``."""

    @documented(
        request=s.JudgementsIn,
        responses={
            200: s.SavedOut,
            400: s.SaveRefusedOut,
            403: s.SaveRefusedOut,
            404: s.SaveRefusedOut,
            409: s.ConflictsOut,
            410: s.SaveRefusedOut,
        },
    )
    def post(self, request, pk: int):
        data = judgements_in_plain(request.data)  # the usual body, read without DRF's serializers
        if data is None:
            given = s.JudgementsIn(data=request.data)
            if not given.is_valid():  # DRF's field errors, and the same as sentences (the page shows them)
                refused = _refused(400, "invalid", _problems(given.errors))
                refused.data = {**given.errors, **refused.data}
                return refused
            data = given.validated_data
        judgements = [
            Given(
                j["criterion"], j["unit"], j["value"], ("" if j["base"] is None else j["base"]) if "base" in j else None
            )
            for j in data["judgements"]
        ]
        reordering_base = data.get("reordering_base")
        if "reordering_base" in data and reordering_base is None:
            reordering_base = []  # sent as null: no order seen (judgements_save reads [] so)
        try:  # the save checks ownership, membership and qualification under its row lock
            saved = judgements_save(
                assignment_id=pk,
                user=request.user,
                values=judgements,
                reordering=data.get("reordering"),
                reordering_base=reordering_base,
                version=data.get("version"),
                seconds=data["seconds"],
                submit=data["submit"],
            )
        except Assignment.DoesNotExist:
            if released_item_of(user=request.user, assignment_id=pk) is not None:  # gone to another participant
                return _closed(ItemClosed(ItemClosed.RELEASED, released_message()))
            return _refused(404, "gone", [gettext("This item is no longer yours.")])
        except ItemClosed as exc:  # a study participant's save after their time (and its grace)
            return _closed(exc)
        except MembershipEnded as exc:
            return _refused(403, "removed", [str(exc)])
        except PermissionDenied as exc:
            return _refused(403, "not_qualified", [str(exc)])
        except ConflictError as exc:
            return Response(_conflict(request.user, pk, exc), status=409)
        except SubmissionError as exc:
            if Assignment.objects.filter(pk=pk, annotator=request.user, status=AssignmentStatus.SUBMITTED).exists():
                return _refused(
                    409, "submitted", [gettext("this item is already submitted; ask the project lead to reopen it")]
                )
            return _refused(400, "invalid", exc.problems, exc.missing)
        body = saved_out(saved)
        body["stale"] = data.get("version") is not None and saved.version != data["version"] + 1
        if body["stale"]:  # saved elsewhere in between: the whole state, so that the client shows it
            state = own_assignment_detail(user=request.user, assignment_id=pk)
            body.update({key: state[key] for key in STATE})
        return Response(body)


def _refused(status: int, reason: str, problems: list[str], missing=()) -> Response:
    return Response(
        {"detail": "; ".join(problems), "reason": reason, "problems": problems, "missing": list(missing)},
        status=status,
    )


def _closed(exc: ItemClosed) -> Response:
    """410: the study item takes no more saves; ``code`` says why (``time_over``, ``released``)."""
    response = _refused(410, exc.code, [str(exc)])
    response.data["code"] = exc.code
    return response


def _problems(errors, where: str = "") -> list[str]:
    """A serializer's errors (nested dicts and lists) as sentences naming the field."""
    if isinstance(errors, dict):
        return [p for key, value in errors.items() for p in _problems(value, f"{where}.{key}" if where else key)]
    if isinstance(errors, list):
        if all(isinstance(e, str) for e in errors):
            return [f"{where}: {e}" if where and where != "non_field_errors" else str(e) for e in errors]
        return [p for i, e in enumerate(errors) if e for p in _problems(e, f"{where}[{i}]")]
    return [f"{where}: {errors}"]


def _conflict(user, pk: int, exc: ConflictError) -> dict:
    """The 409 body: every conflicting judgement, and everything stored now (the client compares it with
    all it last saw)."""
    state = own_assignment_detail(user=user, assignment_id=pk)
    return {
        "detail": str(exc),
        "reason": "conflict",
        "problems": exc.problems,
        "conflicts": [
            {"criterion": c.criterion, "unit": c.unit, "stored": c.stored, "seen": c.seen, "given": c.given}
            for c in exc.conflicts
        ],
        "version": state["version"],
        **{key: state[key] for key in STATE},
    }


STATE = ("judgements", "reordering", "revisions", "reordering_revision")  # what a client compares with what it saw
