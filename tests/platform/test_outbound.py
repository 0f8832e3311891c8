"""The one outgoing HTTP client (``config.outbound``) against hostile servers in processes of their own on loopback
(``tests/hostile_receiver.py``): internal destinations refused before any byte is sent, redirects answered and
never followed (so a key never travels on), a trickling answer cut at the total deadline, huge answers refused
without the memory growing, DNS rebinding closed, and the webhook log keeping status lines, never bodies.

Loopback is what these servers listen on and what the platform refuses: a test that needs an answer names
127.0.0.1 as an operator would (``allowed`` / ``OUTBOUND_ALLOWED_HOSTS``), only there.
"""

from __future__ import annotations

import re
import socket
import time
import tracemalloc

import pytest
from django.core.exceptions import ValidationError

import config.outbound.client as client_module
from annotator.judges.chat_endpoint import EndpointError, chat_complete
from annotator.models import DeliveryStatus, WebhookDelivery
from annotator.services.webhooks import delivery_attempt, webhook_create
from config.outbound.addresses import DestinationRefused, address_refusal, destination_precheck, host_rule, url_under
from config.outbound.client import DeadlineExceeded, ResponseTooLarge, outbound_send
from tests.factories import project_with_work
from tests.live_servers import HostileReceiver

LOOPBACK = (host_rule("127.0.0.1"),)  # the operator named loopback: for the tests that need an answer


@pytest.fixture
def hostile(tmp_path):
    server = HostileReceiver(tmp_path / "hostile.jsonl")
    yield server
    server.stop()


def send(url: str, **kwargs):
    return outbound_send(**{"method": "POST", "url": url, "seconds": 10, "max_bytes": 1 << 20, "body": b"{}", **kwargs})


def test_internal_destinations_are_refused_before_anything_is_sent(hostile):
    port = hostile.port
    internal = [
        f"http://127.0.0.1:{port}/ok",
        f"http://localhost:{port}/ok",  # a name resolving to loopback
        f"http://[::ffff:127.0.0.1]:{port}/ok",  # IPv4 inside IPv6
        f"http://2130706433:{port}/ok",  # 127.0.0.1 written as one number
        f"http://0x7f.1:{port}/ok",  # ...and in hexadecimal, short form
        "http://169.254.169.254/latest/meta-data/",  # the cloud metadata service
        "http://10.0.0.1/",
        "http://[fd00:ec2::254]/",
    ]
    for url in internal:
        with pytest.raises(DestinationRefused) as refused:
            send(url, seconds=5)
        assert "the platform sends nothing to loopback, private" in str(refused.value), url
    assert hostile.requests() == []  # not one request reached the server
    # the same server, named by the operator, is reached
    assert send(f"http://127.0.0.1:{port}/ok", allowed=LOOPBACK).status == 200
    assert len(hostile.requests()) == 1


def test_urls_saved_by_a_lead_are_checked_without_a_lookup():
    for url in ("http://127.0.0.1:2019/stop", "http://localhost/x", "http://metadata.google.internal/", "ftp://x/"):
        with pytest.raises(DestinationRefused):
            destination_precheck(url)
    assert destination_precheck("https://hooks.example.org/x").host == "hooks.example.org"
    assert address_refusal(__import__("ipaddress").ip_address("100.100.100.200")) == "a reserved address"


def test_redirects_are_answers_and_never_followed(hostile):
    target = hostile.url("/secret")
    for status in (301, 302, 307, 308):
        answer = send(hostile.url(f"/redirect?status={status}&to={target}"), allowed=LOOPBACK)
        assert answer.status == status and answer.body == b""
    assert [r["path"].split("?")[0] for r in hostile.requests()] == ["/redirect"] * 4  # /secret never asked


def test_a_redirect_never_carries_the_key_to_another_host(hostile, tmp_path):
    attacker = HostileReceiver(tmp_path / "attacker.jsonl")
    try:
        # an endpoint the operator named (the key is for it) answers with a redirect to another server
        endpoint = hostile.url(f"/redirect?status=307&to={attacker.url('/ok')}&")
        with pytest.raises(EndpointError, match="redirects are not followed"):
            chat_complete(
                url=endpoint, model="m", messages=[{"role": "user", "content": "q"}], api_key="sk-secret",
                max_retries=2, allowed=LOOPBACK, sleep=lambda _s: None,
            )  # fmt: skip
        [asked] = hostile.requests()  # asked once (a redirect is final, not retried)
        assert asked["headers"]["Authorization"] == "Bearer sk-secret"
        assert attacker.requests() == []  # the key went nowhere else
    finally:
        attacker.stop()


def test_a_trickling_answer_is_cut_at_the_total_deadline(hostile):
    for path in ("/trickle-headers", "/trickle-body"):
        started = time.monotonic()
        with pytest.raises(DeadlineExceeded, match="no complete answer within 2 s"):
            send(hostile.url(path), seconds=2, allowed=LOOPBACK)
        took = time.monotonic() - started
        # a byte every 0.5 s keeps every single read short: only a total deadline ends it (the server goes on 120 s)
        assert 2 <= took < 5, (path, took)


def test_huge_answers_are_refused_as_a_stream_without_the_memory_growing(hostile):
    cap = 256 * 1024
    with pytest.raises(ResponseTooLarge, match="1,073,741,824 bytes"):
        send(hostile.url("/huge"), max_bytes=cap, allowed=LOOPBACK)  # declared: refused unread
    tracemalloc.start()
    try:
        with pytest.raises(ResponseTooLarge, match="larger than 262,144 bytes"):
            send(hostile.url("/huge-chunked"), max_bytes=cap, allowed=LOOPBACK)  # undeclared: read up to the cap
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * cap, peak  # a 1 GiB answer, and at most a few blocks over the cap were ever held


def test_dns_rebinding_changes_nothing(tmp_path, monkeypatch):
    """A name whose first lookup gives an address that passes the check and whose next one gives an internal
    address: the connection goes to the address that was checked, from one lookup per request. Here 127.0.0.1
    stands for a public server (the check is told so) and 127.0.0.2 for an internal service on the same port."""
    public = HostileReceiver(tmp_path / "public.jsonl")
    internal = HostileReceiver(tmp_path / "internal.jsonl", address="127.0.0.2", port=public.port)
    answers = iter(["127.0.0.1", "127.0.0.2", "127.0.0.2"])
    lookups = []
    real_lookup = socket.getaddrinfo

    def rebinding_resolver(host, port, *args, **kwargs):
        if host != "rebind.test":
            return real_lookup(host, port, *args, **kwargs)
        lookups.append(address := next(answers))
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

    def public_stand_in(address):
        return None if str(address) == "127.0.0.1" else address_refusal(address)

    monkeypatch.setattr(client_module.socket, "getaddrinfo", rebinding_resolver)
    monkeypatch.setattr(client_module, "address_refusal", public_stand_in)
    try:
        url = f"http://rebind.test:{public.port}/ok"
        assert send(url).status == 200
        assert lookups == ["127.0.0.1"]  # one lookup: the connection did not ask again
        assert len(public.requests()) == 1 and public.requests()[0]["headers"]["Host"] == f"rebind.test:{public.port}"
        rebound = re.escape("rebind.test resolves to 127.0.0.2, a loopback address")
        with pytest.raises(DestinationRefused, match=rebound):
            send(url)
        assert internal.requests() == []  # the internal service never heard of either request
    finally:
        public.stop()
        internal.stop()


@pytest.mark.parametrize(
    ("url", "prefix", "granted"),
    [
        ("https://api.openai.com/v1/chat/completions", "https://api.openai.com", True),
        ("https://api.openai.com/v1/chat/completions", "https://api.openai.com/v1/", True),
        ("https://api.openai.com.attacker.example/v1/chat/completions", "https://api.openai.com", False),
        ("https://api.openai.com@attacker.example/v1", "https://api.openai.com", False),
        ("https://attacker.example/https://api.openai.com/v1", "https://api.openai.com", False),
        ("http://api.openai.com/v1/chat/completions", "https://api.openai.com", False),
        ("https://api.openai.com:444/v1/chat/completions", "https://api.openai.com", False),
        ("https://API.OpenAI.com:443/v1/x", "https://api.openai.com/v1", True),
        ("https://gw.example/team-ab/chat/completions", "https://gw.example/team-a", False),
        ("https://gw.example/team-a/%2e%2e/team-b/chat/completions", "https://gw.example/team-a", False),
    ],
)
def test_the_key_allow_list_matches_parsed_urls(url, prefix, granted):
    assert url_under(url, prefix) is granted


@pytest.mark.django_db
def test_the_webhook_log_keeps_status_lines_never_bodies(hostile, settings, monkeypatch):
    work = project_with_work("dbdc", slug="hook-outbound", annotators=1)
    # a loopback URL is refused when it is registered...
    with pytest.raises(ValidationError, match="loopback"):
        webhook_create(project=work.project, url=hostile.url("/secret"), events=["item.submitted"])
    # ...and a name that resolves to loopback at every attempt, before anything is sent
    real_lookup = socket.getaddrinfo

    def resolver(host, port, *args, **kwargs):
        return real_lookup("127.0.0.1" if host == "hooks.test" else host, port, *args, **kwargs)

    monkeypatch.setattr(client_module.socket, "getaddrinfo", resolver)
    hook, _secret = webhook_create(
        project=work.project, url=f"http://hooks.test:{hostile.port}/secret", events=["item.submitted"]
    )
    delivery = WebhookDelivery.objects.create(webhook=hook, event="item.submitted", payload={})
    delivery = delivery_attempt(delivery_id=delivery.pk)
    assert delivery.status_code is None and "hooks.test resolves to 127.0.0.1, a loopback address" in (
        delivery.response_excerpt
    )
    assert hostile.requests() == []
    # the operator names the host: the internal service answers, and the log keeps its status line alone
    settings.OUTBOUND_ALLOWED_HOSTS = ["hooks.test"]
    again = WebhookDelivery.objects.create(webhook=hook, event="item.submitted", payload={})
    again = delivery_attempt(delivery_id=again.pk)
    assert (again.status, again.status_code, again.response_excerpt) == (DeliveryStatus.DELIVERED, 200, "200 OK")
    redirected = WebhookDelivery.objects.create(webhook=hook, event="item.submitted", payload={})
    hook.url = f"http://hooks.test:{hostile.port}/redirect?to=http://127.0.0.1:{hostile.port}/secret"
    hook.save()
    redirected = delivery_attempt(delivery_id=redirected.pk)
    assert redirected.status_code == 302 and "redirects are not followed" in redirected.response_excerpt
    assert [r["path"].split("?")[0] for r in hostile.requests()] == ["/secret", "/redirect"]
    assert not WebhookDelivery.objects.filter(response_excerpt__contains="INTERNAL").exists()


@pytest.mark.django_db
def test_a_webhook_removed_while_its_delivery_is_under_way_ends_the_attempt_without_a_retry(monkeypatch):
    """The lead removes a webhook (with its log) while a receiver is slow to answer: the attempt ends quietly (no
    error in the worker, nothing re-created) and no further attempt is sent."""
    import annotator.services.webhooks as webhooks

    work = project_with_work("dbdc", slug="hook-removed", annotators=1)
    hook, _secret = webhook_create(project=work.project, url="https://hooks.example.org/in", events=["item.submitted"])
    delivery = WebhookDelivery.objects.create(webhook=hook, event="item.submitted", payload={})
    sent = []

    def slow_answer(delivery, body):
        hook.delete()  # the lead's DELETE lands while the receiver trickles
        return None, "the answer took longer than its total deadline"

    monkeypatch.setattr(webhooks, "_post", slow_answer)
    monkeypatch.setattr(webhooks, "task_send", lambda *args, **kwargs: sent.append(args))
    assert delivery_attempt(delivery_id=delivery.pk) is None
    assert sent == [] and not WebhookDelivery.objects.filter(pk=delivery.pk).exists()


def test_the_operators_hosts_are_checked_at_deployment(settings):
    from config.outbound.policy import outbound_settings_check

    settings.OUTBOUND_ALLOWED_HOSTS = ["hooks.lab.internal", "10.0.0.5:8080", "http://"]
    settings.JUDGE_ENDPOINT_KEY_URLS = ["https://api.openai.com/v1", "ftp://models"]
    found = [problem.msg for problem in outbound_settings_check()]
    assert found == [
        "OUTBOUND_ALLOWED_HOSTS: 'http://': the URL names no host",
        "JUDGE_ENDPOINT_KEY_URLS: 'ftp://models': give an http:// or https:// URL",
    ]
