"""Two cases of outgoing requests walked against a running deployment (``deployment_stack.Stack``) by both
``test_deployment_stack.py`` and ``test_security_live.py``: a webhook aimed at an internal service, and an
endpoint judge whose operator-named endpoint answers with a redirect to another server.

The receivers are processes of their own on loopback (``tests/hostile_receiver.py``), started before the stack:
the key's URL, which names one of them, is a setting of the stack's processes.
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import requests

from config.outbound.addresses import address_refusal
from tests.live_servers import HostileReceiver

KEY = "sk-stack-secret-never-elsewhere"
PROMPT = {"A": "{question}\n{dialogue}\nValues:\n{scale}"}


@dataclass
class Receivers:
    internal: HostileReceiver  # an internal service on the machine (what Caddy's admin API was)
    endpoint: HostileReceiver  # the chat completions endpoint the operator named for the key: it redirects
    attacker: HostileReceiver  # where that redirect points

    def env(self) -> dict[str, str]:
        """The stack's settings: the key, for the endpoint's origin only."""
        return {"JUDGE_ENDPOINT_API_KEY": KEY, "JUDGE_ENDPOINT_KEY_URLS": self.endpoint.url("/")}


@contextlib.contextmanager
def receivers(folder: Path) -> Iterator[Receivers]:
    started = [HostileReceiver(folder / f"{name}.jsonl") for name in ("internal", "endpoint", "attacker")]
    try:
        yield Receivers(*started)
    finally:
        for server in started:
            server.stop()


def internal_name() -> str:
    """A name of this machine that resolves to an internal address without any DNS server (its host name, from
    /etc/hosts) and that no check of a typed URL can refuse (it is not ``localhost`` nor ``*.internal``)."""
    import ipaddress

    name = socket.gethostname()
    found = {info[4][0] for info in socket.getaddrinfo(name, 80, type=socket.SOCK_STREAM)}
    assert found and all(address_refusal(ipaddress.ip_address(a.split("%")[0])) for a in found), (name, found)
    return name


def poll(fetch, done, timeout: float = 120):
    """``fetch()`` until ``done(value)``; the last value."""
    deadline = time.monotonic() + timeout
    while True:
        value = fetch()
        if done(value) or time.monotonic() > deadline:
            return value
        time.sleep(1)


def webhook_to_internal_service(url: str, lead: requests.Session, slug: str, internal: HostileReceiver) -> None:
    """A lead aims webhooks at an internal service: refused when the URL names the address, and refused by the
    worker at every attempt when a name resolves to it; the service receives nothing and the log shows no answer."""
    hooks = f"{url}/api/projects/{slug}/webhooks/"
    refused = lead.post(hooks, json={"url": internal.url("/stop"), "events": ["item.submitted"]}, timeout=30)
    assert refused.status_code == 400 and "loopback" in refused.text, refused.text
    named = f"http://{internal_name()}:{internal.port}/config/"
    created = lead.post(hooks, json={"url": named, "events": ["item.submitted"]}, timeout=30)
    assert created.status_code == 201, created.text
    hook = created.json()["id"]
    assert lead.post(f"{hooks}{hook}/test/", timeout=30).status_code == 202
    deliveries = poll(
        lambda: lead.get(f"{hooks}{hook}/deliveries/", timeout=30).json(),
        lambda found: found and found[0]["attempts"] >= 1 and found[0]["status"] != "pending",
    )
    [delivery] = deliveries
    assert delivery["status_code"] is None and "a loopback address" in delivery["response_excerpt"], delivery
    assert internal.requests() == []  # not one request reached the internal service
    # the lead removes it (left, its delivery would be tried again for a quarter of an hour, as designed)
    assert lead.delete(f"{hooks}{hook}/", timeout=30).status_code == 204


def judge_key_redirect(url: str, lead: requests.Session, slug: str, found: Receivers) -> None:
    """The endpoint the key is meant for answers 307 to another server: the judge fails saying redirects are not
    followed, the key reached the named endpoint only, and the other server heard nothing; a judge aimed at that
    other server directly is refused (a loopback address the operator did not name)."""
    judges = f"{url}/api/projects/{slug}/judges/"
    endpoint = {"url": found.endpoint.url(f"/to/{found.attacker.port}/v1"), "model": "m", "prompts": PROMPT}
    created = lead.post(judges, json={"name": "redirected", "endpoint": {**endpoint, "max_retries": 0}}, timeout=30)
    assert created.status_code == 201, created.text
    judge = created.json()["id"]
    final = poll(
        lambda: lead.get(f"{judges}{judge}/", timeout=30).json(),
        lambda answer: answer["status"] in ("ready", "failed"),
    )
    assert final["status"] == "failed" and "redirects are not followed" in final["error"], final
    asked = found.endpoint.requests()
    assert asked and {r["headers"].get("Authorization") for r in asked} == {f"Bearer {KEY}"}
    assert found.attacker.requests() == []  # the key never left the named host
    direct = {**endpoint, "url": found.attacker.url("/v1")}
    refused = lead.post(judges, json={"name": "direct", "endpoint": direct}, timeout=30)
    assert refused.status_code == 400 and "loopback" in refused.text, refused.text
