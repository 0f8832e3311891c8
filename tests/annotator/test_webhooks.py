"""Webhooks delivered to a real HTTP server process on loopback (``tests/webhook_receiver.py``): signed bodies
checked here with an independent HMAC, the replay window, retries after a 500, and saves that never wait for
a hanging endpoint, through a real Celery worker: on the embedded default's filesystem broker (SQLite) and through
Redis (PostgreSQL)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import pytest

from annotator.models import DeliveryStatus, WebhookDelivery, WebhookEvent
from annotator.services.webhooks import webhook_create
from annotator.webhook_signature import signature_verify
from tests.factories import api_client, first_allowed_values, project_with_work
from tests.live_servers import WebhookReceiver
from tests.waiting import wait_for


@pytest.fixture
def receiver(tmp_path, settings):
    settings.OUTBOUND_ALLOWED_HOSTS = ["127.0.0.1"]  # the operator named the receiver's host (the worker's: conftest)
    server = WebhookReceiver(tmp_path / "requests.jsonl")
    yield server
    server.release()
    server.stop()


def independent_signature_check(secret: str, entry: dict) -> dict:
    """The receiver's side written out here (not the app's code): HMAC-SHA256 over ``t.body``; the body."""
    body = base64.b64decode(entry["body"])
    header = entry["headers"]["X-Dialeval-Signature"]
    parts = dict(p.split("=", 1) for p in header.split(","))
    expected = hmac.new(secret.encode(), parts["t"].encode() + b"." + body, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(expected, parts["v1"]), "the signature does not match the body"
    assert signature_verify(secret, header, body)  # the documented check agrees
    assert not signature_verify(secret, header, body + b" ")  # a changed body fails
    assert not signature_verify("whsec_other", header, body)  # another secret fails
    # replayed after the window: refused, though the signature itself is right
    assert not signature_verify(secret, header, body, now=int(parts["t"]) + 301)
    assert signature_verify(secret, header, body, now=int(parts["t"]) + 299)
    return json.loads(body)


def submit_item(assignment, annotator):
    """Submit ``assignment`` through the API (the page's save), every unit given its first allowed value."""
    values = [{"criterion": g.criterion, "unit": g.unit, "value": g.value} for g in first_allowed_values(assignment)]
    response = api_client(annotator).post(
        f"/api/assignments/{assignment.pk}/judgements/", {"judgements": values, "submit": True}, format="json"
    )
    assert response.status_code == 200, response.content
    return assignment


def submit_first_item(work, annotator):
    return submit_item(work.assignments_of(annotator)[0], annotator)


def hanging_save_is_acknowledged(receiver, slug):
    """A save answers while the endpoint its event goes to hangs; the delivery completes once it answers."""
    work = project_with_work("dbdc", slug=slug, annotators=1)
    hook, secret = webhook_create(
        project=work.project, url=receiver.url("/hang"), events=[WebhookEvent.ITEM_SUBMITTED], user=work.lead
    )
    # when an annotator submits an item (the save's answer is checked inside)
    assignment = submit_first_item(work, work.annotators[0])
    # then the save was acknowledged while the endpoint holds the delivery's request unanswered
    assert wait_for(lambda: receiver.entries("received", "/hang"), 60), "the delivery never reached the endpoint"
    assert receiver.entries("answered", "/hang") == []
    delivery = WebhookDelivery.objects.get(webhook=hook)
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.PENDING, 1)  # the attempt is in flight
    # once the endpoint answers, the delivery is logged as delivered
    receiver.release()
    assert wait_for(lambda: WebhookDelivery.objects.get(pk=delivery.pk).status == DeliveryStatus.DELIVERED, 60)
    delivery.refresh_from_db()
    assert (delivery.status_code, delivery.response_excerpt) == (200, "200 OK")  # the status line, not the body
    [entry] = receiver.entries("received", "/hang")
    assert entry["headers"]["X-Dialeval-Event"] == "item.submitted"
    assert entry["headers"]["X-Dialeval-Delivery"] == str(delivery.uid)
    body = independent_signature_check(secret, entry)
    assert body["event"] == "item.submitted" and body["project"]["slug"] == slug
    assert body["data"]["item"] == assignment.dialogue.external_id
    assert body["data"]["annotator"] == work.annotators[0].username


@pytest.mark.eager_tasks(reason="the attempts a delivery makes and the log it keeps, run one after another here")
@pytest.mark.django_db(transaction=True)
def test_attempts_stop_at_the_maximum_and_send_again_makes_a_new_delivery(receiver, settings):
    from annotator.services.webhooks import delivery_resend, webhook_test

    settings.WEBHOOK_MAX_ATTEMPTS = 2
    work = project_with_work("dbdc", slug="hook-max", annotators=1)
    hook, _secret = webhook_create(
        project=work.project, url="http://127.0.0.1:9/nothing-listens", events=["item.submitted"]
    )
    delivery = webhook_test(webhook=hook)
    assert wait_for(lambda: WebhookDelivery.objects.get(pk=delivery.pk).status == DeliveryStatus.FAILED, 60)
    delivery.refresh_from_db()
    assert delivery.attempts == 2 and delivery.status_code is None and delivery.response_excerpt
    hook.url = receiver.url("/ok")
    hook.save()
    again = delivery_resend(delivery=delivery)
    assert wait_for(lambda: WebhookDelivery.objects.get(pk=again.pk).status == DeliveryStatus.DELIVERED, 60)
    assert WebhookDelivery.objects.get(pk=delivery.pk).status == DeliveryStatus.FAILED  # the log keeps the old one
    assert receiver.entries("received", "/ok")[0]["headers"]["X-Dialeval-Event"] == "ping"


@pytest.mark.worker
@pytest.mark.both_databases(
    reason="the embedded default delivers through its worker on the filesystem broker, beside saves on SQLite's one "
    "writer"
)
def test_through_a_worker_a_save_never_waits_for_a_hanging_endpoint(celery_worker_process, transactional_db, receiver):
    hanging_save_is_acknowledged(receiver, "hook-worker")


@pytest.mark.worker
def test_through_a_worker_retries_and_every_event_of_a_queue(celery_worker_process, transactional_db, receiver):
    work = project_with_work("dbdc", slug="hook-events", annotators=1)
    events = [e.value for e in WebhookEvent if e != WebhookEvent.PING]
    hook, secret = webhook_create(project=work.project, url=receiver.url("/fail-once"), events=events)
    annotator = work.annotators[0]
    for assignment in work.assignments_of(annotator):
        submit_item(assignment, annotator)

    def arrived(event):
        return [e for e in receiver.entries("received") if e["headers"]["X-Dialeval-Event"] == event]

    n = len(work.assignments_of(annotator))
    # every submission, the queue's end, and the statistics the worker recomputed afterwards
    assert wait_for(
        lambda: len({json.loads(base64.b64decode(e["body"]))["id"] for e in arrived("item.submitted")}) == n, 90
    )
    assert wait_for(lambda: arrived("queue.finished"), 90)
    assert wait_for(lambda: arrived("statistics.recomputed"), 120)
    finished = independent_signature_check(secret, arrived("queue.finished")[0])
    assert finished["data"] == {"annotator": annotator.username, "submitted": n}
    # the first request of all got a 500 and was retried: every delivery ends delivered
    assert receiver.entries("answered")[0]["status"] == 500
    assert wait_for(
        lambda: not WebhookDelivery.objects.filter(webhook=hook).exclude(status=DeliveryStatus.DELIVERED).exists(), 90
    )
    assert sorted(WebhookDelivery.objects.filter(webhook=hook).values_list("attempts", flat=True))[-1] == 2
