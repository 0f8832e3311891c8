"""The statistics payload has the shape its TypedDict (and so the OpenAPI schema) says, for every preset."""

import types
import typing

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotator.presets import PRESETS
from evaluation.services.payloads import FreshnessAnswer, LiveFreshness, StatisticsAnswer, StatisticsPayload
from evaluation.services.statistics import project_statistics
from tests.factories import project_with_submissions

pytestmark = pytest.mark.django_db


def problems(value, hint, path="payload") -> list[str]:
    """Where ``value`` does not fit the type ``hint`` (TypedDicts with NotRequired keys, dicts, lists, unions)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        fits = [problems(value, a, path) for a in args]
        return [] if any(not f for f in fits) else fits[0]
    if hint is type(None):
        return [] if value is None else [f"{path}: {value!r} is not null"]
    if typing.is_typeddict(hint):
        if not isinstance(value, dict):
            return [f"{path}: not an object"]
        hints = typing.get_type_hints(hint)
        out = [f"{path}.{k}: missing" for k in hint.__required_keys__ if k not in value]
        out += [f"{path}.{k}: not in the schema" for k in value if k not in hints]
        for key, sub in hints.items():
            if key in value:
                out += problems(value[key], sub, f"{path}.{key}")
        return out
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{path}: not an object"]
        return [p for k, v in value.items() for p in problems(v, args[1], f"{path}[{k}]")]
    if origin is list:
        if not isinstance(value, list):
            return [f"{path}: not a list"]
        return [p for i, v in enumerate(value) for p in problems(v, args[0], f"{path}[{i}]")]
    if hint is float:
        return [] if isinstance(value, (int, float)) and not isinstance(value, bool) else [f"{path}: not a number"]
    if hint is bool:
        return [] if isinstance(value, bool) else [f"{path}: not bool"]
    return [] if isinstance(value, hint) and not isinstance(value, bool) else [f"{path}: not {hint.__name__}"]


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_payload_fits_its_type(preset):
    # given a project of the preset with every annotator's items submitted
    work = project_with_submissions(preset, annotators=3)
    # when its statistics are computed, then they fit the declared type
    payload = project_statistics(work.project)
    assert payload["criteria"], "nothing was computed"
    assert problems(payload, StatisticsPayload) == []


def test_the_openapi_schema_documents_the_payload(make_user):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=make_user()).key}")
    schema = client.get("/api/schema/?format=json").json()
    content = schema["paths"]["/api/projects/{slug}/stats/"]["get"]["responses"]["200"]["content"]
    documented = content["application/json"]["schema"]
    assert set(documented["properties"]) == set(typing.get_type_hints(StatisticsAnswer))
    assert set(typing.get_type_hints(StatisticsAnswer)) == set(typing.get_type_hints(StatisticsPayload)) | {
        "live",
        "freshness",
    }
    part = documented["properties"]["freshness"]["additionalProperties"]
    assert set(part["properties"]) == set(typing.get_type_hints(FreshnessAnswer)) == {
        "part", "current", "computed_at", "stale_since", "reason", "pending"
    }  # fmt: skip
    live = documented["properties"]["live"]
    assert set(live["properties"]) == set(typing.get_type_hints(LiveFreshness))
    assert "stale_reason" in live["description"]  # the fields explained where clients read the schema
    criterion = documented["properties"]["criteria"]["additionalProperties"]
    assert {"fleiss_kappa", "krippendorff_alpha", "by_speaker"} <= set(criterion["properties"])
