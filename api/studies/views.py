"""Crowdsourced studies for leads: everything the study pages do (``annotator.studies.views.lead``)."""

from __future__ import annotations

from dataclasses import asdict

from django.core.exceptions import ValidationError as ModelValidationError
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access import IsProjectLead
from annotator.exporters.tables import table_file
from annotator.models import Participant, Study
from annotator.studies.selectors import participants_table, study_participants, study_places
from annotator.studies.services import (
    StudyError,
    participant_token_grant,
    participant_token_revoke,
    studies_release_expired,
    study_create,
    study_set_open,
    study_token_rotate,
    study_update,
)
from api.schema_docs import documented
from api.studies import serializers as s


def _out(request, study: Study) -> dict:
    data = {f: getattr(study, f) for f in s.StudyOut().fields if f not in ("link", "places")}
    data["link"] = request.build_absolute_uri(reverse("study", args=[study.token]))
    data["places"] = asdict(study_places(study=study))
    return s.StudyOut(data).data


def _study(request, study_id: int) -> Study:
    return get_object_or_404(Study.objects.select_related("project"), pk=study_id, project=request.project)


def _refused(exc: Exception) -> ValidationError:
    if isinstance(exc, ModelValidationError):
        return ValidationError(exc.message_dict if hasattr(exc, "error_dict") else {"detail": exc.messages})
    return ValidationError({"detail": str(exc)})


class StudyList(APIView):
    """The project's studies (GET) and opening a new one (POST)."""

    permission_classes = [IsProjectLead]

    @documented(responses=s.StudyOut(many=True))
    def get(self, request, slug: str):
        return Response([_out(request, study) for study in request.project.studies.select_related("project")])

    @documented(request=s.StudyIn, responses={201: s.StudyOut})
    def post(self, request, slug: str):
        given = s.StudyIn(data=request.data)
        given.is_valid(raise_exception=True)
        settings = dict(given.validated_data)
        settings.pop("confirm_time_limit", None)
        try:
            study = study_create(project=request.project, **settings)
        except (StudyError, ModelValidationError) as exc:
            raise _refused(exc) from None
        return Response(_out(request, study), status=status.HTTP_201_CREATED)


class StudyDetail(APIView):
    """A study with its link and places left (GET); change its settings (PATCH). A new time limit while
    participants are at work needs ``confirm_time_limit: true``; without it, 400 says whom it affects."""

    permission_classes = [IsProjectLead]

    @documented(responses=s.StudyOut)
    def get(self, request, slug: str, study_id: int):
        return Response(_out(request, _study(request, study_id)))

    @documented(request=s.StudyIn(partial=True), responses=s.StudyOut)
    def patch(self, request, slug: str, study_id: int):
        study = _study(request, study_id)
        given = s.StudyIn(study, data=request.data, partial=True)
        given.is_valid(raise_exception=True)
        settings = dict(given.validated_data)
        confirm = settings.pop("confirm_time_limit", False)
        if "completion_code" in settings and not settings["completion_code"]:
            del settings["completion_code"]  # empty: keep the code
        try:
            study = study_update(study=study, confirm_time_limit=confirm, **settings)
        except (StudyError, ModelValidationError) as exc:
            raise _refused(exc) from None
        return Response(_out(request, study))


class StudyOpen(APIView):
    """Close a study (``is_open: false``: no new participants, those who started carry on) or reopen it."""

    permission_classes = [IsProjectLead]

    @documented(request=s.StudyOpenIn, responses=s.StudyOut)
    def post(self, request, slug: str, study_id: int):
        given = s.StudyOpenIn(data=request.data)
        given.is_valid(raise_exception=True)
        study = study_set_open(study=_study(request, study_id), is_open=given.validated_data["is_open"])
        return Response(_out(request, study))


class StudyRotateToken(APIView):
    """A new token (and link) for the study; the old link stops working at once."""

    permission_classes = [IsProjectLead]

    @documented(request=None, responses=s.StudyOut)
    def post(self, request, slug: str, study_id: int):
        return Response(_out(request, study_token_rotate(study=_study(request, study_id))))


class StudyReleaseExpired(APIView):
    """Release now the unfinished items of the project's participants past their time limit."""

    permission_classes = [IsProjectLead]

    @documented(request=None, responses=s.ReleasedOut)
    def post(self, request, slug: str, study_id: int):
        study = _study(request, study_id)
        return Response({"released": studies_release_expired(project=study.project)})


class StudyParticipants(APIView):
    """The study's participants: platform ids, status, times, items, seconds worked."""

    permission_classes = [IsProjectLead]

    @documented(responses=s.ParticipantOut(many=True))
    def get(self, request, slug: str, study_id: int):
        return Response(s.ParticipantOut(study_participants(study=_study(request, study_id)), many=True).data)


class StudyParticipantsCsv(APIView):
    """The participants as CSV (the page's download), for approving payments on the platform."""

    permission_classes = [IsProjectLead]

    @documented(responses={(200, "text/csv"): OpenApiResponse(OpenApiTypes.BINARY)})
    def get(self, request, slug: str, study_id: int):
        study = _study(request, study_id)
        return table_file(participants_table(study=study), "csv", prefix=f"{study.project.slug}-study-{study.pk}")


class ParticipantToken(APIView):
    """Grant a participant an API token (POST; participants have none otherwise) or revoke it (DELETE)."""

    permission_classes = [IsProjectLead]

    def _participant(self, request, study_id: int, participant_id: int) -> Participant:
        return get_object_or_404(Participant, pk=participant_id, study=_study(request, study_id))

    @documented(request=None, responses={201: s.ParticipantTokenOut})
    def post(self, request, slug: str, study_id: int, participant_id: int):
        token = participant_token_grant(participant=self._participant(request, study_id, participant_id))
        return Response({"token": token.key}, status=status.HTTP_201_CREATED)

    @documented(responses={204: None})
    def delete(self, request, slug: str, study_id: int, participant_id: int):
        participant_token_revoke(participant=self._participant(request, study_id, participant_id))
        return Response(status=status.HTTP_204_NO_CONTENT)
