"""``api.negotiation.ContentNegotiation`` picks the renderer and media type DRF's own negotiation picks."""

from __future__ import annotations

import pytest
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from api.negotiation import ContentNegotiation

ACCEPTS = [None, "", "*/*", "application/json", "text/html", "application/json; indent=4", "text/*", "*/*;q=0.8"]


@pytest.mark.parametrize("accept", ACCEPTS)
@pytest.mark.parametrize("query", ["", "?format=json", "?format=api"])
@pytest.mark.parametrize("renderers", [[JSONRenderer, BrowsableAPIRenderer], [BrowsableAPIRenderer, JSONRenderer]])
def test_the_choice_is_drfs(accept, query, renderers):
    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
    request = Request(APIRequestFactory().get(f"/api/projects/{query}", **headers))
    answers = []
    for negotiation in (ContentNegotiation(), DefaultContentNegotiation()):
        try:
            renderer, media_type = negotiation.select_renderer(request, [r() for r in renderers])
            answers.append((type(renderer), media_type))
        except Exception as exc:  # e.g. 404 for an unknown format: the same refusal
            answers.append(type(exc))
    assert answers[0] == answers[1]


def test_the_live_api_answers_json_for_any_accept(client, django_user_model):
    user = django_user_model.objects.create_user("neg", password="pw-neg-1")
    client.force_login(user)
    for accept in ("*/*", "application/json"):
        response = client.get("/api/projects/", HTTP_ACCEPT=accept)
        assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert client.get("/api/projects/", HTTP_ACCEPT="text/html")["Content-Type"].startswith("text/html")
