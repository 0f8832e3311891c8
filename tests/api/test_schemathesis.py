"""Schemathesis generates requests from the OpenAPI schema; none may cause a server error."""

import os

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token

from annotator.services.assignment import assignments_create_balanced
from annotator.services.imports import dialogues_import
from annotator.services.projects import membership_add
from tests.fixtures.collections import stc3_dialogues, write_json

pytestmark = pytest.mark.django_db

MAX_EXAMPLES = int(os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "15"))  # per operation: bounded, fast


@pytest.fixture
def keep_test_connection():
    """Like Django's test client: the WSGI app must not close the test's database connection."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def test_no_operation_answers_with_a_server_error(keep_test_connection, make_project, make_user, tmp_path):
    from config.wsgi import application

    project = make_project("stc3", slug="fuzz", annotators_per_dialogue=1)
    dialogues_import(project=project, paths=[write_json(tmp_path / "s.json", stc3_dialogues())])
    lead = make_user("fuzz-lead")
    membership_add(project=project, user=lead, role="lead")
    membership_add(project=project, user=lead, role="lead")
    ann = make_user("fuzz-ann")
    membership_add(project=project, user=ann, role="annotator")
    assignments_create_balanced(project=project)
    headers = {"Authorization": f"Token {Token.objects.create(user=lead).key}"}
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application, headers=headers)
    failures, tested = [], 0
    for result in schema.get_all_operations():
        operation = result.ok()

        @settings(max_examples=MAX_EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        def check(case):
            if "slug" in (case.path_parameters or {}):
                case.path_parameters["slug"] = "fuzz"  # reach the views, not only the 404 of unknown projects
            response = case.call(headers=headers)
            if response.status_code >= 500:
                failures.append(f"{case.method} {case.formatted_path}: {response.status_code}")

        from hypothesis import given

        given(operation.as_strategy())(check)()
        tested += 1
    assert tested >= 15
    assert failures == []
