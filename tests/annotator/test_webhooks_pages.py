"""The webhooks page and API: register (the secret shown once), pause and resume, test, send again, remove; for
the project's lead only. Deliveries here go nowhere that listens (the receiver tests are in test_webhooks.py)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from annotator.models import DeliveryStatus, Webhook, WebhookDelivery
from tests.factories import api_client, project_with_work
from tests.waiting import wait_for

pytestmark = pytest.mark.django_db(transaction=True)
NOWHERE = "http://127.0.0.1:9/hooks"  # the discard port: nothing listens, a delivery attempt fails at once


@pytest.fixture
def work(settings):
    settings.WEBHOOK_MAX_ATTEMPTS = 1
    settings.OUTBOUND_ALLOWED_HOSTS = ["127.0.0.1"]  # the operator named loopback: NOWHERE is registered and tried
    return project_with_work("dbdc", slug="hooks-page", annotators=1)


def signed_in(client, user):
    client.force_login(user)
    return client


def test_the_page_registers_a_webhook_and_shows_its_secret_once(client, work):
    lead = signed_in(client, work.lead)
    page = reverse("lead_webhooks", args=["hooks-page"])
    refused = lead.post(page, {"url": "ftp://example.org/x", "events": ["item.submitted"]})
    assert refused.status_code == 400 and "give an http:// or https:// URL" in refused.content.decode()
    assert lead.post(page, {"url": NOWHERE}).status_code == 400  # no event chosen
    created = lead.post(page, {"url": NOWHERE, "events": ["item.submitted", "run.scored"]}, follow=True)
    assert created.redirect_chain == [(page, 302)]  # a reload of the page that follows registers nothing twice
    hook = Webhook.objects.get(project=work.project)
    assert hook.events == ["item.submitted", "run.scored"] and hook.active
    body = created.content.decode()
    assert re.search(r'<code id="secret-value">whsec_[0-9a-f]{48}</code>', body)
    assert hook.secret in body
    later = lead.get(page).content.decode()
    assert hook.secret not in later and hook.secret[-4:] in later and NOWHERE in later


@pytest.mark.eager_tasks(reason="a delivery's one attempt (nothing listens: it fails), then what the page shows")
def test_test_pause_send_again_and_remove_from_the_page(client, work):
    lead = signed_in(client, work.lead)
    lead.post(reverse("lead_webhooks", args=["hooks-page"]), {"url": NOWHERE, "events": ["item.submitted"]})
    hook = Webhook.objects.get(project=work.project)
    lead.post(reverse("lead_webhook_test", args=["hooks-page", hook.pk]))
    ping = WebhookDelivery.objects.get(webhook=hook, event="ping")
    assert wait_for(lambda: WebhookDelivery.objects.get(pk=ping.pk).status == DeliveryStatus.FAILED, 30)
    page = lead.get(reverse("lead_webhooks", args=["hooks-page"])).content.decode()
    assert f'data-delivery="{ping.pk}" class="delivery-failed"' in page
    lead.post(reverse("lead_webhook_again", args=["hooks-page", hook.pk, ping.pk]))
    assert WebhookDelivery.objects.filter(webhook=hook, event="ping").count() == 2
    lead.post(reverse("lead_webhook_active", args=["hooks-page", hook.pk]), {"active": "0"})
    assert not Webhook.objects.get(pk=hook.pk).active
    assert "(paused)" in lead.get(reverse("lead_webhooks", args=["hooks-page"])).content.decode()
    lead.post(reverse("lead_webhook_remove", args=["hooks-page", hook.pk]))
    assert not Webhook.objects.filter(pk=hook.pk).exists() and not WebhookDelivery.objects.exists()


def test_a_paused_webhook_is_sent_nothing(work):
    from annotator.services.judgements import judgements_save
    from annotator.services.webhooks import webhook_create, webhook_set_active
    from tests.factories import first_allowed_values

    hook, _ = webhook_create(project=work.project, url=NOWHERE, events=["item.submitted"])
    webhook_set_active(webhook=hook, active=False)
    person = work.annotators[0]
    item = work.assignments_of(person)[0]
    judgements_save(assignment_id=item.pk, user=person, values=first_allowed_values(item), submit=True)
    assert not WebhookDelivery.objects.exists()
    webhook_set_active(webhook=hook, active=True)
    other = work.assignments_of(person)[1]
    judgements_save(assignment_id=other.pk, user=person, values=first_allowed_values(other), submit=True)
    assert list(WebhookDelivery.objects.values_list("event", flat=True)) == ["item.submitted"]


@pytest.mark.eager_tasks(reason="a delivery's one attempt (nothing listens: it fails), then what the API shows")
def test_the_api_does_what_the_page_does(work):
    api = api_client(work.lead)
    base = "/api/projects/hooks-page/webhooks/"
    assert api.post(base, {"url": NOWHERE, "events": ["nonsense"]}, format="json").status_code == 400
    created = api.post(base, {"url": NOWHERE, "events": ["import.finished"]}, format="json")
    assert created.status_code == 201
    data = created.json()
    assert data["secret"].startswith("whsec_") and data["secret_hint"] == "…" + data["secret"][-4:]
    listed = api.get(base).json()
    assert [h["id"] for h in listed] == [data["id"]] and "secret" not in listed[0]
    assert api.patch(f"{base}{data['id']}/", {"active": False}, format="json").json()["active"] is False
    sent = api.post(f"{base}{data['id']}/test/")
    assert sent.status_code == 202 and sent.json()["event"] == "ping"
    assert wait_for(lambda: api.get(f"{base}{data['id']}/deliveries/").json()[0]["status"] == "failed", 30)
    delivery = api.get(f"{base}{data['id']}/deliveries/").json()[0]
    assert delivery["attempts"] == 1 and delivery["status_code"] is None and delivery["response_excerpt"]
    again = api.post(f"{base}{data['id']}/deliveries/{delivery['id']}/resend/")
    assert again.status_code == 202 and again.json()["id"] != delivery["id"]
    assert api.delete(f"{base}{data['id']}/").status_code == 204
    assert api.get(f"{base}{data['id']}/").status_code == 404


def test_only_the_projects_lead_reaches_them(client, work):
    hook = Webhook.objects.create(project=work.project, url=NOWHERE, events=["ping"], secret="whsec_x")
    annotator = work.annotators[0]
    assert api_client(annotator).get("/api/projects/hooks-page/webhooks/").status_code == 403
    assert api_client(annotator).delete(f"/api/projects/hooks-page/webhooks/{hook.pk}/").status_code == 403
    page = signed_in(client, annotator)
    assert page.get(reverse("lead_webhooks", args=["hooks-page"])).status_code == 403
    assert page.post(reverse("lead_webhook_remove", args=["hooks-page", hook.pk])).status_code == 403
    assert Webhook.objects.filter(pk=hook.pk).exists()
