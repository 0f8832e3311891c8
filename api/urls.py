from django.urls import include, path

import annotator.converters  # noqa: F401  (registers <id:...>)
from api.views import (
    archive,
    assignments,
    auth,
    jobs,
    projects,
    quality,
    schema,
    webhooks,
)

urlpatterns = [
    # first: every autosave is resolved here, and each pattern tried before it costs every save a regex match
    path("assignments/<id:pk>/judgements/", assignments.AssignmentJudgements.as_view(), name="api-judgements"),
    path("schema/", schema.schema, name="schema"),
    path("docs/", schema.docs, name="api-docs"),
    path("auth/token/", auth.TokenObtain.as_view(), name="api-token"),
    path("projects/", projects.ProjectList.as_view(), name="api-projects"),
    path("archives/", archive.ArchiveImport.as_view(), name="api-archive-import"),
    path("projects/<slug:slug>/", projects.ProjectDetail.as_view(), name="api-project"),
    path("projects/<slug:slug>/dialogues/", projects.DialogueList.as_view(), name="api-dialogues"),
    path("projects/<slug:slug>/dialogues/import/", projects.DialogueImport.as_view(), name="api-dialogues-import"),
    path("projects/<slug:slug>/imports/", projects.ImportList.as_view(), name="api-imports"),
    path("projects/<slug:slug>/imports/<int:pk>/", projects.ImportDetail.as_view(), name="api-import"),
    path("projects/<slug:slug>/dialogues/<str:external_id>/", projects.DialogueDetail.as_view(), name="api-dialogue"),
    path(
        "projects/<slug:slug>/members/<id:user_id>/tokens/revoke/",
        auth.MemberTokensRevoke.as_view(),
        name="api-member-tokens-revoke",
    ),
    path("", include("api.handout.urls")),
    path("projects/<slug:slug>/stats/", projects.ProjectStats.as_view(), name="api-stats"),
    path("projects/<slug:slug>/stats/recompute/", projects.ProjectStatsRecompute.as_view(), name="api-recompute"),
    path("projects/<slug:slug>/export/", projects.ProjectExport.as_view(), name="api-export"),
    path(
        "projects/<slug:slug>/export/annotators/",
        projects.ProjectExportAnnotators.as_view(),
        name="api-export-annotators",
    ),
    path("projects/<slug:slug>/archive/", archive.ProjectArchive.as_view(), name="api-archive"),
    path("projects/<slug:slug>/jobs/<id:pk>/", jobs.JobDetail.as_view(), name="api-job"),
    path("", include("api.runs.urls")),
    path("", include("api.judges.urls")),
    path("", include("api.studies.urls")),
    path("projects/<slug:slug>/webhooks/", webhooks.WebhookList.as_view(), name="api-webhooks"),
    path("projects/<slug:slug>/webhooks/<id:webhook_id>/", webhooks.WebhookDetail.as_view(), name="api-webhook"),
    path(
        "projects/<slug:slug>/webhooks/<id:webhook_id>/test/", webhooks.WebhookTest.as_view(), name="api-webhook-test"
    ),
    path(
        "projects/<slug:slug>/webhooks/<id:webhook_id>/deliveries/",
        webhooks.WebhookDeliveries.as_view(),
        name="api-webhook-deliveries",
    ),
    path(
        "projects/<slug:slug>/webhooks/<id:webhook_id>/deliveries/<id:delivery_id>/resend/",
        webhooks.DeliveryResend.as_view(),
        name="api-webhook-resend",
    ),
    path("assignments/", assignments.AssignmentList.as_view(), name="api-assignments"),
    path("assignments/<id:pk>/", assignments.AssignmentDetail.as_view(), name="api-assignment"),
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
        "projects/<slug:slug>/adjudications/<str:external_id>/<str:criterion>/<id:unit>/",
        quality.AdjudicationDetail.as_view(),
        name="api-adjudication",
    ),
    path("assignments/<id:pk>/feedback/", quality.TrainingFeedback.as_view(), name="api-training-feedback"),
]
