"""Reads for the webhooks page and API: a project's webhooks, each with its latest deliveries."""

from __future__ import annotations

from django.db.models import QuerySet

from annotator.models import Project, Webhook, WebhookDelivery

RECENT_DELIVERIES = 20


def webhooks_of(*, project: Project) -> list[Webhook]:
    """The project's webhooks, newest first, each with ``recent``: its latest ``RECENT_DELIVERIES`` deliveries."""
    hooks = list(Webhook.objects.filter(project=project).order_by("-created_at", "-pk"))
    for hook in hooks:
        hook.recent = list(deliveries_of(webhook=hook)[:RECENT_DELIVERIES])
    return hooks


def deliveries_of(*, webhook: Webhook) -> QuerySet[WebhookDelivery]:
    return WebhookDelivery.objects.filter(webhook=webhook).order_by("-created_at", "-pk")


def secret_hint(secret: str) -> str:
    """What a page shows of a secret after its creation: its last four characters.

    >>> secret_hint("whsec_0123456789abcdef")
    '…cdef'
    """
    return "…" + secret[-4:]
