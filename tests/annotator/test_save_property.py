"""Answers are never lost and never replaced unseen, in random interleavings: a Hypothesis state machine
drives N tabs of one person's browser (shared cookies), sign-outs and sign-ins, offline periods,
conflicts resolved answer by answer and submissions, against the real save endpoint of a live server
(``POST /api/assignments/ID/judgements/``, the page's and the scripts' one protocol).

Each tab's draft is the page's own code: the ES modules of ``static/js/autosave/`` run in one Node
process (``tests/js/tab_driver.mjs``), so the rules under test are not a Python copy of them; this
side does the HTTP and plays the person. After every step it checks:

- every stored value is one its person confirmed (chose in a tab, or kept in a conflict);
- no stored value was replaced without the person having seen both: the tab that wrote it had seen
  the value it replaced, that very write (at a version no older than its revision), and sent its own;
- after settling (everything online, signed in, every conflict chosen, every queue sent), every stored
  value is the last one its person confirmed (values let go openly aside: a tab's own answer given up
  for the saved one in a conflict, or refused because the item was submitted elsewhere).
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
from collections import Counter
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.error import HTTPError
from urllib.request import Request, urlopen

import pytest
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.test import Client
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from annotator.models import Assignment, AssignmentStatus, Judgement
from annotator.services.judgements import judgements_save
from tests.factories import first_allowed_values, project_with_work

pytestmark = pytest.mark.django_db(transaction=True)

DRIVER = Path(__file__).resolve().parents[1] / "js" / "tab_driver.mjs"
NAMES = ["j:A:0", "j:S:0", "j:E:0"]  # the questions the tabs answer; the others are answered once, before
VALUES = ["-1", "0", "1", ""]  # "" removes the answer (a select's empty choice)
TABS = 3


class Node:
    """The page's draft modules in one Node process, one JSON line each way."""

    def __init__(self):
        self.process = subprocess.Popen(
            [shutil.which("node"), str(DRIVER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )

    def __call__(self, op: str, **args):
        self.process.stdin.write(json.dumps({"op": op, **args}) + "\n")
        reply = json.loads(self.process.stdout.readline())
        assert reply["ok"], reply["error"]
        return reply["result"]

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=10)


class Browser:
    """One browser's cookies (its session and CSRF token), shared by its tabs, over plain HTTP."""

    def __init__(self, base: str):
        self.base = base
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, body=None) -> tuple[int, dict]:
        headers = {"Accept": "application/json", "Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers |= {"Content-Type": "application/json", "X-CSRFToken": self.cookies.get("csrftoken", "")}
        try:
            with urlopen(Request(self.base + path, data=data, headers=headers, method=method), timeout=30) as r:
                return r.status, self._read(r)
        except HTTPError as error:
            return error.code, self._read(error)

    def _read(self, response) -> dict:
        for header in response.headers.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(header).items():
                self.cookies[name] = morsel.value
        raw = response.read()
        return json.loads(raw) if "json" in (response.headers.get("Content-Type") or "") and raw else {}


class Tab:
    def __init__(self, name: str):
        self.name = name
        self.offline = False
        self.signed_out = False  # this tab was told so (a 401), and waits for a sign-in
        self.closed = False  # submitted from here (gone on), or told the item was submitted elsewhere
        self.seen: dict[str, set[tuple[str, int]]] = {n: set() for n in NAMES}  # (value, as of version)


class Saving(RuleBasedStateMachine):
    world: dict  # set by the test: the live server, the item, its person, the Node driver

    @initialize()
    def open_the_item(self):
        w = self.world
        cache.clear()  # the API's write throttle counts per user; every example starts afresh
        item, self.item = w["item"], w["item"]
        Judgement.objects.filter(assignment=item).delete()
        Assignment.objects.filter(pk=item.pk).update(version=0, status=AssignmentStatus.IN_PROGRESS, removed={})
        others = [g for g in w["prefill"] if f"j:{g.criterion}:{g.unit}" not in NAMES]
        judgements_save(assignment_id=item.pk, user=w["person"], values=others, version=0)
        Session.objects.all().delete()
        self.browser = Browser(w["url"])
        self.sign_in_now()
        self.counter = next(w["examples"])
        self.tabs = [self.open_tab(i) for i in range(TABS)]
        # seq, value, tab, then queued | delivered (a save took it) | withdrawn (let go, openly)
        self.confirmed: dict[str, list[list]] = {n: [[0, "", None, "delivered"]] for n in NAMES}
        self.sequence = itertools.count(1)
        self.submitted = False

    # ---- the person's browser ------------------------------------------------------------------------
    def sign_in_now(self):
        client = Client()
        client.force_login(self.world["person"])
        self.browser.cookies["sessionid"] = client.cookies["sessionid"].value
        self.signed_in = True
        status, _state = self.browser.request("GET", f"/items/{self.item.pk}/draft/")  # a CSRF token too
        assert status == 200

    def open_tab(self, i: int) -> Tab:
        tab = Tab(f"{self.counter}-{i}")
        status, state = self.browser.request("GET", f"/items/{self.item.pk}/draft/")
        assert status == 200
        known = {n: state["judgements"].get(n, "") for n in NAMES} | state["judgements"]  # every question
        self.node("open", tab=tab.name, version=state["version"], known=known, kept=None, revisions={})
        self.observe(tab)
        return tab

    def node(self, op, **args):
        return self.world["node"](op, **args)

    def observe(self, tab: Tab) -> dict:
        """What the tab shows now: the values it knows as of its version, and a conflict's saved values."""
        state = self.node("state", tab=tab.name)
        for n in NAMES:
            tab.seen[n].add((state["known"].get(n, ""), state["version"]))
        for item in (state["conflict"] or {}).get("items", []):
            if item["name"] in tab.seen:
                tab.seen[item["name"]].add((item["stored"], state["conflict"]["version"]))
        return state

    def confirm(self, tab: Tab, name: str, value: str):
        if name in self.confirmed:
            self.confirmed[name].append([next(self.sequence), value, tab.name, "queued"])

    def stored(self) -> dict[str, tuple[str, int]]:
        """Each question's stored value and the version that wrote (or removed) it."""
        rows = Judgement.objects.filter(assignment=self.item).values_list("criterion__key", "unit", "value", "revision")
        found = {f"j:{k}:{u}": (v, r) for k, u, v, r in rows}
        removed = Assignment.objects.get(pk=self.item.pk).removed or {}
        keys = dict(self.item.dialogue.project.criteria.values_list("pk", "key"))
        for pair, revision in removed.items():
            criterion, unit = pair.split(":")
            found.setdefault(f"j:{keys[int(criterion)]}:{unit}", ("", revision))
        return {n: found.get(n, ("", 0)) for n in NAMES}

    # ---- a save, checked at the boundary ----------------------------------------------------------------
    def send(self, tab: Tab) -> dict | None:
        body = self.node("outgoing", tab=tab.name)
        if body is None:
            return None
        before = self.stored()
        status, answer = self.browser.request("POST", f"/api/assignments/{self.item.pk}/judgements/", body)
        after = self.stored()
        sent = {f"j:{j['criterion']}:{j['unit']}": j for j in body["judgements"]}
        for n in NAMES:
            if after[n][0] == before[n][0]:
                continue
            assert status == 200, f"{n} changed by a refused save ({status})"
            assert n in sent and sent[n]["value"] == after[n][0], f"{n} written with a value the tab did not send"
            old_value, old_revision = before[n]
            assert any(value == old_value and version >= old_revision for value, version in tab.seen[n]), (
                f"{n}: {old_value!r} (written at version {old_revision}) replaced by {after[n][0]!r} "
                f"from tab {tab.name}, which never saw it: {sorted(tab.seen[n])}"
            )
        outcome = self.node("answered", tab=tab.name, status=status, body=answer)
        kind = outcome["kind"]
        self.world["reached"][kind + (" (a conflict to choose)" if outcome["conflict"] else "")] += 1
        if outcome.get("submitted"):
            self.world["reached"]["submitted"] += 1
        if kind == "ok":
            self.delivered(tab, sent)
        if kind == "signed-out":
            tab.signed_out = True
        elif kind == "forbidden":  # a CSRF token gone with the session: the page asks for a new one
            self.browser.request("GET", f"/items/{self.item.pk}/draft/")
        elif kind == "submitted":
            self.refuse_openly(tab)
        elif outcome.get("submitted"):
            self.submitted = True
            tab.closed = True
        else:
            assert kind in ("ok", "conflict", "invalid", "busy"), outcome
        self.observe(tab)
        return outcome

    def withdraw(self, tab: Tab, name: str):
        """The person let go of what they chose in this tab since its last save there, seeing it was not saved."""
        for confirmation in self.confirmed.get(name, []):
            if confirmation[2] == tab.name and confirmation[3] == "queued":
                confirmation[3] = "withdrawn"

    def delivered(self, tab: Tab, names):
        for name in names:
            for confirmation in self.confirmed.get(name, []):
                if confirmation[2] == tab.name and confirmation[3] == "queued":
                    confirmation[3] = "delivered"

    def refuse_openly(self, tab: Tab):
        """The tab says the item was submitted elsewhere and its answers were not saved: the person knows."""
        state = self.node("state", tab=tab.name)
        for name in state["pending"]:
            self.withdraw(tab, name)
        tab.closed = True

    def alive(self, i: int) -> Tab | None:
        tab = self.tabs[i]
        return None if tab.closed else tab

    # ---- rules -----------------------------------------------------------------------------------------
    @rule(i=st.integers(0, TABS - 1), name=st.sampled_from(NAMES), value=st.sampled_from(VALUES))
    def answer(self, i, name, value):
        tab = self.alive(i)
        if tab is None:
            return
        state = self.node("state", tab=tab.name)
        if value == (state["pending"].get(name) or {}).get("value", state["known"].get(name, "")):
            return  # choosing what the page already shows changes nothing (no change event)
        self.node("record", tab=tab.name, name=name, value=value)
        self.confirm(tab, name, value)
        self.observe(tab)
        if not (tab.offline or tab.signed_out):
            self.send(tab)  # the page saves each change at once; offline or signed out, changes queue up

    @rule(i=st.integers(0, TABS - 1))
    def deliver(self, i):
        tab = self.alive(i)
        if tab is None or tab.offline or tab.signed_out:
            return
        self.send(tab)

    @rule(i=st.integers(0, TABS - 1))
    def toggle_connection(self, i):
        self.tabs[i].offline = not self.tabs[i].offline

    @precondition(lambda self: self.signed_in)
    @rule()
    def session_ends(self):
        Session.objects.all().delete()
        self.signed_in = False

    @precondition(lambda self: not self.signed_in)
    @rule()
    def sign_in(self):
        self.sign_in_now()

    @rule(i=st.integers(0, TABS - 1))
    def back_after_signing_in(self, i):
        tab = self.alive(i)
        if tab is None or not tab.signed_out or not self.signed_in or tab.offline:
            return
        status, state = self.browser.request("GET", f"/items/{self.item.pk}/draft/")
        assert status == 200
        self.node("resume", tab=tab.name, state=state)
        tab.signed_out = False
        self.observe(tab)

    @rule(i=st.integers(0, TABS - 1))
    def press_submit(self, i):
        tab = self.alive(i)
        if tab is None:
            return
        state = self.node("state", tab=tab.name)
        shown = {n: (state["pending"].get(n) or {}).get("value", state["known"].get(n, "")) for n in NAMES}
        if state["conflict"] is None and all(shown.values()):  # the page submits only a complete form
            self.node("submit", tab=tab.name)

    @rule(i=st.integers(0, TABS - 1), data=st.data())
    def choose(self, i, data):
        tab = self.alive(i)
        if tab is not None:
            self.resolve(tab, data)

    def resolve(self, tab: Tab, data):
        state = self.observe(tab)
        if state["conflict"] is None:
            return
        choices = {}
        for item in state["conflict"]["items"]:
            choice = data.draw(st.sampled_from(["mine", "saved"]), label=f"{tab.name} {item['name']}")
            choices[item["name"]] = choice
            if choice == "mine":
                self.confirm(tab, item["name"], item["mine"])
            else:  # taking the saved answer writes nothing: it withdraws this tab's own, openly
                self.withdraw(tab, item["name"])
        assert self.node("resolve", tab=tab.name, choices=choices)["show"] is not None
        self.observe(tab)

    @rule(data=st.data())
    def settle(self, data):
        """Everything online and signed in, every conflict chosen, every queue sent: then every stored value
        is the last one its person confirmed."""
        if not self.signed_in:
            self.sign_in_now()
        for tab in self.tabs:
            tab.offline = False
        alive = [i for i in range(TABS) if self.alive(i)]
        if alive and data.draw(st.booleans(), label="then submit"):  # a submission in one tab, then settling
            i = data.draw(st.sampled_from(alive), label="submitting tab")
            state = self.node("state", tab=self.tabs[i].name)
            for n in NAMES:  # the person completes the form first
                if not state["known"].get(n):
                    self.answer(i, n, data.draw(st.sampled_from(VALUES[:-1]), label=f"complete {n}"))
            self.press_submit(i)
            self.send(self.tabs[i])
        for _round in range(40):
            progress = False
            for i in range(TABS):
                tab = self.alive(i)
                if tab is None:
                    continue
                if tab.signed_out:
                    self.back_after_signing_in(i)
                    progress = True
                state = self.node("state", tab=tab.name)
                if state["conflict"] is not None:
                    self.resolve(tab, data)
                    progress = True
                if self.send(tab) is not None:
                    progress = True
            if not progress:
                break
        else:
            raise AssertionError("the tabs did not settle")
        stored = self.stored()
        for n in NAMES:
            last = [c for c in self.confirmed[n] if c[3] != "withdrawn"][-1]
            assert stored[n][0] == last[1], f"{n}: stored {stored[n][0]!r}, last confirmed {last[1]!r} in {last[2]}"

    # ---- after every step ------------------------------------------------------------------------------
    @invariant()
    def every_stored_value_was_confirmed(self):
        if not hasattr(self, "item"):
            return
        for n, (value, _revision) in self.stored().items():
            assert value in {c[1] for c in self.confirmed[n]}, f"{n}: {value!r} was never confirmed"


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node (scripts/services.py installs Debian's nodejs)")
def test_answers_are_never_lost_nor_replaced_unseen(live_server):
    work = project_with_work("stc3", annotators=1, slug="prop-save")
    person = work.annotators[0]
    item = work.assignments_of(person)[0]
    node = Node()
    Saving.world = {
        "url": live_server.url,
        "item": item,
        "person": person,
        "prefill": first_allowed_values(item),
        "node": node,
        "examples": itertools.count(),
        "reached": Counter(),
    }
    try:
        run_state_machine_as_test(
            Saving,
            settings=settings(
                max_examples=60,
                stateful_step_count=40,
                deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
            ),
        )
    finally:
        node.close()
    # the interleavings reached every case the properties are about (not only quiet saves)
    reached = Saving.world["reached"]
    print(f"saves answered: {dict(reached)}")
    for kind in ("ok", "conflict (a conflict to choose)", "signed-out", "submitted"):
        assert reached[kind] > 0, f"no save reached {kind!r}: {dict(reached)}"
