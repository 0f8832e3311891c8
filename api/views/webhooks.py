"""Webhooks of a project for leads: the same operations as the webhooks page (``annotator.views.webhooks``)."""

from __future__ import annotations

from django.core.exceptions import ValidationError as ModelValidationError
from django.shortcuts import get_object_or_404
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access import IsProjectLead
from annotator.models import Webhook, WebhookDelivery
from annotator.selectors.webhooks import RECENT_DELIVERIES, deliveries_of, secret_hint
from annotator.services.webhooks import (
    delivery_resend,
    webhook_create,
    webhook_delete,
    webhook_set_active,
    webhook_test,
)
from api import webhook_serializers as s
from api.schema_docs import documented


def _out(hook: Webhook) -> dict:
    return s.WebhookOut(
        {
            "id": hook.pk,
            "url": hook.url,
            "events": hook.events,
            "active": hook.active,
            "created_at": hook.created_at,
            "secret_hint": secret_hint(hook.secret),
        }
    ).data


def _hook(request, webhook_id: int) -> Webhook:
    return get_object_or_404(Webhook, pk=webhook_id, project=request.project)


class WebhookList(APIView):
    """The project's webhooks (GET) and registering one (POST: the answer holds its secret, this once)."""

    permission_classes = [IsProjectLead]

    @documented(responses=s.WebhookOut(many=True))
    def get(self, request, slug: str):
        return Response([_out(h) for h in Webhook.objects.filter(project=request.project).order_by("-created_at")])

    @documented(request=s.WebhookIn, responses={201: s.WebhookCreated})
    def post(self, request, slug: str):
        given = s.WebhookIn(data=request.data)
        given.is_valid(raise_exception=True)
        try:
            hook, secret = webhook_create(project=request.project, user=request.user, **given.validated_data)
        except ModelValidationError as exc:
            raise ValidationError(exc.message_dict) from None
        return Response(s.WebhookCreated({**_out(hook), "secret": secret}).data, status=status.HTTP_201_CREATED)


class WebhookDetail(APIView):
    """A webhook (GET), paused or resumed (PATCH ``active``), removed with its log (DELETE)."""

    permission_classes = [IsProjectLead]

    @documented(responses=s.WebhookOut)
    def get(self, request, slug: str, webhook_id: int):
        return Response(_out(_hook(request, webhook_id)))

    @documented(request=s.WebhookChange, responses=s.WebhookOut)
    def patch(self, request, slug: str, webhook_id: int):
        given = s.WebhookChange(data=request.data)
        given.is_valid(raise_exception=True)
        return Response(_out(webhook_set_active(webhook=_hook(request, webhook_id), **given.validated_data)))

    @documented(responses={204: None})
    def delete(self, request, slug: str, webhook_id: int):
        webhook_delete(webhook=_hook(request, webhook_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookTest(APIView):
    """Send a ``ping`` delivery now (202: it is on its way; its result is in the deliveries)."""

    permission_classes = [IsProjectLead]

    @documented(request=None, responses={202: s.DeliveryOut})
    def post(self, request, slug: str, webhook_id: int):
        delivery = webhook_test(webhook=_hook(request, webhook_id))
        return Response(s.DeliveryOut(delivery).data, status=status.HTTP_202_ACCEPTED)


class WebhookDeliveries(APIView):
    """The webhook's latest deliveries, newest first."""

    permission_classes = [IsProjectLead]

    @documented(responses=s.DeliveryOut(many=True))
    def get(self, request, slug: str, webhook_id: int):
        rows = deliveries_of(webhook=_hook(request, webhook_id))[:RECENT_DELIVERIES]
        return Response(s.DeliveryOut(rows, many=True).data)


class DeliveryResend(APIView):
    """Send a delivery's event again, as a new delivery (202)."""

    permission_classes = [IsProjectLead]

    @documented(request=None, responses={202: s.DeliveryOut})
    def post(self, request, slug: str, webhook_id: int, delivery_id: int):
        hook = _hook(request, webhook_id)
        delivery = get_object_or_404(WebhookDelivery, pk=delivery_id, webhook=hook)
        return Response(s.DeliveryOut(delivery_resend(delivery=delivery)).data, status=status.HTTP_202_ACCEPTED)
