"""Projects, their dialogues (list, detail, import), statistics and gold export."""

from __future__ import annotations

from django.db.models import Count
from django.http import Http404, HttpResponse
from drf_spectacular.plumbing import resolve_type_hint
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access import IsProjectLead, IsProjectMember
from annotator.exporters import AGGREGATIONS, EXPORT_FORMATS, export_gold
from annotator.selectors.population import annotators_included
from annotator.selectors.projects import dialogues_visible, projects_with_role
from annotator.services.imports import dialogues_import_upload
from api import serializers as s
from api.errors import FormatIsAParameter
from scoring.app.services.payloads import StatisticsPayload
from scoring.app.services.schedule import statistics_request
from scoring.app.services.statistics import statistics_current


class ProjectList(generics.ListAPIView):
    """Projects you belong to, with your role and the criteria."""

    serializer_class = s.ProjectOut

    def get_queryset(self):
        return projects_with_role(user=self.request.user)


class ProjectDetail(APIView):
    permission_classes = [IsProjectMember]

    @extend_schema(responses=s.ProjectOut)
    def get(self, request, slug: str):
        return Response(s.ProjectOut(projects_with_role(user=request.user).get(pk=request.project.pk)).data)


class DialogueList(generics.ListAPIView):
    """Dialogues of a project: all of them for leads, the ones assigned to you for annotators.

    Filters: ``external_id``, ``language``."""

    serializer_class = s.DialogueOut
    permission_classes = [IsProjectMember]

    @extend_schema(parameters=[OpenApiParameter("external_id", str), OpenApiParameter("language", str)])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        filters = s.DialogueFilters(data=self.request.query_params)
        filters.is_valid(raise_exception=True)  # a 400 naming the parameter, never a database error
        dialogues = dialogues_visible(
            user=self.request.user, project=self.request.project, membership=self.request.membership
        )
        return dialogues.filter(**filters.validated_data).annotate(n_posts=Count("posts")).order_by("position", "pk")


class DialogueDetail(generics.RetrieveAPIView):
    serializer_class = s.DialogueDetailOut
    permission_classes = [IsProjectMember]
    lookup_field = "external_id"

    def get_object(self):
        if "\x00" in self.kwargs["external_id"]:  # no id contains NUL, and PostgreSQL refuses to compare with it
            raise Http404("no such dialogue")
        return super().get_object()

    def get_queryset(self):
        return dialogues_visible(
            user=self.request.user, project=self.request.project, membership=self.request.membership
        ).prefetch_related("posts")


class DialogueImport(APIView):
    """Import a collection file into the project (leads). All or nothing; errors name file, dialogue, field."""

    parser_classes = [MultiPartParser, FormParser]
    permission_classes = [IsProjectLead]

    @extend_schema(request=s.ImportIn, responses={201: s.ImportOut})
    def post(self, request, slug: str):
        project = request.project
        given = s.ImportIn(data=request.data)
        given.is_valid(raise_exception=True)
        report = dialogues_import_upload(
            project=project,
            uploaded=given.validated_data["file"],
            fmt=given.validated_data["format"],
            language=given.validated_data.get("language") or None,
        )
        return Response(s.ImportOut(report).data, status=status.HTTP_201_CREATED)


class ProjectStats(APIView):
    """The ``stats --json`` payload (leads); recomputed here when the stored one is out of date."""

    permission_classes = [IsProjectLead]

    @extend_schema(responses={200: OpenApiResponse(resolve_type_hint(StatisticsPayload))})
    def get(self, request, slug: str):
        stored = statistics_current(project=request.project)
        response = Response(stored.payload)
        response["X-Statistics-Computed-At"] = stored.computed_at.isoformat()
        response["X-Statistics-Judgements"] = str(stored.n_judgements)
        return response


class ProjectStatsRecompute(APIView):
    """Ask the workers to recompute the statistics (leads)."""

    permission_classes = [IsProjectLead]

    @extend_schema(request=None, responses={202: OpenApiTypes.OBJECT})
    def post(self, request, slug: str):
        project = request.project
        return Response({"scheduled": statistics_request(project_id=project.pk)}, status=status.HTTP_202_ACCEPTED)


class ProjectExport(APIView):
    """Gold data: the same bytes as ``manage.py export_gold`` (leads)."""

    content_negotiation_class = FormatIsAParameter
    permission_classes = [IsProjectLead]

    @extend_schema(
        parameters=[
            OpenApiParameter("format", str, enum=sorted(EXPORT_FORMATS), required=True),
            OpenApiParameter("aggregation", str, enum=list(AGGREGATIONS)),
        ],
        responses={200: OpenApiResponse(OpenApiTypes.BINARY)},
    )
    def get(self, request, slug: str):
        project = request.project
        query = s.ExportQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        fmt, aggregation = query.validated_data["format"], query.validated_data["aggregation"]
        _fn, content_type, extension = EXPORT_FORMATS[fmt]
        try:
            body = export_gold(project=project, fmt=fmt, aggregation=aggregation)
        except ValueError as exc:
            raise ValidationError({"aggregation": [str(exc)]}) from None
        response = HttpResponse(body, content_type=content_type)
        response["Content-Disposition"] = f'attachment; filename="{project.slug}-{fmt}.{extension}"'
        included = annotators_included(project)
        response["X-Annotators-Source"] = included.source
        response["X-Annotators-Included"] = ";".join(included.included)
        response["X-Annotators-Excluded"] = ";".join(e["annotator"] for e in included.excluded)
        return response
