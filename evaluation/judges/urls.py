"""The judges' pages: the lead's judges page, one judge's report, removal. Included by ``evaluation.urls`` where
these patterns stood; their names (``lead_judges``, ``judge_report``, ``lead_judge_remove``) are global."""

from django.urls import path

import annotator.converters  # noqa: F401  (registers <id:...>)
from evaluation.judges.views import pages, report

urlpatterns = [
    path("projects/<slug:slug>/manage/judges/", pages.judges_page, name="lead_judges"),
    path("projects/<slug:slug>/manage/judges/<str:name>/report/", report.judge_page, name="judge_report"),
    path("projects/<slug:slug>/manage/judges/<id:judge_id>/remove/", pages.judge_delete, name="lead_judge_remove"),
]
