"""A project's full archive over the API: download it (leads), or create a project from one."""

from __future__ import annotations

from django.http import StreamingHttpResponse
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
from api.schema_docs import documented
from evaluation.archive.export import project_archive_chunks
from evaluation.archive.restore import project_archive_import


class ProjectArchive(APIView):
    """The project's full archive (a zip): the same bytes as ``manage.py export_project`` (leads)."""

    content_negotiation_class = FormatIsAParameter
    permission_classes = [IsProjectLead]

    @documented(responses={(200, "application/zip"): OpenApiResponse(OpenApiTypes.BINARY)})
    def get(self, request, slug: str):
        # streamed: the rows are read a chunk at a time as the zip is sent
        response = StreamingHttpResponse(project_archive_chunks(request.project), content_type="application/zip")
        response["Content-Disposition"] = f'attachment; filename="{request.project.slug}-archive.zip"'
        return response


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
