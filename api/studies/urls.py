"""The crowdsourced studies' endpoints, included by ``api.urls`` where these patterns stood (names ``api-study``...)."""

from django.urls import path

import annotator.converters  # noqa: F401  (registers <id:...>)
from api.studies import views as studies

urlpatterns = [
    path("projects/<slug:slug>/studies/", studies.StudyList.as_view(), name="api-studies"),
    path("projects/<slug:slug>/studies/<id:study_id>/", studies.StudyDetail.as_view(), name="api-study"),
    path("projects/<slug:slug>/studies/<id:study_id>/open/", studies.StudyOpen.as_view(), name="api-study-open"),
    path(
        "projects/<slug:slug>/studies/<id:study_id>/rotate-token/",
        studies.StudyRotateToken.as_view(),
        name="api-study-rotate-token",
    ),
    path(
        "projects/<slug:slug>/studies/<id:study_id>/release-expired/",
        studies.StudyReleaseExpired.as_view(),
        name="api-study-release-expired",
    ),
    path(
        "projects/<slug:slug>/studies/<id:study_id>/participants/",
        studies.StudyParticipants.as_view(),
        name="api-study-participants",
    ),
    path(
        "projects/<slug:slug>/studies/<id:study_id>/participants/csv/",
        studies.StudyParticipantsCsv.as_view(),
        name="api-study-participants-csv",
    ),
    path(
        "projects/<slug:slug>/studies/<id:study_id>/participants/<int:participant_id>/token/",
        studies.ParticipantToken.as_view(),
        name="api-participant-token",
    ),
]
