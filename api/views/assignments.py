"""An annotator's own assignments and their judgements (the same validation as the pages)."""

from __future__ import annotations

from django.http import Http404
from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access import require_qualified
from annotator.models import Assignment
from annotator.selectors.assignments import own_assignment_detail, own_assignments
from annotator.selectors.studies import released_item_of, released_message
from annotator.services.judgements import Given, ItemClosed, judgements_save
from api import serializers as s


class AssignmentList(generics.ListAPIView):
    """Your assignments. Filters: ``project`` (slug), ``status``."""

    serializer_class = s.AssignmentOut

    @extend_schema(parameters=[OpenApiParameter("project", str), OpenApiParameter("status", str)])
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

    @extend_schema(responses=s.AssignmentDetailOut)
    def get(self, request, pk: int):
        require_qualified(request.user, pk)
        return Response(s.AssignmentDetailOut(own_assignment_detail(user=request.user, assignment_id=pk)).data)


class AssignmentJudgements(APIView):
    """Save your judgements for your assignment: a draft, or with ``submit`` the submission.

    Judgements are merged one by one (the ones you do not send stay; a value "" removes one); with the
    ``version`` you last read, answers changed elsewhere since are not overwritten (409 names them)."""

    @extend_schema(request=s.JudgementsIn, responses={200: s.AssignmentOut, 409: s.ConflictsOut})
    def post(self, request, pk: int):
        given = s.JudgementsIn(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        try:  # the save checks ownership, membership and qualification under its row lock
            saved = judgements_save(
                assignment_id=pk,
                user=request.user,
                values=[Given(j["criterion"], j["unit"], j["value"], j.get("base")) for j in data["judgements"]],
                reordering=data.get("reordering"),
                reordering_base=data.get("reordering_base"),
                version=data.get("version"),
                seconds=data["seconds"],
                submit=data["submit"],
            )
        except Assignment.DoesNotExist:
            if released_item_of(user=request.user, assignment_id=pk) is not None:  # gone to another participant
                raise ItemClosed(ItemClosed.RELEASED, released_message()) from None
            raise Http404(gettext("no such assignment of yours")) from None
        return Response(s.AssignmentOut(saved).data)
