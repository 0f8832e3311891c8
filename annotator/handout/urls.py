"""The hand-out forms' routes, included by ``annotator.urls`` where they stood (names ``lead_assign``,
``lead_adaptive``)."""

from django.urls import path

from annotator.handout import views

urlpatterns = [
    path("projects/<slug:slug>/manage/assign/", views.assign, name="lead_assign"),
    path("projects/<slug:slug>/manage/adaptive/", views.adaptive_budget_save, name="lead_adaptive"),
]
