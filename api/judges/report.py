"""A judge's report against the humans (leads): agreement, alt-test, calibration, bias and PPI scores."""

from __future__ import annotations

from django.http import Http404
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access import IsProjectLead
from annotator.judges.selectors import judge_of
from api.job_responses import job_pending_response
from api.schema_docs import documented
from config.throttling import job_start_allowed
from evaluation.services.lead_jobs import lead_job_ask


class _Epsilon(serializers.Serializer):
    epsilon = serializers.FloatField(min_value=0.0, max_value=1.0, required=False, default=None, allow_null=True)


class JudgeReport(APIView):
    """``judge_report SLUG NAME --json``: ``{"agreement", "alt_test", "calibration", "bias", "ppi"}``, the alt-test
    with its verdict against the reference judges; ``?epsilon=`` sets the alt-test's margin (default: from who
    annotated, ``alt_test.margin``). Computed on a worker: while no report of the current judgements is stored the
    answer is 202 with the job at work (ask again after ``Retry-After``), 429 when you started too many jobs in the
    last minute."""

    permission_classes = [IsProjectLead]

    @documented(
        parameters=[
            OpenApiParameter(
                "epsilon",
                OpenApiTypes.FLOAT,
                description="The alt-test's margin; default from who annotated (experts 0.2, skilled 0.15, crowd 0.1).",
            )
        ],
        responses={
            200: OpenApiTypes.OBJECT,
            202: OpenApiTypes.OBJECT,
            429: OpenApiTypes.OBJECT,
            503: OpenApiTypes.OBJECT,
        },
    )
    def get(self, request, slug: str, name: str):
        judge = judge_of(request.project, name)
        if judge is None:
            raise Http404(gettext("no such judge"))
        given = _Epsilon(data=request.query_params)
        given.is_valid(raise_exception=True)
        asked = lead_job_ask(
            kind="judge_report",
            project=request.project,
            params={"judge": judge.pk, "epsilon": given.validated_data["epsilon"]},
            user=request.user,
            may_start=job_start_allowed(request),
        )
        return job_pending_response(asked) or Response(asked.result.result["report"])
