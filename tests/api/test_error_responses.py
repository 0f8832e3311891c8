"""Errors no view handled: JSON under /api/ (a program reads ``detail``), HTML pages elsewhere."""

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def failing(*_args, **_kwargs):
    raise RuntimeError("a defect")


@pytest.fixture
def logged_in(make_user):
    client = Client(raise_request_exception=False)
    client.force_login(make_user("someone"))
    return client


def test_unmatched_api_urls_answer_json(logged_in):
    response = logged_in.get("/api/no-such-endpoint/")
    assert response.status_code == 404 and response["Content-Type"] == "application/json"
    assert "/api/no-such-endpoint/" in response.json()["detail"]


def test_unmatched_page_urls_answer_html(logged_in):
    response = logged_in.get("/no-such-page/")
    assert response.status_code == 404 and response["Content-Type"].startswith("text/html")
    assert "<h1>Not found</h1>" in response.content.decode()


def test_a_500_in_the_api_answers_json(logged_in, monkeypatch):
    monkeypatch.setattr("api.views.projects.projects_with_role", failing)
    response = logged_in.get("/api/projects/")
    assert response.status_code == 500 and response["Content-Type"] == "application/json"
    assert response.json()["detail"].startswith("Server error")


def test_a_500_on_a_page_answers_html(logged_in, monkeypatch):
    monkeypatch.setattr("annotator.views.home.projects_for_user", failing)
    response = logged_in.get("/")
    assert response.status_code == 500 and response["Content-Type"].startswith("text/html")
    assert "<h1>Server error</h1>" in response.content.decode()
