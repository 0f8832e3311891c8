"""Webhooks: registering them, emitting a project's events to them, and delivering each event (signed, retried).

``webhook_emit`` is the one entry for every event. It waits for the caller's transaction to commit
(``transaction.on_commit``: an event that is rolled back is never sent), then writes one delivery per
active webhook subscribed to the event and hands each to the workers by name
(``config.enqueue.task_send`` -> ``annotator.tasks.deliver_webhook``). The HTTP request is never made inside
the request that caused the event: it is a worker's task, bounded by its time limits (an attempt stopped at its
limit counts as a failed attempt, ``delivery_job_lost``). The data of an event may be given as a function,
called only when some webhook wants the event (a submission costs one query when a project has none).

``delivery_attempt`` (the worker's side) makes one attempt: the JSON body signed with the webhook's
secret (``annotator.webhook_signature``), a POST through the platform's one outgoing client
(``config.outbound``: never to an internal address unless the operator named the host, redirects not followed,
all of it within ``WEBHOOK_TIMEOUT_SECONDS``); a 2xx answer delivers it, anything else (an error status, a
redirect, a timeout, a refused connection or destination) schedules the next attempt after
``WEBHOOK_RETRY_SECONDS`` x 2^(attempts - 1) until ``WEBHOOK_MAX_ATTEMPTS``. The delivery log keeps the answer's
status line or the error, never the answer's body (an internal service's answer must not be read back).
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext

from annotator.models import (
    Assignment,
    AssignmentStatus,
    DeliveryStatus,
    Participant,
    Project,
    Webhook,
    WebhookDelivery,
    WebhookEvent,
)
from annotator.webhook_signature import HEADER, signature_header
from config.enqueue import task_send
from config.outbound.addresses import DestinationRefused, OutboundError, destination_precheck
from config.outbound.client import outbound_send
from config.outbound.policy import allowed_hosts, outbound_error_text

log = logging.getLogger(__name__)

DELIVER_TASK = "annotator.tasks.deliver_webhook"
OUTCOME_CHARS = 300  # the delivery log's line: a status line or an error, never the answer's body
SUBSCRIBABLE = [e for e in WebhookEvent if e != WebhookEvent.PING]


def webhook_create(*, project: Project, url: str, events: list[str], user=None) -> tuple[Webhook, str]:
    """A new active webhook and its secret (the only time the secret is shown: the caller shows it once)."""
    url = (url or "").strip()
    try:
        destination_precheck(url, allowed=allowed_hosts())
    except DestinationRefused as exc:
        problem = outbound_error_text(exc)
        message = gettext("This URL cannot receive webhooks: %(problem)s.") % {"problem": problem}
        raise ValidationError({"url": message}) from None
    if len(url) > Webhook._meta.get_field("url").max_length:
        raise ValidationError({"url": gettext("The URL is too long.")})
    chosen = list(dict.fromkeys(events or []))
    allowed = {e.value for e in SUBSCRIBABLE}
    if not chosen or any(e not in allowed for e in chosen):
        raise ValidationError(
            {"events": gettext("Choose one or more of: %(events)s.") % {"events": ", ".join(allowed)}}
        )
    secret = "whsec_" + secrets.token_hex(24)
    webhook = Webhook.objects.create(project=project, url=url, events=chosen, secret=secret, created_by=user)
    return webhook, secret


def webhook_delete(*, webhook: Webhook) -> None:
    webhook.delete()


def webhook_set_active(*, webhook: Webhook, active: bool) -> Webhook:
    Webhook.objects.filter(pk=webhook.pk).update(active=active)
    webhook.active = active
    return webhook


def webhook_emit(*, project_id: int, event: str, data: dict | Callable[[], dict | None]) -> None:
    """Send ``event`` with ``data`` to the project's webhooks that want it, once the transaction commits.

    ``data`` may be a function, called after the commit and only if a webhook wants the event; returning
    None sends nothing (an event whose condition turned out false, such as a queue not yet finished)."""
    webhook_emit_many(project_id=project_id, events=[(event, data)])


def webhook_emit_many(*, project_id: int, events: list[tuple[str, dict | Callable[[], dict | None]]]) -> None:
    """``webhook_emit`` of several events of one moment, reading the project's webhooks once. A project without
    an active webhook (most) costs one indexed query (plain SQL: every submission asks) and registers nothing
    on the transaction."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT 1 FROM {Webhook._meta.db_table} WHERE project_id = %s AND active LIMIT 1", [project_id])
        wanted = cursor.fetchone() is not None
    if wanted:
        transaction.on_commit(lambda: _deliveries_send(project_id, events))


def _deliveries_send(project_id: int, events) -> None:
    try:
        hooks = list(Webhook.objects.filter(project_id=project_id, active=True))
        for event, data in events:
            wanting = [h for h in hooks if event in h.events]
            payload = (data() if callable(data) else data) if wanting else None
            if payload is None:
                continue
            for hook in wanting:
                delivery = WebhookDelivery.objects.create(webhook=hook, event=event, payload=payload)
                task_send(DELIVER_TASK, delivery.pk)
    except Exception:  # the events' cause is committed: a failure to announce it never fails the caller
        log.exception("could not send events of project %s to its webhooks", project_id)


def submission_emit(*, assignment: Assignment, project_id: int, annotator) -> None:
    """The events of ``annotator``'s submission of ``assignment``: the item, and, when it was their last open
    item, their queue finished (for a study participant: their place completed)."""

    def item() -> dict:
        return {
            "item": assignment.dialogue.external_id,
            "assignment": assignment.pk,
            "annotator": annotator.username,
            "submitted_at": assignment.submitted_at.isoformat() if assignment.submitted_at else None,
        }

    def open_items() -> int:
        return (
            Assignment.objects.filter(annotator=annotator, dialogue__project_id=project_id)
            .exclude(status=AssignmentStatus.SUBMITTED)
            .count()
        )

    def queue_finished() -> dict | None:
        if open_items():
            return None
        submitted = Assignment.objects.filter(
            annotator=annotator, dialogue__project_id=project_id, status=AssignmentStatus.SUBMITTED
        ).count()
        return {"annotator": annotator.username, "submitted": submitted}

    def place_completed() -> dict | None:
        participant = Participant.objects.filter(user=annotator, study__project_id=project_id).first()
        if participant is None or open_items():
            return None
        return {
            "study": participant.study_id,
            "participant": participant.external_id,
            "annotator": annotator.username,
        }

    webhook_emit_many(
        project_id=project_id,
        events=[
            (WebhookEvent.ITEM_SUBMITTED, item),
            (WebhookEvent.QUEUE_FINISHED, queue_finished),
            (WebhookEvent.STUDY_PLACE_COMPLETED, place_completed),
        ],
    )


def webhook_test(*, webhook: Webhook) -> WebhookDelivery:
    """A ``ping`` delivery to the webhook (whatever its events and even if paused), sent now."""
    delivery = WebhookDelivery.objects.create(
        webhook=webhook, event=WebhookEvent.PING, payload={"message": "a test delivery from the project's lead"}
    )
    transaction.on_commit(lambda: task_send(DELIVER_TASK, delivery.pk))
    return delivery


def delivery_resend(*, delivery: WebhookDelivery) -> WebhookDelivery:
    """Send a delivery's event again, as a new delivery (with its own attempts) beside the old one in the log."""
    again = WebhookDelivery.objects.create(webhook=delivery.webhook, event=delivery.event, payload=delivery.payload)
    transaction.on_commit(lambda: task_send(DELIVER_TASK, again.pk))
    return again


def delivery_body(delivery: WebhookDelivery) -> bytes:
    """The JSON body of a delivery: the same bytes at every attempt (only the signature's time changes)."""
    project = delivery.webhook.project
    envelope = {
        "id": str(delivery.uid),
        "event": delivery.event,
        "created_at": delivery.created_at.isoformat(),
        "project": {"slug": project.slug, "name": project.name},
        "data": delivery.payload,
    }
    return json.dumps(envelope, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def retry_delay(attempts: int) -> float:
    """Seconds before the next attempt after ``attempts`` failed ones: exponential, at most an hour.

    >>> [retry_delay(n) for n in (1, 2, 3)] == [settings.WEBHOOK_RETRY_SECONDS * f for f in (1, 2, 4)]
    True
    """
    return min(3600.0, settings.WEBHOOK_RETRY_SECONDS * 2 ** (attempts - 1))


def delivery_attempt(*, delivery_id: int) -> WebhookDelivery | None:
    """One attempt at a pending or retrying delivery (the worker's side); safe to run twice: the attempt is
    claimed with a compare-and-set on its count, and a delivered or failed delivery is left as it is."""
    delivery = WebhookDelivery.objects.select_related("webhook__project").filter(pk=delivery_id).first()
    if delivery is None or delivery.status not in (DeliveryStatus.PENDING, DeliveryStatus.RETRYING):
        return delivery
    now = timezone.now()
    claimed = WebhookDelivery.objects.filter(pk=delivery.pk, attempts=delivery.attempts, status=delivery.status).update(
        attempts=F("attempts") + 1, last_attempt_at=now, next_attempt_at=None
    )
    if not claimed:
        return delivery
    attempts = delivery.attempts + 1
    body = delivery_body(delivery)
    code, outcome = _post(delivery, body)
    return _attempt_record(delivery, attempts, code, outcome)


def _attempt_record(delivery: WebhookDelivery, attempts: int, code: int | None, outcome: str) -> WebhookDelivery | None:
    """Record the outcome of attempt ``attempts``: delivered (2xx), failed (the last attempt), or retrying (the
    next attempt sent with its delay)."""
    now = timezone.now()
    done = code is not None and 200 <= code < 300
    update = {"status_code": code, "response_excerpt": outcome}
    if done:
        update["status"] = DeliveryStatus.DELIVERED
    elif attempts >= settings.WEBHOOK_MAX_ATTEMPTS:
        update["status"] = DeliveryStatus.FAILED
    else:
        delay = retry_delay(attempts)
        update.update(status=DeliveryStatus.RETRYING, next_attempt_at=now + timedelta(seconds=delay))
    if not WebhookDelivery.objects.filter(pk=delivery.pk).update(**update):
        return None  # the webhook was removed (with its log) while the attempt was under way: nothing to retry
    if update["status"] == DeliveryStatus.RETRYING:
        task_send(DELIVER_TASK, delivery.pk, countdown=delay)
    delivery.refresh_from_db()
    return delivery


def delivery_job_lost(*, job, final: bool) -> None:
    """An attempt whose worker was lost is made again by the job sent again; one stopped at its time limit (a
    receiver answering too slowly), or lost on every try, counts as a failed attempt: retried later, or failed."""
    if not final:
        return
    delivery = WebhookDelivery.objects.filter(
        pk=job.args[0], status__in=[DeliveryStatus.PENDING, DeliveryStatus.RETRYING]
    ).first()
    if delivery is not None:
        _attempt_record(delivery, max(1, delivery.attempts), None, job.error[:OUTCOME_CHARS])


def _post(delivery: WebhookDelivery, body: bytes) -> tuple[int | None, str]:
    """(status code or None, the answer's status line or the error) of one signed POST; the answer's body is
    never read."""
    hook = delivery.webhook
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "dialeval-webhooks/1",
        "X-Dialeval-Event": delivery.event,
        "X-Dialeval-Delivery": str(delivery.uid),
        HEADER: signature_header(hook.secret, body),
    }
    try:
        answer = outbound_send(
            method="POST",
            url=hook.url,
            headers=headers,
            body=body,
            seconds=settings.WEBHOOK_TIMEOUT_SECONDS,
            max_bytes=0,
            allowed=allowed_hosts(),
        )
    except OutboundError as exc:  # refused here, unreachable, too slow
        return None, str(exc)[:OUTCOME_CHARS]
    outcome = answer.status_line
    if 300 <= answer.status < 400:
        outcome += " (redirects are not followed: register the URL the receiver answers at)"
    return answer.status, outcome[:OUTCOME_CHARS]
