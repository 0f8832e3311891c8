from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.authtoken.views import obtain_auth_token

from api.views import assignments, projects, quality, runs

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
    path("projects/<slug:slug>/quality/settings/", quality.QualitySettingsView.as_view(), name="api-quality-settings"),
    path("projects/<slug:slug>/quality/items/", quality.QualityItems.as_view(), name="api-quality-items"),
    path("projects/<slug:slug>/quality/items/upload/", quality.QualityItemsUpload.as_view(), name="api-quality-upload"),
    path(
        "projects/<slug:slug>/quality/items/<str:external_id>/",
        quality.QualityItemDetail.as_view(),
        name="api-quality-item",
    ),
    path("projects/<slug:slug>/quality/mix/", quality.QualityMix.as_view(), name="api-quality-mix"),
    path("projects/<slug:slug>/quality/qualification/", quality.Qualification.as_view(), name="api-qualification"),
    path(
        "projects/<slug:slug>/quality/qualification/admit/",
        quality.QualificationAdmit.as_view(),
        name="api-qualification-admit",
    ),
    path("projects/<slug:slug>/exclusions/", quality.Exclusions.as_view(), name="api-exclusions"),
    path("projects/<slug:slug>/exclusions/<str:annotator>/", quality.ExclusionDetail.as_view(), name="api-exclusion"),
    path("projects/<slug:slug>/adjudications/", quality.Adjudications.as_view(), name="api-adjudications"),
    path(
        "projects/<slug:slug>/adjudications/<str:external_id>/<str:criterion>/<int:unit>/",
        quality.AdjudicationDetail.as_view(),
        name="api-adjudication",
    ),
    path("assignments/<int:pk>/feedback/", quality.TrainingFeedback.as_view(), name="api-training-feedback"),
    path("assignments/", assignments.AssignmentList.as_view(), name="api-assignments"),
    path("assignments/<int:pk>/", assignments.AssignmentDetail.as_view(), name="api-assignment"),
    path("assignments/<int:pk>/judgements/", assignments.AssignmentJudgements.as_view(), name="api-judgements"),
]
