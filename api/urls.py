from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.authtoken.views import obtain_auth_token

from api.views import assignments, projects, runs, studies

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("auth/token/", obtain_auth_token, name="api-token"),
    path("projects/", projects.ProjectList.as_view(), name="api-projects"),
    path("projects/<slug:slug>/", projects.ProjectDetail.as_view(), name="api-project"),
    path("projects/<slug:slug>/dialogues/", projects.DialogueList.as_view(), name="api-dialogues"),
    path("projects/<slug:slug>/dialogues/import/", projects.DialogueImport.as_view(), name="api-dialogues-import"),
    path("projects/<slug:slug>/dialogues/<str:external_id>/", projects.DialogueDetail.as_view(), name="api-dialogue"),
    path("projects/<slug:slug>/stats/", projects.ProjectStats.as_view(), name="api-stats"),
    path("projects/<slug:slug>/stats/recompute/", projects.ProjectStatsRecompute.as_view(), name="api-recompute"),
    path("projects/<slug:slug>/export/", projects.ProjectExport.as_view(), name="api-export"),
    path("projects/<slug:slug>/runs/", runs.RunListCreate.as_view(), name="api-runs"),
    path("projects/<slug:slug>/runs/<int:pk>/", runs.RunDetail.as_view(), name="api-run"),
    path(
        "projects/<slug:slug>/runs/<int:pk>/per-dialogue/", runs.RunPerDialogue.as_view(), name="api-run-per-dialogue"
    ),
    path("projects/<slug:slug>/studies/", studies.StudyList.as_view(), name="api-studies"),
    path("projects/<slug:slug>/studies/<int:study_id>/", studies.StudyDetail.as_view(), name="api-study"),
    path("projects/<slug:slug>/studies/<int:study_id>/open/", studies.StudyOpen.as_view(), name="api-study-open"),
    path(
        "projects/<slug:slug>/studies/<int:study_id>/rotate-token/",
        studies.StudyRotateToken.as_view(),
        name="api-study-rotate-token",
    ),
    path(
        "projects/<slug:slug>/studies/<int:study_id>/release-expired/",
        studies.StudyReleaseExpired.as_view(),
        name="api-study-release-expired",
    ),
    path(
        "projects/<slug:slug>/studies/<int:study_id>/participants/",
        studies.StudyParticipants.as_view(),
        name="api-study-participants",
    ),
    path(
        "projects/<slug:slug>/studies/<int:study_id>/participants/csv/",
        studies.StudyParticipantsCsv.as_view(),
        name="api-study-participants-csv",
    ),
    path(
        "projects/<slug:slug>/studies/<int:study_id>/participants/<int:participant_id>/token/",
        studies.ParticipantToken.as_view(),
        name="api-participant-token",
    ),
    path("assignments/", assignments.AssignmentList.as_view(), name="api-assignments"),
    path("assignments/<int:pk>/", assignments.AssignmentDetail.as_view(), name="api-assignment"),
    path("assignments/<int:pk>/judgements/", assignments.AssignmentJudgements.as_view(), name="api-judgements"),
]
