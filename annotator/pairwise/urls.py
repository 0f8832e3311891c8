"""The comparison settings' route, included by ``annotator.urls`` where it stood (name ``lead_pairwise``)."""

from django.urls import path

from annotator.pairwise import views

urlpatterns = [
    path("projects/<slug:slug>/manage/pairwise/", views.pairwise_settings, name="lead_pairwise"),
]
