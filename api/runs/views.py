"""Runs: upload (scored by a worker), status and scores, per-dialogue scores, deletion (leads)."""

from __future__ import annotations

from django.http import Http404, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import generics, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access import IsProjectLead
from annotator.filenames import attachment
from api.errors import FormatIsAParameter
from api.runs import serializers as s
from api.schema_docs import documented
from evaluation.models import Run
from evaluation.runs.selectors.freshness import with_has_files
from evaluation.runs.selectors.scores_csv import per_dialogue_csv_chunks
from evaluation.runs.services.upload import run_delete, run_rescore, run_upload


class RunListCreate(generics.ListAPIView):
    """The project's runs (GET), or upload one (POST, multipart: ``name`` and one or more ``files``)."""

    serializer_class = s.RunOut
    parser_classes = [MultiPartParser, FormParser]
    permission_classes = [IsProjectLead]

    def get_queryset(self):
        return (
            with_has_files(Run.objects.filter(project=self.request.project))
            .defer("per_dialogue")
            .order_by("created_at", "pk")
        )

    @documented(request=s.RunIn, responses={202: s.RunOut})
    def post(self, request, slug: str):
        project = request.project
        given = s.RunIn(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        files = [(f.name, f.read()) for f in data["files"]]
        run = run_upload(
            project=project,
            name=data["name"],
            files=files,
            options={"alpha": data["alpha"], "strict": data["strict"], "threshold": data["threshold"]},
        )
        run.refresh_from_db()
        return Response(s.RunOut(run).data, status=status.HTTP_202_ACCEPTED)


class RunDetail(APIView):
    permission_classes = [IsProjectLead]

    @documented(responses=s.RunOut)
    def get(self, request, slug: str, pk: int):
        run = get_object_or_404(with_has_files(Run.objects.all()), project=request.project, pk=pk)
        return Response(s.RunOut(run).data)

    @documented(responses={204: None})
    def delete(self, request, slug: str, pk: int):
        """Delete the run; the comparisons of the others are recomputed by a worker."""
        try:
            run_delete(project=request.project, run_id=pk)
        except Run.DoesNotExist:
            raise Http404(gettext("no such run")) from None
        return Response(status=status.HTTP_204_NO_CONTENT)


class RunPerDialogue(APIView):
    """Per-dialogue scores of a run as JSON (default) or CSV (``?format=csv``)."""

    content_negotiation_class = FormatIsAParameter
    permission_classes = [IsProjectLead]

    @documented(
        parameters=[OpenApiParameter("format", str, enum=["json", "csv"])],
        responses={(200, "application/json"): OpenApiTypes.OBJECT, (200, "text/csv"): OpenApiTypes.BINARY},
    )
    def get(self, request, slug: str, pk: int):
        if request.query_params.get("format") == "csv":  # streamed: the scores are not read into the process
            run = get_object_or_404(Run.objects.only("pk", "name"), project=request.project, pk=pk)
            response = StreamingHttpResponse(per_dialogue_csv_chunks(run), content_type="text/csv")
            response["Content-Disposition"] = attachment(f"{run.name}-per-dialogue.csv")
            return response
        run = get_object_or_404(Run.objects.defer("source"), project=request.project, pk=pk)
        return Response(run.per_dialogue)


class RunRescore(APIView):
    """Score a run again (leads): a run still waiting is sent to the workers again; a rejected one is
    scored afresh."""

    permission_classes = [IsProjectLead]

    @documented(request=None, responses={202: s.RunOut})
    def post(self, request, slug: str, pk: int):
        try:
            run = run_rescore(project=request.project, run_id=pk)
        except Run.DoesNotExist:
            raise Http404(gettext("no such run")) from None
        run.refresh_from_db()
        return Response(s.RunOut(run).data, status=status.HTTP_202_ACCEPTED)
