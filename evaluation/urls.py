from django.urls import include, path

import annotator.converters  # noqa: F401  (registers <id:...>)
from evaluation.views import agreement_data, dashboard, exports, power, quality, report

urlpatterns = [
    path("projects/<slug:slug>/dashboard/", dashboard.dashboard, name="dashboard"),
    path("projects/<slug:slug>/dashboard/power/", power.power_page, name="dashboard_power"),
    path("projects/<slug:slug>/dashboard/recompute/", dashboard.recompute, name="dashboard_recompute"),
    path("projects/<slug:slug>/dashboard/live-status/", dashboard.live_status, name="dashboard_live_status"),
    path("projects/<slug:slug>/dashboard/agreement.csv", agreement_data.agreement_csv, name="agreement_csv"),
    path(
        "projects/<slug:slug>/dialogues/<id:dialogue_id>/judgements/",
        dashboard.dialogue_judgements,
        name="dialogue_judgements",
    ),
    path("projects/<slug:slug>/report/", report.report_page, name="report"),
    path("projects/<slug:slug>/export/", exports.export_page, name="export"),
    path("projects/<slug:slug>/report/download/<str:fmt>/", report.report_download, name="report_download"),
    path("", include("evaluation.runs.urls")),
    path("", include("evaluation.judges.urls")),
    path("projects/<slug:slug>/dashboard/exclude/", quality.exclude, name="reliability_exclude"),
    path("projects/<slug:slug>/dashboard/include/", quality.include, name="reliability_include"),
    path("projects/<slug:slug>/dashboard/source/", quality.source, name="reliability_source"),
    path("projects/<slug:slug>/dashboard/models/", quality.estimate_models, name="reliability_models"),
    path("projects/<slug:slug>/adjudication/", quality.adjudication, name="adjudication"),
    path(
        "projects/<slug:slug>/adjudication/<id:dialogue_id>/<str:criterion>/<id:unit>/",
        quality.adjudicate,
        name="adjudicate",
    ),
]
