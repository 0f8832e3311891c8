"""The runs' endpoints, included by ``api.urls`` where these patterns stood (names ``api-runs``, ``api-run``,
``api-run-rescore``, ``api-run-per-dialogue``)."""

from django.urls import path

import annotator.converters  # noqa: F401  (registers <id:...>)
from api.runs import views as runs

urlpatterns = [
    path("projects/<slug:slug>/runs/", runs.RunListCreate.as_view(), name="api-runs"),
    path("projects/<slug:slug>/runs/<id:pk>/", runs.RunDetail.as_view(), name="api-run"),
    path("projects/<slug:slug>/runs/<id:pk>/rescore/", runs.RunRescore.as_view(), name="api-run-rescore"),
    path("projects/<slug:slug>/runs/<id:pk>/per-dialogue/", runs.RunPerDialogue.as_view(), name="api-run-per-dialogue"),
]
