"""The quality settings' ranges live in the model (``QUALITY_BOUNDS``): the database refuses a value outside them
whoever writes it, and the service, the API's serializer and the page's inputs take their bounds from there."""

from __future__ import annotations

import re

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from annotator.models import QUALITY_BOUNDS, QualitySettings
from annotator.services.projects import membership_add
from annotator.services.quality_items import QualityError, quality_settings_get, quality_settings_update
from api.quality_serializers import QualitySettingsIO
from tests.factories import user_make

pytestmark = pytest.mark.django_db


def just_outside(name: str) -> list[float]:
    low, high = QUALITY_BOUNDS[name]
    step = 1 if isinstance(QualitySettings._meta.get_field(name).default, int) else 0.01
    return [low - step, high + step]


@pytest.mark.parametrize("name", sorted(QUALITY_BOUNDS))
def test_the_database_refuses_a_value_outside_the_range_written_around_the_service(make_project, name):
    settings = quality_settings_get(project=make_project("stc3", slug=f"qb-{name.replace('_', '-')}"))
    for value in just_outside(name):
        setattr(settings, name, value)
        with pytest.raises(IntegrityError, match=name), transaction.atomic():  # its check, or the column's own
            settings.save()
    for value in QUALITY_BOUNDS[name]:  # the bounds themselves are allowed
        setattr(settings, name, value)
        settings.save()


@pytest.mark.parametrize("name", sorted(QUALITY_BOUNDS))
def test_the_service_and_the_api_refuse_what_the_model_refuses(make_project, name):
    project = make_project("stc3", slug=f"qs-{name.replace('_', '-')}")
    low, high = QUALITY_BOUNDS[name]
    for value in just_outside(name):
        with pytest.raises(
            QualityError, match=rf"{name} must be between {low} and {high}, got {re.escape(str(value))}"
        ):
            quality_settings_update(project=project, **{name: value})
        assert not QualitySettingsIO(data={name: value}).is_valid()
    for value in (low, high):
        assert QualitySettingsIO(data={name: value}).is_valid()
        assert getattr(quality_settings_update(project=project, **{name: value}), name) == value


def test_the_page_offers_the_model_range_in_every_input(make_project, client):
    project = make_project("stc3", slug="qb-page")
    lead = user_make("qb-lead")
    membership_add(project=project, user=lead, role="lead")
    client.force_login(lead)
    page = client.get(reverse("quality", args=[project.slug])).content.decode()
    for name, (low, high) in QUALITY_BOUNDS.items():
        tag = re.search(rf'<input type="number"[^>]*name="{name}"', page, re.S).group(0)
        assert re.search(rf'min="{low}"', tag) and re.search(rf'max="{high}"', tag), tag
