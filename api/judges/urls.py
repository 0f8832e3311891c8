"""The judges' endpoints, included by ``api.urls`` where these patterns stood (names ``api-judges``...)."""

from django.urls import path

import annotator.converters  # noqa: F401  (registers <id:...>)
from api.judges import report, views

urlpatterns = [
    path("projects/<slug:slug>/judges/", views.JudgeList.as_view(), name="api-judges"),
    path("projects/<slug:slug>/judges/<id:pk>/", views.JudgeDetail.as_view(), name="api-judge"),
    path("projects/<slug:slug>/judges/<str:name>/report/", report.JudgeReport.as_view(), name="api-judge-report"),
]
