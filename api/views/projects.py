"""Projects, their dialogues (list, detail, import jobs and batches), statistics and gold export."""

from __future__ import annotations

from dataclasses import asdict

from django.db.models import Count
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import generics, status
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access import IsProjectLead, IsProjectMember
from annotator.exporters import AGGREGATIONS, EXPORT_FORMATS, ExportFormatMismatch, export_format_check
from annotator.exporters.parquet import ParquetUnavailable, parquet_check
from annotator.models import ImportStatus
from annotator.selectors.imports import import_batch_status, import_batches_of
from annotator.selectors.population import annotators_included, population_of
from annotator.selectors.projects import dialogue_as_shown, dialogues_visible, projects_with_role
from annotator.services.import_batches import ImportBatchError, import_batch_create, import_batch_remove
from api import quality_serializers as q
from api import serializers as s
from api.errors import FormatIsAParameter
from api.job_responses import job_file_response, job_pending_response
from api.schema_docs import documented
from api.schema_responses import ERROR_RESPONSE, TypedDictResponse
from config.throttling import job_start_allowed
from evaluation.selectors.dashboard import freshness
from evaluation.services.freshness import freshness_json, project_freshness
from evaluation.services.incremental import live_state_read, statistics_with_running_figures
from evaluation.services.lead_jobs import lead_job_ask
from evaluation.services.live_freshness import freshness_of
from evaluation.services.payloads import StatisticsAnswer
from evaluation.services.schedule import statistics_request


class ProjectList(generics.ListAPIView):
    """Projects you belong to, with your role and the criteria."""

    serializer_class = s.ProjectOut

    def get_queryset(self):
        return projects_with_role(user=self.request.user)


class ProjectDetail(APIView):
    permission_classes = [IsProjectMember]

    @documented(responses=s.ProjectOut)
    def get(self, request, slug: str):
        return Response(s.ProjectOut(projects_with_role(user=request.user).get(pk=request.project.pk)).data)


class DialogueList(generics.ListAPIView):
    """Dialogues of a project: all of them for leads, the ones assigned to you for annotators.

    Filters: ``external_id``, ``language``."""

    serializer_class = s.DialogueOut
    permission_classes = [IsProjectMember]

    @documented(parameters=[OpenApiParameter("external_id", str), OpenApiParameter("language", str)])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        filters = s.DialogueFilters(data=self.request.query_params)
        filters.is_valid(raise_exception=True)  # a 400 naming the parameter, never a database error
        dialogues = dialogues_visible(
            user=self.request.user, project=self.request.project, membership=self.request.membership
        )
        return dialogues.filter(**filters.validated_data).annotate(n_posts=Count("posts")).order_by("position", "pk")


class DialogueDetail(APIView):
    """A dialogue with its posts; an annotator reads it as their item shows it (turns numbered as shown)."""

    permission_classes = [IsProjectMember]

    @documented(responses=s.DialogueDetailOut)
    def get(self, request, slug: str, external_id: str):
        if "\x00" in external_id:  # no id contains NUL, and PostgreSQL refuses to compare with it
            raise Http404(gettext("no such dialogue"))
        dialogue = dialogue_as_shown(
            user=request.user, project=request.project, membership=request.membership, external_id=external_id
        )
        return Response(s.DialogueDetailOut(dialogue).data)


def _job(request, batch) -> dict:
    url = reverse("api-import", kwargs={"slug": request.project.slug, "pk": batch.pk})
    return {**import_batch_status(batch=batch), "url": request.build_absolute_uri(url)}


class DialogueImport(APIView):
    """Import a collection file into the project (leads), as a background job.

    Answers with the job and the URL to poll (``Location``): 202 while it waits or runs; when it has
    already finished (no broker configured: it ran in-process), 201 with its counts or 400 with the
    error naming file, dialogue and field. All or nothing.
    """

    parser_classes = [MultiPartParser, FormParser]
    permission_classes = [IsProjectLead]

    @documented(request=s.ImportIn, responses={201: s.ImportJobOut, 202: s.ImportJobOut, 400: s.ImportJobOut})
    def post(self, request, slug: str):
        given = s.ImportIn(data=request.data)
        given.is_valid(raise_exception=True)
        batch = import_batch_create(
            project=request.project,
            user=request.user,
            uploaded=given.validated_data["file"],
            fmt=given.validated_data["format"],
            language=given.validated_data.get("language") or "",
        )
        batch.refresh_from_db()
        job = _job(request, batch)
        code = {ImportStatus.DONE: status.HTTP_201_CREATED, ImportStatus.FAILED: status.HTTP_400_BAD_REQUEST}
        response = Response(s.ImportJobOut(job).data, status=code.get(batch.status, status.HTTP_202_ACCEPTED))
        response["Location"] = job["url"]
        return response


class ImportList(generics.ListAPIView):
    """The project's imports, newest first (leads)."""

    serializer_class = s.ImportJobOut
    permission_classes = [IsProjectLead]

    def get_queryset(self):
        return import_batches_of(project=self.request.project)

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(s.ImportJobOut([_job(request, b) for b in page], many=True).data)


class ImportDetail(APIView):
    """One import: poll it while it runs (GET); remove its dialogues with their assignments and judgements
    (DELETE, leads; answers what was deleted)."""

    permission_classes = [IsProjectLead]

    def _batch(self, request, pk: int):
        return get_object_or_404(import_batches_of(project=request.project), pk=pk)

    @documented(responses=s.ImportJobOut)
    def get(self, request, slug: str, pk: int):
        return Response(s.ImportJobOut(_job(request, self._batch(request, pk))).data)

    @documented(responses={200: s.ImportRemovalOut, 409: ERROR_RESPONSE})
    def delete(self, request, slug: str, pk: int):
        batch = self._batch(request, pk)
        try:
            removal = import_batch_remove(project=request.project, batch_id=batch.pk, user=request.user)
        except ImportBatchError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        c = removal.contents
        return Response(
            s.ImportRemovalOut(
                {
                    "batch": removal.batch_id,
                    "dialogues": c.dialogues,
                    "assignments": c.assignments,
                    "submitted_judgements": c.submitted_judgements,
                    "native_submitted_judgements": c.native_submitted_judgements,
                    "draft_judgements": c.draft_judgements,
                }
            ).data
        )


class ProjectStats(APIView):
    """The ``stats --json`` payload (leads), as last computed by the workers; never computed in the request. When the
    judgements changed since, a recomputation is asked for and the stored figures are answered meanwhile
    (``X-Statistics-Up-To-Date: false``); before the first computation the answer is 202 (ask again after
    ``Retry-After``). ``live`` says whether the dashboard's live figures include every change yet
    (``live_freshness``); ``freshness`` says for every derived thing whether it is current, as the dashboard does
    (``evaluation.services.freshness``)."""

    permission_classes = [IsProjectLead]

    @documented(responses={200: TypedDictResponse(StatisticsAnswer), 202: OpenApiTypes.OBJECT})
    def get(self, request, slug: str):
        project = request.project
        state = freshness(project=project)
        if not state["up_to_date"]:
            statistics_request(project_id=project.pk, changed=False)  # coalesced with one asked for
            state = freshness(project=project)
        stored = state["stored"]
        if stored is None:
            body = {"pending": state["pending"], "last_error": state["last_error"]}
            return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Retry-After": "5"})
        live = live_state_read(project)
        parts = project_freshness(project=project, state=state, live=live)
        payload, _said = statistics_with_running_figures(project, stored.payload, state=live)
        response = Response({**payload, "live": freshness_of(live), "freshness": freshness_json(parts)})
        response["X-Statistics-Computed-At"] = stored.computed_at.isoformat()
        response["X-Statistics-Judgements"] = str(stored.n_judgements)
        response["X-Statistics-Up-To-Date"] = "true" if state["up_to_date"] else "false"
        return response


class ProjectStatsRecompute(APIView):
    """Ask the workers to recompute the statistics (leads)."""

    permission_classes = [IsProjectLead]

    @documented(request=None, responses={202: OpenApiTypes.OBJECT})
    def post(self, request, slug: str):
        project = request.project
        return Response(
            {"scheduled": statistics_request(project_id=project.pk, changed=False)}, status=status.HTTP_202_ACCEPTED
        )


class ProjectExport(APIView):
    """Gold data: the same bytes as ``manage.py export_gold`` (leads); ``parquet`` is the Parquet dataset folder
    (the raw judgements and a table per gold format, with its dataset card) as a zip, 400 naming how to enable
    it where pyarrow is not installed.

    Written by a worker: while no file of the current judgements is stored the answer is 202 with the job at
    work (ask the same URL again after ``Retry-After``), 429 when you started too many jobs in the last minute.

    A format that does not fit the project's preset (STC-3 JSON of a DBDC project) answers 400 naming the
    formats that do. Who the export includes is at ``export/annotators/`` (a list of hundreds of names does
    not fit in a header); ``X-Annotators-Source`` says which judgements count (``all``, ``imported``, ``own``).
    """

    content_negotiation_class = FormatIsAParameter
    permission_classes = [IsProjectLead]

    @documented(
        parameters=[
            OpenApiParameter("format", str, enum=sorted([*EXPORT_FORMATS, "parquet"]), required=True),
            OpenApiParameter("aggregation", str, enum=list(AGGREGATIONS)),
        ],
        responses={
            (200, "application/json"): OpenApiResponse(OpenApiTypes.ANY, description="stc3, distributions-json"),
            (200, "application/zip"): OpenApiResponse(
                OpenApiTypes.BINARY, description="dbdc; parquet (the dataset folder with its card)"
            ),
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.BINARY, description="distributions-csv"),
            (200, "application/jsonl"): OpenApiResponse(
                OpenApiTypes.BINARY, description="pairwise, preference-pairs (JSON lines)"
            ),
            (202, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, description="the job writing the file"),
            (429, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, description="too many jobs started"),
            (503, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, description="no job could start"),
        },
    )
    def get(self, request, slug: str):
        project = request.project
        query = s.ExportQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        fmt, aggregation = query.validated_data["format"], query.validated_data["aggregation"]
        try:
            if fmt == "parquet":
                parquet_check()
            else:
                export_format_check(project=project, fmt=fmt)
        except ParquetUnavailable as exc:
            raise ValidationError({"format": [str(exc)]}) from None
        except ExportFormatMismatch as exc:
            raise ValidationError({"format": [str(exc)]}) from None
        asked = lead_job_ask(
            kind="export",
            project=project,
            params={"format": fmt, "aggregation": aggregation},
            user=request.user,
            may_start=job_start_allowed(request),
        )
        waiting = job_pending_response(asked)
        if waiting is not None:
            return waiting
        if (asked.result.result or {}).get("problem"):
            raise ValidationError({"aggregation": [asked.result.result["problem"]]})
        content_type = "application/zip" if fmt == "parquet" else EXPORT_FORMATS[fmt][1]
        response = job_file_response(asked.result, content_type=content_type)
        response["X-Annotators-Source"] = str(population_of(project).source)  # WSGI takes plain str only
        return response


class ProjectExportAnnotators(APIView):
    """Who the gold exports include, by the ids the exported files use (the source's annotator id, else the
    username), and who is excluded with the reason (leads)."""

    permission_classes = [IsProjectLead]

    @documented(responses=q.PopulationOut)
    def get(self, request, slug: str):
        return Response(q.PopulationOut(asdict(annotators_included(request.project))).data)
