"""A lead in real Chromium: registers a webhook (its secret shown once), sends a test that a receiver process on
loopback gets, signed; and downloads a table and the Parquet dataset from the manage page."""

from __future__ import annotations

import base64
import hashlib
import hmac
import zipfile
from pathlib import Path

import pytest

from annotator.models import DeliveryStatus, Webhook, WebhookDelivery
from tests.factories import PASSWORD, project_with_submissions
from tests.live_servers import WebhookReceiver
from tests.waiting import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def sign_in(page, url, username):
    page.goto(f"{url}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{url}/")


@pytest.mark.eager_tasks(reason="the test delivery's and the downloads' jobs, done before the page is read")
def test_a_lead_registers_a_webhook_tests_it_and_downloads_data(live_server, page, screenshot, tmp_path, settings):
    settings.OUTBOUND_ALLOWED_HOSTS = ["127.0.0.1"]  # the operator named the receiver's host (the worker's: conftest)
    work = project_with_submissions("dbdc", slug="hooks-browser")
    receiver = WebhookReceiver(tmp_path / "requests.jsonl")
    try:
        sign_in(page, live_server.url, work.lead.username)
        page.goto(f"{live_server.url}/projects/hooks-browser/manage/")
        page.get_by_role("link", name="Webhooks").click()
        page.get_by_label("URL").fill(receiver.url("/ok"))
        page.get_by_label("An item was submitted").check()
        page.get_by_label("A run was scored").check()
        page.get_by_role("button", name="Register").click()
        secret = page.locator("#secret-value").inner_text()
        assert secret.startswith("whsec_") and secret == Webhook.objects.get().secret
        screenshot("webhooks-secret-shown-once")

        page.get_by_role("button", name="Send a test").click()
        assert wait_for(lambda: WebhookDelivery.objects.filter(status=DeliveryStatus.DELIVERED).exists(), 30)
        page.reload()
        assert page.locator("tr.delivery-delivered").count() == 1
        assert secret not in page.content()
        screenshot("webhooks-deliveries")
        [entry] = receiver.entries("received", "/ok")
        body = base64.b64decode(entry["body"])
        parts = dict(p.split("=", 1) for p in entry["headers"]["X-Dialeval-Signature"].split(","))
        expected = hmac.new(secret.encode(), parts["t"].encode() + b"." + body, hashlib.sha256).hexdigest()
        assert parts["v1"] == expected

        # the manage page: a table's CSV, and the Parquet dataset
        page.goto(f"{live_server.url}/projects/hooks-browser/manage/")
        with page.expect_download() as csv_download:
            page.locator('[data-downloads="progress"] a[data-format="csv"]').click()
        text = Path(csv_download.value.path()).read_text(encoding="utf-8")
        assert text.splitlines()[0] == "annotator,assigned,submitted,in_progress,seconds"
        assert len(text.splitlines()) == 1 + len(work.annotators)
        page.locator("#exports").scroll_into_view_if_needed()
        screenshot("manage-exports")
        page.locator("#export-parquet").click()  # the export page: a worker writes the file, the page links it
        with page.expect_download() as parquet_download:
            page.locator("#export-download-file").click()
        names = zipfile.ZipFile(parquet_download.value.path()).namelist()
        assert "hooks-browser/README.md" in names and "hooks-browser/dbdc/train-00000-of-00001.parquet" in names
    finally:
        receiver.stop()
