"""The crowdsourced studies' pages: the public link a participant follows, and the lead's pages of a project's studies.

Included by ``annotator.urls`` where these patterns stood; their names (``study``, ``lead_studies``...) are global.
"""

from django.urls import path

import annotator.converters  # noqa: F401  (registers <id:...>)
from annotator.studies.views import lead, participant

urlpatterns = [
    path("study/<str:token>/", participant.study_entry, name="study"),
    path("study/<str:token>/start/", participant.study_start, name="study_start"),
    path("projects/<slug:slug>/manage/studies/", lead.study_list, name="lead_studies"),
    path("projects/<slug:slug>/manage/studies/<id:study_id>/", lead.study_manage, name="lead_study"),
    path("projects/<slug:slug>/manage/studies/<id:study_id>/open/", lead.study_open, name="lead_study_open"),
    path("projects/<slug:slug>/manage/studies/<id:study_id>/rotate/", lead.study_rotate, name="lead_study_rotate"),
    path(
        "projects/<slug:slug>/manage/studies/<id:study_id>/release/",
        lead.study_release,
        name="lead_study_release",
    ),
    path(
        "projects/<slug:slug>/manage/studies/<id:study_id>/participants.csv",
        lead.study_csv,
        name="lead_study_csv",
    ),
    path(
        "projects/<slug:slug>/manage/studies/<id:study_id>/participants/<int:participant_id>/token/",
        lead.participant_token,
        name="lead_participant_token",
    ),
]
