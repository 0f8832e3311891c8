"""The budget per item's endpoint, included by ``api.urls`` where it stood (name ``api-budget``)."""

from django.urls import path

from api.handout import views as handout

urlpatterns = [
    path("projects/<slug:slug>/budget/", handout.AdaptiveBudgetView.as_view(), name="api-budget"),
]
