"""Schemathesis generates requests from the OpenAPI schema; none may cause a server error."""

import os

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token

from annotator.handout.services.bulk import assignments_create_balanced
from annotator.presets import PRESETS
from annotator.services.judgements import judgements_save
from annotator.services.projects import membership_add
from tests.factories import first_allowed_values, project_with_work, user_make
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


def fuzz(headers: dict, slugs: list[str], assignment_ids: list[int]) -> tuple[int, list[str]]:
    """Every operation of the schema with generated input; path slugs and ids are pointed at real objects
    (cycling through ``slugs`` and ``assignment_ids``) so that the views, not only their 404s, are reached."""
    from hypothesis import given

    from config.wsgi import application

    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application, headers=headers)
    failures, tested, calls = [], 0, [0]
    for result in schema.get_all_operations():
        operation = result.ok()

        @settings(max_examples=MAX_EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        def check(case):
            calls[0] += 1
            parameters = case.path_parameters or {}
            if "slug" in parameters:
                parameters["slug"] = slugs[calls[0] % len(slugs)]
            if "pk" in parameters and "/assignments/" in case.path and assignment_ids:
                parameters["pk"] = assignment_ids[calls[0] % len(assignment_ids)]
            response = case.call(headers=headers)
            if response.status_code >= 500:
                failures.append(f"{case.method} {case.formatted_path}: {response.status_code}")

        given(operation.as_strategy())(check)()
        tested += 1
    return tested, failures


def test_no_operation_answers_with_a_server_error_for_a_lead(keep_test_connection, tmp_path):
    work = project_with_work(
        "stc3", slug="fuzz", annotators=1, paths=[write_json(tmp_path / "s.json", stc3_dialogues())]
    )
    tested, failures = fuzz({"Authorization": f"Token {Token.objects.create(user=work.lead).key}"}, ["fuzz"], [])
    assert tested >= 15
    assert failures == []


def test_no_operation_answers_with_a_server_error_for_an_annotator_of_every_preset(keep_test_connection):
    # given one annotator with assignments (some with saved drafts) in a project of every preset
    annotator = user_make("fuzz-annotator")
    slugs, ids = [], []
    for preset in sorted(PRESETS):
        work = project_with_work(preset, slug=f"fuzz-{preset}", annotators=1, assign=False)
        membership_add(project=work.project, user=annotator, role="annotator")
        assignments_create_balanced(project=work.project, seed=0)
        mine = work.assignments_of(annotator)
        judgements_save(
            assignment_id=mine[0].pk,
            user=annotator,
            values=first_allowed_values(mine[0]),
            reordering=list(range(len(mine[0].shown_order))) if PRESETS[preset].reordering else None,
        )
        slugs.append(work.project.slug)
        ids += [a.pk for a in mine]
    # when every operation is fuzzed with the annotator's token, then none answers 5xx
    tested, failures = fuzz({"Authorization": f"Token {Token.objects.create(user=annotator).key}"}, slugs, ids)
    assert tested >= 15
    assert failures == []


def test_no_operation_answers_with_a_server_error_for_an_outsider(keep_test_connection):
    # given a user who belongs to no project, pointed at real projects and at other people's assignments
    slugs, ids = [], []
    for preset in ("stc3", "coherence"):
        work = project_with_work(preset, slug=f"fuzz-out-{preset}", annotators=1)
        slugs.append(work.project.slug)
        ids += [a.pk for a in work.assignments_of(work.annotators[0])]
    outsider = user_make("fuzz-outsider")
    tested, failures = fuzz({"Authorization": f"Token {Token.objects.create(user=outsider).key}"}, slugs, ids)
    assert tested >= 15
    assert failures == []


def test_no_operation_answers_with_a_server_error_for_anonymous_requests(keep_test_connection):
    work = project_with_work("dbdc", slug="fuzz-anon", annotators=1)
    ids = [a.pk for a in work.assignments_of(work.annotators[0])]
    tested, failures = fuzz({}, ["fuzz-anon"], ids)
    assert tested >= 15
    assert failures == []
