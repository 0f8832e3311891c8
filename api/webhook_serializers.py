"""Webhooks of a project and their deliveries (``api.views.webhooks``)."""

from __future__ import annotations

from rest_framework import serializers

from annotator.models import DeliveryStatus, WebhookEvent
from annotator.services.webhooks import SUBSCRIBABLE


class WebhookIn(serializers.Serializer):
    url = serializers.CharField(max_length=500, help_text="An http:// or https:// URL the worker POSTs to.")
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=[e.value for e in SUBSCRIBABLE]), allow_empty=False
    )


class WebhookChange(serializers.Serializer):
    active = serializers.BooleanField(help_text="false pauses the webhook: its events are not sent meanwhile.")


class DeliveryOut(serializers.Serializer):
    id = serializers.IntegerField()
    uid = serializers.UUIDField(help_text="Sent as the X-Dialeval-Delivery header.")
    event = serializers.ChoiceField(choices=WebhookEvent.choices)
    payload = serializers.JSONField(help_text="The event's data (the body's data field).")
    status = serializers.ChoiceField(choices=DeliveryStatus.choices)
    attempts = serializers.IntegerField()
    status_code = serializers.IntegerField(allow_null=True, help_text="The last attempt's HTTP status.")
    response_excerpt = serializers.CharField(
        help_text='The last answer\'s status line ("500 Internal Server Error"; never its body), or the error.'
    )
    created_at = serializers.DateTimeField()
    last_attempt_at = serializers.DateTimeField(allow_null=True)
    next_attempt_at = serializers.DateTimeField(allow_null=True, help_text="When the next retry is due.")


class WebhookOut(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField()
    events = serializers.ListField(child=serializers.CharField())
    active = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    secret_hint = serializers.CharField(
        help_text="The secret's last characters (the secret is shown at creation only)."
    )


class WebhookCreated(WebhookOut):
    secret = serializers.CharField(help_text="Signs the deliveries; shown this once, keep it.")
