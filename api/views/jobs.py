"""A project's background jobs (leads): one job's state, progress and outcome, as the 202 answers of the
endpoints whose work runs as a job link to it."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access import IsProjectLead
from annotator.models import Job
from api.job_responses import job_data
from api.schema_docs import documented


class JobDetail(APIView):
    """``{"id", "state", "queued_at", "started_at", "finished_at", "progress", "error"}`` of one of the project's
    jobs (a report, an export, a power analysis...)."""

    permission_classes = [IsProjectLead]

    @documented(responses={200: OpenApiTypes.OBJECT})
    def get(self, request, slug: str, pk: int):
        job = Job.objects.filter(pk=pk, project=request.project).first()
        if job is None:
            raise Http404
        return Response(job_data(job))
