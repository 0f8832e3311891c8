"""The runs' pages' routes, included by ``evaluation.urls`` where they stood (names ``leaderboard``,
``run_per_dialogue``, ``run_rescore``, ``run_delete``, ``leaderboard_refresh``, ``leaderboard_reorderings``)."""

from django.urls import path

import annotator.converters  # noqa: F401  (registers <id:...>)
from evaluation.runs import views as runs

urlpatterns = [
    path("projects/<slug:slug>/runs/", runs.runs_page, name="leaderboard"),
    path("projects/<slug:slug>/runs/<id:run_id>/per-dialogue.csv", runs.run_per_dialogue, name="run_per_dialogue"),
    path("projects/<slug:slug>/runs/<id:run_id>/rescore/", runs.rescore, name="run_rescore"),
    path("projects/<slug:slug>/runs/<id:run_id>/delete/", runs.run_remove, name="run_delete"),
    path("projects/<slug:slug>/runs/significance/", runs.refresh_comparisons, name="leaderboard_refresh"),
    path("projects/<slug:slug>/runs/reorderings/", runs.score_reorderings, name="leaderboard_reorderings"),
]
