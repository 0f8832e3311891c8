"""The lead's webhooks page: register a URL for events (its secret shown once), pause, test, remove, and
each webhook's latest deliveries with "send again"."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from annotator.access import lead_project
from annotator.models import DeliveryStatus, Webhook, WebhookDelivery
from annotator.selectors.webhooks import secret_hint, webhooks_of
from annotator.services.webhooks import (
    SUBSCRIBABLE,
    delivery_resend,
    webhook_create,
    webhook_delete,
    webhook_set_active,
    webhook_test,
)


def _render(request, project, *, created=None, secret="", errors=None, given=None, status=200):
    hooks = webhooks_of(project=project)
    for hook in hooks:
        hook.hint = secret_hint(hook.secret)
    return render(
        request,
        "annotator/webhooks.html",
        {
            "project": project,
            "hooks": hooks,
            "events": SUBSCRIBABLE,
            "created": created,
            "secret": secret,
            "errors": errors or {},
            "given": given or {"url": "", "events": []},
            "DeliveryStatus": DeliveryStatus,
        },
        status=status,
    )


SECRET_ONCE = "webhook_secret_once"  # session key: the new webhook's id and secret, until the page is shown


@login_required
def webhooks_page(request, slug: str):
    """The list (GET); registering a webhook (POST) redirects here (so a reload registers nothing twice), and
    the next GET shows its secret this once (kept in the session until then, then dropped)."""
    project = lead_project(request, slug)
    if request.method != "POST":
        once = request.session.pop(SECRET_ONCE, None)
        created = Webhook.objects.filter(pk=once["id"], project=project).first() if once else None
        return _render(request, project, created=created, secret=once["secret"] if created else "")
    given = {"url": request.POST.get("url", ""), "events": request.POST.getlist("events")}
    try:
        hook, secret = webhook_create(project=project, user=request.user, **given)
    except ValidationError as exc:
        return _render(request, project, errors=exc.message_dict, given=given, status=400)
    request.session[SECRET_ONCE] = {"id": hook.pk, "secret": secret}
    return redirect("lead_webhooks", slug=slug)


def _hook(request, slug: str, webhook_id: int) -> Webhook:
    return get_object_or_404(Webhook, pk=webhook_id, project=lead_project(request, slug))


@login_required
@require_POST
def webhook_remove(request, slug: str, webhook_id: int):
    hook = _hook(request, slug, webhook_id)
    webhook_delete(webhook=hook)
    messages.success(request, gettext("Removed the webhook to %(url)s.") % {"url": hook.url})
    return redirect("lead_webhooks", slug=slug)


@login_required
@require_POST
def webhook_active(request, slug: str, webhook_id: int):
    hook = webhook_set_active(webhook=_hook(request, slug, webhook_id), active=request.POST.get("active") == "1")
    if hook.active:
        messages.success(request, gettext("The webhook to %(url)s is sent events again.") % {"url": hook.url})
    else:
        messages.success(request, gettext("Paused the webhook to %(url)s.") % {"url": hook.url})
    return redirect("lead_webhooks", slug=slug)


@login_required
@require_POST
def webhook_ping(request, slug: str, webhook_id: int):
    hook = _hook(request, slug, webhook_id)
    webhook_test(webhook=hook)
    messages.success(request, gettext("Sent a test delivery to %(url)s; its result appears below.") % {"url": hook.url})
    return redirect("lead_webhooks", slug=slug)


@login_required
@require_POST
def delivery_again(request, slug: str, webhook_id: int, delivery_id: int):
    hook = _hook(request, slug, webhook_id)
    delivery = get_object_or_404(WebhookDelivery, pk=delivery_id, webhook=hook)
    delivery_resend(delivery=delivery)
    messages.success(request, gettext("Sent the %(event)s event again.") % {"event": delivery.event})
    return redirect("lead_webhooks", slug=slug)
