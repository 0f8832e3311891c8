"""Judges: list, create (an uploaded file of labels, or a run registered as a judge), read and remove (leads)."""

from __future__ import annotations

from django.http import Http404
from django.utils.translation import gettext
from rest_framework import status
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access import IsProjectLead
from annotator.judges.selectors import judges_of
from annotator.judges.services.endpoint import EndpointSettingsError, endpoint_judge_create
from annotator.judges.services.labels import judge_import_upload, judge_remove
from api.judges.serializers import JudgeIn, JudgeOut
from api.schema_docs import documented
from evaluation.judges.services.from_runs import judge_from_run
from evaluation.models import Run


def _judge(request, pk: int):
    judge = judges_of(request.project).filter(pk=pk).first()
    if judge is None:
        raise Http404(gettext("no such judge"))
    return judge


class JudgeList(APIView):
    """The project's judges (GET), or a new one (POST): multipart ``name``, ``file``, ``format``, or
    ``name`` and ``run`` (a scored run's id). All or nothing: a wrong label answers 400 naming file,
    dialogue and field."""

    parser_classes = [MultiPartParser, FormParser, JSONParser]
    permission_classes = [IsProjectLead]

    @documented(responses=JudgeOut(many=True))
    def get(self, request, slug: str):
        return Response(JudgeOut(judges_of(request.project), many=True).data)

    @documented(request=JudgeIn, responses={201: JudgeOut})
    def post(self, request, slug: str):
        given = JudgeIn(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        if "endpoint" in data:
            try:
                judge = endpoint_judge_create(
                    project=request.project,
                    name=data["name"],
                    endpoint=data["endpoint"],
                    description=data["description"],
                    created_by=request.user,
                )
            except EndpointSettingsError as exc:
                return Response({"endpoint": [str(exc)]}, status=status.HTTP_400_BAD_REQUEST)
        elif "run" in data:
            run = Run.objects.filter(project=request.project, pk=data["run"]).first()
            if run is None:
                raise Http404(gettext("no such run"))
            judge = judge_from_run(run=run, name=data["name"], description=data["description"], created_by=request.user)
        else:
            judge = judge_import_upload(
                project=request.project,
                uploaded=data["file"],
                name=data["name"],
                fmt=data["format"],
                description=data["description"],
                created_by=request.user,
            )
        return Response(JudgeOut(_judge(request, judge.pk)).data, status=status.HTTP_201_CREATED)


class JudgeDetail(APIView):
    permission_classes = [IsProjectLead]

    @documented(responses=JudgeOut)
    def get(self, request, slug: str, pk: int):
        return Response(JudgeOut(_judge(request, pk)).data)

    @documented(responses={204: None})
    def delete(self, request, slug: str, pk: int):
        """Remove the judge and its labels."""
        judge_remove(judge=_judge(request, pk))
        return Response(status=status.HTTP_204_NO_CONTENT)
