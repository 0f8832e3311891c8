"""The token and its user, and the assignment a save locks, are read with plain statements (``config.plain_rows``):
the instances equal the ORM's field by field on both databases, and the refusals are DRF's own."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import AuthenticationFailed

from annotator.models import Assignment
from annotator.services.judgements import judgements_save
from annotator.services.judgements.rows import LOCKED_FIELDS, assignment_lock_own
from api.authentication import ExpiringTokenAuthentication
from tests.factories import first_allowed_values, project_with_work

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.both_databases(
        reason=(
            "the token, its user and the saved assignment are read with plain statements whose values each database "
            "returns in its own types (config.plain_rows, api.authentication)"
        )
    ),
]


def fields(instance, names) -> dict:
    return {name: getattr(instance, name) for name in names}


def test_the_token_and_user_equal_drfs_reading(django_user_model):
    user = django_user_model.objects.create_user("plain", password="pw-plain-1", email="p@example.org")
    django_user_model.objects.filter(pk=user.pk).update(last_login=timezone.now(), is_staff=True, first_name="名")
    key = Token.objects.create(user=user).key
    ours_user, ours_token = ExpiringTokenAuthentication().authenticate_credentials(key)
    drf_user, drf_token = TokenAuthentication().authenticate_credentials(key)
    user_fields = [f.attname for f in get_user_model()._meta.concrete_fields]
    assert fields(ours_user, user_fields) == fields(drf_user, user_fields)
    assert ours_user.last_login.tzinfo is not None and ours_user.is_staff is True and ours_user.first_name == "名"
    assert fields(ours_token, ["key", "user_id", "created"]) == fields(drf_token, ["key", "user_id", "created"])
    assert ours_token.user is ours_user


def test_refusals_are_drfs_and_the_lifetime_ours(django_user_model, settings):
    user = django_user_model.objects.create_user("refused", password="pw-plain-1")
    key = Token.objects.create(user=user).key
    for wrong in ("0" * 40, key[:-1]):
        with pytest.raises(AuthenticationFailed) as ours:
            ExpiringTokenAuthentication().authenticate_credentials(wrong)
        with pytest.raises(AuthenticationFailed) as drf:
            TokenAuthentication().authenticate_credentials(wrong)
        assert str(ours.value.detail) == str(drf.value.detail) == "Invalid token."
    django_user_model.objects.filter(pk=user.pk).update(is_active=False)
    with pytest.raises(AuthenticationFailed, match=r"User inactive or deleted\."):
        ExpiringTokenAuthentication().authenticate_credentials(key)
    django_user_model.objects.filter(pk=user.pk).update(is_active=True)
    settings.API_TOKEN_LIFETIME_HOURS = 1
    Token.objects.filter(key=key).update(created=timezone.now() - timedelta(hours=2))
    with pytest.raises(AuthenticationFailed, match="expired"):
        ExpiringTokenAuthentication().authenticate_credentials(key)


def test_the_locked_assignment_equals_the_orms(django_user_model):
    work = project_with_work("stc3", slug="plain-lock", annotators=1)
    annotator = work.annotators[0]
    item = work.assignments_of(annotator)[0]
    Assignment.objects.filter(pk=item.pk).update(shown_order=[1, 0], removed={"3:1": 2}, shown_first="a")
    judgements_save(assignment_id=item.pk, user=annotator, values=first_allowed_values(item)[:1], seconds=5)
    orm = Assignment.objects.get(pk=item.pk)
    locked = assignment_lock_own(item.pk, annotator)
    assert fields(locked, LOCKED_FIELDS) == fields(orm, LOCKED_FIELDS)
    assert locked.started_at.tzinfo is not None and locked.shown_order == [1, 0] and locked.removed == {"3:1": 2}
    assert locked.dialogue.external_id == orm.dialogue.external_id
    assert locked.dialogue.project.slug == "plain-lock" and locked.dialogue.project.preset == "stc3"
    assert locked.training_required is False and locked.study_allocated_at is None
