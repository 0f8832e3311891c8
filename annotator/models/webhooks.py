"""Webhooks: URLs a lead registers for a project's events, and the log of each delivery to them.

A delivery is one event sent to one webhook: its signed JSON body, the attempts made so far, the last
answer (status code and the start of the body, or the error) and, while it is retried, when the next
attempt is due (``annotator.services.webhooks``).
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotator.models.projects import Project


class WebhookEvent(models.TextChoices):
    ITEM_SUBMITTED = "item.submitted", _("An item was submitted")
    QUEUE_FINISHED = "queue.finished", _("An annotator finished their queue")
    STUDY_PLACE_COMPLETED = "study.place_completed", _("A study participant completed their place")
    IMPORT_FINISHED = "import.finished", _("An import finished")
    IMPORT_FAILED = "import.failed", _("An import failed")
    STATISTICS_RECOMPUTED = "statistics.recomputed", _("The statistics were recomputed")
    RUN_SCORED = "run.scored", _("A run was scored")
    RUN_FAILED = "run.failed", _("A run was rejected")
    PING = "ping", _("A test delivery")


class Webhook(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(max_length=500)
    events = models.JSONField(help_text="The events (WebhookEvent values) sent to this URL.")
    secret = models.CharField(max_length=64, help_text="Signs each delivery (HMAC-SHA256); shown once, at creation.")
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    def __str__(self) -> str:
        return f"webhook {self.pk} of {self.project} to {self.url}"


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", _("Waiting")
    RETRYING = "retrying", _("Retrying")
    DELIVERED = "delivered", _("Delivered")
    FAILED = "failed", _("Failed")


class WebhookDelivery(models.Model):
    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    uid = models.UUIDField(default=uuid.uuid4, editable=False, help_text="Sent as X-Dialeval-Delivery.")
    event = models.CharField(max_length=40, choices=WebhookEvent.choices)
    payload = models.JSONField()
    status = models.CharField(max_length=20, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True, help_text="The last attempt's answer.")
    response_excerpt = models.TextField(
        blank=True, help_text="The last answer's status line (never its body), or the error."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True, help_text="When the next retry is due.")

    class Meta:
        indexes = [models.Index(fields=["webhook", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.event} delivery {self.pk} to webhook {self.webhook_id}"
