"""The rate limits count in Redis; when it cannot be reached they let requests through (and log it), so a save,
a token request or a new study participant never fails because Redis is down (``config.throttling``).

The cache here points at a port nothing listens on; the deployment test (test_deployment_stack.py) stops a
real redis-server under gunicorn."""

from __future__ import annotations

import logging

import pytest
from django.test import Client
from rest_framework.test import APIClient
from services import free_port  # scripts/services.py (tests/conftest.py puts scripts/ on the path)

from tests.factories import PASSWORD, api_client, first_allowed_values, project_with_work, study_on_new_project

pytestmark = pytest.mark.django_db


@pytest.fixture
def redis_down(settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/2",
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }


def test_api_saves_and_token_requests_succeed_with_the_cache_down(redis_down, caplog):
    work = project_with_work("stc3", slug="nocache", annotators=1)
    annotator = work.annotators[0]
    item = work.assignments_of(annotator)[0]
    body = {
        "judgements": [{"criterion": g.criterion, "unit": g.unit, "value": g.value} for g in first_allowed_values(item)]
    }
    with caplog.at_level(logging.WARNING, logger="config.throttling"):
        saved = api_client(annotator).post(f"/api/assignments/{item.pk}/judgements/", body, format="json")
        token = APIClient().post(
            "/api/auth/token/", {"username": annotator.username, "password": PASSWORD}, format="json"
        )
    assert saved.status_code == 200, saved.content
    assert token.status_code == 200 and token.json()["token"]
    warnings = [r.getMessage() for r in caplog.records]
    assert any("rate limit writes not applied" in m for m in warnings)
    assert any("rate limit login not applied" in m for m in warnings)


def test_a_new_study_participant_arrives_with_the_cache_down(redis_down, tmp_path):
    _work, study = study_on_new_project(tmp_path)
    page = Client().get(f"/study/{study.token}/", {"PROLIFIC_PID": "p-during-outage"}, follow=True)
    assert page.status_code == 200
    assert study.participants.filter(external_id="p-during-outage").exists()
