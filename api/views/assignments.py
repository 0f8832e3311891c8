"""An annotator's own assignments and their judgements (the same validation as the pages)."""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.models import Assignment, Reordering
from annotator.services.judgements import Given, judgements_save
from api import serializers as s


def own_assignments(request):
    return (
        Assignment.objects.filter(annotator=request.user, imported=False)
        .select_related("dialogue__project")
        .order_by("queue_rank", "pk")
    )


def with_judgements(assignment: Assignment) -> Assignment:
    assignment.judgement_rows = [
        {"criterion": k, "unit": u, "value": v}
        for k, u, v in assignment.judgements.order_by("criterion__position", "unit").values_list(
            "criterion__key", "unit", "value"
        )
    ]
    assignment.reordering = (
        Reordering.objects.filter(assignment=assignment).values_list("submitted_order", flat=True).first()
    )
    return assignment


class AssignmentList(generics.ListAPIView):
    """Your assignments. Filters: ``project`` (slug), ``status``."""

    serializer_class = s.AssignmentOut

    @extend_schema(parameters=[OpenApiParameter("project", str), OpenApiParameter("status", str)])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        filters = s.AssignmentFilters(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        items = own_assignments(self.request)
        if "project" in filters.validated_data:
            items = items.filter(dialogue__project__slug=filters.validated_data["project"])
        if "status" in filters.validated_data:
            items = items.filter(status=filters.validated_data["status"])
        return items


class AssignmentDetail(APIView):
    @extend_schema(responses=s.AssignmentDetailOut)
    def get(self, request, pk: int):
        assignment = get_object_or_404(own_assignments(request), pk=pk)
        return Response(s.AssignmentDetailOut(with_judgements(assignment)).data)


class AssignmentJudgements(APIView):
    """Save your judgements for your assignment: a draft, or with ``submit`` the complete submission."""

    @extend_schema(request=s.JudgementsIn, responses=s.AssignmentOut)
    def post(self, request, pk: int):
        given = s.JudgementsIn(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        try:
            saved = judgements_save(
                assignment_id=pk,
                user=request.user,
                values=[Given(j["criterion"], j["unit"], j["value"]) for j in data["judgements"]],
                reordering=data.get("reordering"),
                seconds=data["seconds"],
                submit=data["submit"],
            )
        except Assignment.DoesNotExist:
            raise Http404("no such assignment of yours") from None
        return Response(s.AssignmentOut(saved).data)
