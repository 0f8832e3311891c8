"""A project's full archive over the API: download it (leads), or create a project from one."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse
from rest_framework import status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access import CanCreateProjects, IsProjectLead
from annotator.services.imports import upload_check_size
from api import serializers as s
from api.errors import FormatIsAParameter
from api.job_responses import job_file_response, job_pending_response
from api.schema_docs import documented
from config.throttling import job_start_allowed
from evaluation.archive.restore import project_archive_import
from evaluation.services.lead_jobs import lead_job_ask


class ProjectArchive(APIView):
    """The project's full archive (a zip): the same bytes as ``manage.py export_project`` (leads). Written by a
    worker: while no archive of the project as it is now is stored the answer is 202 with the job at work (ask the
    same URL again after ``Retry-After``), 429 when you started too many jobs in the last minute."""

    content_negotiation_class = FormatIsAParameter
    permission_classes = [IsProjectLead]

    @documented(
        responses={
            (200, "application/zip"): OpenApiResponse(OpenApiTypes.BINARY),
            (202, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, description="the job at work"),
            (429, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, description="too many jobs started"),
            (503, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, description="no job could start"),
        }
    )
    def get(self, request, slug: str):
        asked = lead_job_ask(
            kind="archive", project=request.project, params={}, user=request.user, may_start=job_start_allowed(request)
        )
        return job_pending_response(asked) or job_file_response(asked.result, content_type="application/zip")


class ArchiveImport(APIView):
    """Create a project from an archive (staff and leads), optionally under another ``slug``; you become its lead.

    A lead's restore makes no one else a lead; the people it names become members only if you could add them on
    the members page; the others who hold work in it become imported annotators (inactive accounts), their
    judgements kept under their archived names; no account is created for anyone else, nor under a reserved
    name, and no superuser gets a role. ``notes`` says what was not restored as archived."""

    parser_classes = [MultiPartParser, FormParser]
    permission_classes = [CanCreateProjects]

    @documented(request=s.ArchiveIn, responses={201: s.ArchiveOut})
    def post(self, request):
        given = s.ArchiveIn(data=request.data)
        given.is_valid(raise_exception=True)
        upload = given.validated_data["file"]
        upload_check_size(name=upload.name, size=upload.size)
        restored = project_archive_import(
            raw=upload.read(),
            display=upload.name,
            slug=given.validated_data.get("slug") or None,
            actor=request.user,
        )
        answer = {"slug": restored.project.slug, "notes": restored.notes}
        return Response(s.ArchiveOut(answer).data, status=status.HTTP_201_CREATED)
