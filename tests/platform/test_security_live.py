"""Issue #42's findings, each walked against live processes: the deployment as docker-compose describes it
(``deployment_stack.Stack``: Caddy with the shipped Caddyfile, gunicorn with the production settings, a Celery
worker per queue, beat, PostgreSQL, Redis), hostile receivers on loopback, and a real SMTP server. Every request
below goes through the proxy, from its own loopback address where the limits count per client.

- webhooks never reach an internal service, and the judge key never follows a redirect (``outbound_cases``);
- the proxy has no admin API and no answer names the server software;
- inviting an existing account adds nothing until its owner accepts, and the page answers alike either way;
- password resets and invitations are limited per client and per address; reset answers take as long whether
  or not the address has an account (the medians are printed);
- study return codes are limited per client and per study; participant ids that are not UTF-8 are refused;
- gunicorn and Celery started without ``DJANGO_SETTINGS_MODULE`` run with DEBUG off;
- API answers carry ``Cache-Control: no-store``; a lead's action on another project's item says it did nothing;
- ``manage.py check --deploy`` is clean.

(The archive restores that minted accounts are the archive helper's: ``tests/evaluation/`` covers them.)
"""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from services import free_port  # scripts/services.py (tests/conftest.py puts scripts/ on the path)

from tests.mail_server import smtp_server
from tests.platform.deployment_stack import ROOT, Stack
from tests.platform.outbound_cases import judge_key_redirect, receivers, webhook_to_internal_service
from tests.platform.test_deployment_stack import csrf_of, page_login
from tests.waiting import wait_for

pytestmark = [
    pytest.mark.deployment,
    pytest.mark.postgres(reason="the deployment runs on PostgreSQL; the test starts a cluster of its own"),
]

PASSWORD = "pw-for-tests-1"  # tests.factories.PASSWORD
TIMED = 20  # reset requests timed per kind of address
LIMITS = {  # low enough to reach within the test
    "RETURN_CODE_CLIENT_RATE": "3/hour",
    "RETURN_CODE_STUDY_RATE": "5/hour",
    "PASSWORD_RESET_CLIENT_RATE": "10/hour",
    "PASSWORD_RESET_ADDRESS_RATE": "3/hour",
    "INVITATION_CLIENT_RATE": "100/hour",
    "INVITATION_ADDRESS_RATE": "2/hour",
}

SETUP = """
import json, tempfile
from pathlib import Path
from tests.live_servers import passwords_hashed_once
passwords_hashed_once()  # the accounts' one password hashed once, not per account
from annotator.services.accounts import token_issue
from annotator.studies.services import study_set_open
from tests.factories import project_with_work, study_on_new_project, user_make

work = project_with_work("stc3", slug="sec", annotators=1, lead_name="sec-lead")
other = project_with_work("dbdc", slug="sec-other", annotators=1, lead_name="other-lead")
for user, email in ((work.lead, "lead@example.org"), (work.annotators[0], "member@example.org")):
    user.email = email
    user.save()
known = user_make("known-person")
known.email = "known@example.org"
known.save()
for n in range(%(timed)d):
    timed = user_make(f"timed-{n}")
    timed.email = f"timed{n}@example.org"
    timed.save()
_crowd, study = study_on_new_project(Path(tempfile.mkdtemp()), slug="sec-crowd")
study_set_open(study=study, is_open=True)
print(json.dumps({
    "lead_token": token_issue(user=work.lead).key,
    "other_dialogue": other.project.dialogues.order_by("pk").first().pk,
    "study": study.token,
}))
"""


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    with receivers(tmp_path_factory.mktemp("receivers")) as found:
        yield found


@pytest.fixture(scope="module")
def mail(tmp_path_factory):
    with smtp_server(tmp_path_factory.mktemp("smtp")) as server:
        yield server


@pytest.fixture(scope="module")
def stack(tmp_path_factory, hostile, mail):
    running = Stack(tmp_path_factory.mktemp("stack"), extra_env={**hostile.env(), **mail.settings, **LIMITS})
    try:
        running.start()
        running.world = running.shell_json(SETUP % {"timed": TIMED})
        yield running
    finally:
        running.stop()


def lead_api(stack: Stack) -> requests.Session:
    session = stack.session("127.0.7.1")
    session.headers["Authorization"] = f"Token {stack.world['lead_token']}"
    return session


def signed_in(stack: Stack, address: str, username: str) -> requests.Session:
    session = stack.session(address)
    assert page_login(stack, session, username, PASSWORD).status_code == 302
    return session


def post_form(stack: Stack, session: requests.Session, page: str, data: dict, path: str | None = None):
    """A form posted as the browser does: the CSRF token from ``page``, its Referer; redirects not followed."""
    token = csrf_of(session.get(f"{stack.url}{page}", timeout=30))
    return session.post(
        f"{stack.url}{path or page}",
        data={**data, "csrfmiddlewaretoken": token},
        headers={"Referer": f"{stack.url}{page}"},
        allow_redirects=False,
        timeout=60,
    )


def messages_of(session: requests.Session, stack: Stack, path: str) -> str:
    page = session.get(f"{stack.url}{path}", timeout=30).text
    found = re.search(r'<ul class="messages".*?</ul>', page, re.S)
    return found.group(0) if found else ""


# -- Outgoing requests ---------------------------------------------------------------------------------------


def test_webhooks_never_reach_an_internal_service(stack, hostile):
    webhook_to_internal_service(stack.url, lead_api(stack), "sec", hostile.internal)


def test_the_judge_key_never_follows_a_redirect(stack, hostile):
    judge_key_redirect(stack.url, lead_api(stack), "sec", hostile)


# -- The proxy ---------------------------------------------------------------------------------------------------


def test_the_proxy_has_no_admin_api_and_no_answer_names_the_server(stack):
    caddy = stack.processes["caddy"].pid
    listening = subprocess.run(["ss", "-ltnpH"], capture_output=True, text=True, check=True).stdout
    ports = {int(line.split()[3].rsplit(":", 1)[1]) for line in listening.splitlines() if f"pid={caddy}," in line}
    assert ports == {stack.proxy_port, stack.proxy_http_port}, ports  # no admin endpoint (2019) nor any other
    assert "\tadmin off\n" in (stack.tmp / "Caddyfile").read_text()
    through_proxy = stack.session().get(f"{stack.url}/accounts/login/", timeout=30)
    assert through_proxy.status_code == 200 and "server" not in {k.lower() for k in through_proxy.headers}
    direct = requests.get(
        f"http://127.0.0.1:{stack.web_port}/accounts/login/",
        headers={"Host": "localhost", "X-Forwarded-Proto": "https"},
        timeout=30,
    )
    assert direct.headers.get("Server") == "dialeval"  # gunicorn reached without the proxy names no software


# -- Accounts ----------------------------------------------------------------------------------------------------


def role_in_sec(stack: Stack, username: str) -> str | None:
    return stack.shell_json(
        "import json; from annotator.models import Membership; print(json.dumps(Membership.objects.filter("
        f"project__slug='sec', user__username={username!r}, active=True).values_list('role', flat=True).first()))"
    )


def test_inviting_an_existing_account_adds_nothing_and_says_nothing(stack, mail):
    lead = signed_in(stack, "127.0.8.1", "sec-lead")
    said = []
    for email in ("known@example.org", "stranger@example.org"):
        answer = post_form(
            stack,
            lead,
            "/projects/sec/manage/",
            {"email": email, "role": "lead"},
            path="/projects/sec/manage/invitations/",
        )
        assert answer.status_code == 302
        said.append(messages_of(lead, stack, "/projects/sec/manage/").replace(email, "ADDRESS"))
    assert "Sent an invitation to ADDRESS" in said[0] and said[0] == said[1]  # the same words either way
    assert role_in_sec(stack, "known-person") is None  # not a member before agreeing
    # the owner follows the mailed link, signs in, and joins only on accepting
    link = re.search(r"https?://\S+/invitations/\S+/", mail.message_to("known@example.org").as_string()).group(0)
    path = "/invitations/" + link.split("/invitations/", 1)[1]
    owner = signed_in(stack, "127.0.8.2", "known-person")
    assert 'data-state="join"' in owner.get(f"{stack.url}{path}", timeout=30).text
    assert role_in_sec(stack, "known-person") is None
    accepted = post_form(stack, owner, path, {})
    assert accepted.status_code == 302 and accepted.headers["Location"] == "/projects/sec/manage/"
    assert role_in_sec(stack, "known-person") == "lead"


def test_invitations_are_limited_per_address(stack):
    lead = signed_in(stack, "127.0.8.3", "sec-lead")
    refused = []
    for _attempt in range(3):
        post_form(
            stack,
            lead,
            "/projects/sec/manage/",
            {"email": "spammed@example.org", "role": "annotator"},
            path="/projects/sec/manage/invitations/",
        )
        refused.append("Too many invitations" in messages_of(lead, stack, "/projects/sec/manage/"))
    assert refused == [False, False, True]  # INVITATION_ADDRESS_RATE: 2/hour


def reset(stack: Stack, address: str, email: str) -> tuple[int, float]:
    """A password reset asked from client ``address``; (status, seconds the POST took)."""
    session = stack.session(address)
    page = "/accounts/password/reset/"
    token = csrf_of(session.get(f"{stack.url}{page}", timeout=30))
    started = time.perf_counter()
    answer = session.post(
        f"{stack.url}{page}",
        data={"email": email, "csrfmiddlewaretoken": token},
        headers={"Referer": f"{stack.url}{page}"},
        allow_redirects=False,
        timeout=60,
    )
    return answer.status_code, time.perf_counter() - started


def test_reset_answers_alike_in_words_and_time_whether_the_address_has_an_account(stack, mail, capsys):
    timings: dict[str, list[float]] = {"account": [], "no account": []}
    for n in range(TIMED):  # interleaved, each from a client of its own (no limit reached)
        for kind, email in (("account", f"timed{n}@example.org"), ("no account", f"nobody{n}@example.org")):
            status, took = reset(stack, f"127.0.9.{2 * n + (kind == 'account') + 1}", email)
            assert status == 302, (kind, status)
            timings[kind].append(took)
    medians = {kind: statistics.median(values) * 1000 for kind, values in timings.items()}
    with capsys.disabled():
        load = Path("/proc/loadavg").read_text().split()[:3]
        account, none = medians["account"], medians["no account"]
        said = f"{account:.1f} ms with an account, {none:.1f} ms without; load {load}"
        print(f"\npassword reset medians ({TIMED} each, through Caddy): {said}", flush=True)
    # both kinds send one mail (the same work), so their times are alike; before, 82.7 vs 26.7 ms
    assert "choose a new password" in mail.message_to("timed0@example.org").as_string()
    assert "no account here has it" in mail.message_to("nobody0@example.org").as_string()
    low, high = sorted(medians.values())
    assert high < 1.5 * low + 5, medians


def test_password_resets_are_limited_per_client_and_per_address(stack):
    by_address = [reset(stack, f"127.0.10.{n + 1}", "member@example.org")[0] for n in range(4)]
    assert by_address == [302, 302, 302, 429]  # PASSWORD_RESET_ADDRESS_RATE: 3/hour, whatever the client
    by_client = [reset(stack, "127.0.10.100", f"someone{n}@example.org")[0] for n in range(11)]
    assert by_client == [302] * 10 + [429]  # PASSWORD_RESET_CLIENT_RATE: 10/hour, whatever the address


# -- Studies -----------------------------------------------------------------------------------------------------


def test_return_codes_are_limited_per_client_and_per_study(stack):
    study = f"{stack.url}/study/{stack.world['study']}/"
    first = stack.session("127.0.11.1").get(study, params={"PROLIFIC_PID": "p-codes"}, timeout=30)
    assert first.status_code == 200 and first.url == study  # the participant, signed in in their browser

    def guess(address: str, tries: int) -> list[int]:
        session = stack.session(address)
        url = f"{study}?PROLIFIC_PID=p-codes"
        page = session.get(url, timeout=30)
        assert page.status_code == 403 and 'id="return-code-form"' in page.text  # bound to the first browser
        statuses = []
        for n in range(tries):
            token = csrf_of(session.get(url, timeout=30))
            answer = session.post(
                url, data={"return_code": f"WRONG{n}", "csrfmiddlewaretoken": token}, headers={"Referer": url},
                allow_redirects=False, timeout=30,
            )  # fmt: skip
            statuses.append(answer.status_code)
        return statuses

    assert guess("127.0.11.2", 4) == [403, 403, 403, 429]  # RETURN_CODE_CLIENT_RATE: 3/hour
    assert guess("127.0.11.3", 3) == [403, 403, 429]  # RETURN_CODE_STUDY_RATE: 5/hour across clients


def test_participant_ids_that_are_not_utf8_are_refused(stack):
    study = f"{stack.url}/study/{stack.world['study']}/"
    for raw in ("%FF", "%FE", "%C3%28"):
        answer = stack.session("127.0.12.1").get(f"{study}?PROLIFIC_PID={raw}", allow_redirects=False, timeout=30)
        assert answer.status_code == 400 and "its bytes are not UTF-8" in answer.text, raw
    count = stack.shell_json(
        "import json; from annotator.models import Participant; "
        f"print(json.dumps(Participant.objects.filter(study__token={stack.world['study']!r}).count()))"
    )
    fine = stack.session("127.0.12.2").get(
        study, params={"PROLIFIC_PID": "p-\u00e9t\u00e9"}, allow_redirects=False, timeout=30
    )
    assert fine.status_code == 302  # a real id, in UTF-8, is taken
    assert (
        stack.shell_json(
            "import json; from annotator.models import Participant; "
            f"print(json.dumps(Participant.objects.filter(study__token={stack.world['study']!r}).count()))"
        )
        == count + 1
    )


# -- Safe by default ---------------------------------------------------------------------------------------------


def unset_settings_env(stack: Stack, **changes: str) -> dict[str, str]:
    env = {k: v for k, v in stack.env.items() if k != "DJANGO_SETTINGS_MODULE"}
    env.update(changes)
    return {k: v for k, v in env.items() if v != ""}


def gunicorn_404(stack: Stack, name: str, **changes: str) -> tuple[requests.Response | None, str]:
    """gunicorn started as the compose file starts it (``changes`` to its environment, no settings module unless
    one is given): its answer to a page that does not exist (None: it did not start), and its log."""
    port, log = free_port(), stack.tmp / f"{name}-gunicorn.log"
    env = unset_settings_env(stack, GUNICORN_BIND=f"127.0.0.1:{port}", GUNICORN_WORKERS="1", **changes)
    with open(log, "w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.py", "config.wsgi:application"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    headers = {"Host": "localhost", "X-Forwarded-Proto": "https"}

    def missing() -> requests.Response | None:
        try:
            return requests.get(f"http://127.0.0.1:{port}/no-such-page/", headers=headers, timeout=30)
        except requests.RequestException:  # not listening yet, or its worker still starting
            return None

    try:
        assert wait_for(lambda: missing() is not None or server.poll() is not None, timeout=120), log.read_text()
        return missing(), log.read_text()
    finally:
        if server.poll() is None:
            server.terminate()
        server.wait(timeout=30)


def test_gunicorn_without_a_settings_module_shows_no_debug_page(stack):
    debug_page = "Using the URLconf defined in"  # Django's 404 with DEBUG on lists every URL pattern
    # without a secret key it does not start, and says which settings to name on one's own machine
    answer, log = gunicorn_404(stack, "no-key", SECRET_KEY="")
    assert answer is None and "config.settings.local" in log, log
    answer, log = gunicorn_404(stack, "default")
    assert answer is not None and answer.status_code == 404 and debug_page not in answer.text, log
    # the local settings, named, are what showed it
    answer, log = gunicorn_404(stack, "local", DJANGO_SETTINGS_MODULE="config.settings.local")
    assert answer is not None and debug_page in answer.text, log


def celery_worker(stack: Stack, name: str, **changes: str) -> tuple[bool, str]:
    """A worker started as the compose file starts one, on a queue of its own: (whether it got ready, its log)."""
    log = stack.tmp / f"{name}.log"
    env = unset_settings_env(stack, **changes)
    with open(log, "w") as out:
        worker = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", f"security-{name}",
             "-n", f"{name}@security", "--pool", "solo", "--loglevel", "INFO"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        assert wait_for(lambda: "ready." in log.read_text() or worker.poll() is not None, timeout=120)
        return worker.poll() is None, log.read_text()
    finally:
        if worker.poll() is None:
            worker.terminate()
        worker.wait(timeout=60)


def test_celery_without_a_settings_module_runs_the_production_settings(stack):
    # the production settings (DEBUG off) are what it loads: without their secret key it refuses to start...
    ready, log = celery_worker(stack, "no-key", SECRET_KEY="")
    assert not ready and "these are the production settings" in log and "config.settings.local" in log, log
    # ...which the local settings, named, would not need; and with the key the worker runs
    assert celery_worker(stack, "local", SECRET_KEY="", DJANGO_SETTINGS_MODULE="config.settings.local")[0]
    assert celery_worker(stack, "default")[0]


# -- Smaller findings --------------------------------------------------------------------------------------------


def test_api_answers_are_never_cached(stack):
    answer = lead_api(stack).get(f"{stack.url}/api/projects/", timeout=30)
    assert answer.status_code == 200 and "no-store" in answer.headers["Cache-Control"]
    refused = stack.session("127.0.7.2").get(f"{stack.url}/api/projects/", timeout=30)
    assert refused.status_code in (401, 403) and "no-store" in refused.headers["Cache-Control"]


def test_an_action_on_another_projects_item_says_it_did_nothing(stack):
    lead = signed_in(stack, "127.0.8.4", "sec-lead")
    path = f"/projects/sec/quality/items/{stack.world['other_dialogue']}/remove/"
    answer = post_form(stack, lead, "/projects/sec/quality/", {}, path=path)
    assert answer.status_code == 404
    assert "ordinary item again" not in messages_of(lead, stack, "/projects/sec/quality/")


def test_check_deploy_is_clean(stack):
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=stack.env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0 and "no issues" in done.stdout, done.stdout + done.stderr
