"""Every page and API endpoint, requested as each role from live server processes: ``runserver`` as the README starts
it (``scripts/serve.sh``: local settings, SQLite, the demo) and gunicorn with the production settings on PostgreSQL.

The URLs come from the URL resolver, so a new page is requested as soon as it exists (a path parameter the suite
cannot fill fails the test until it learns it). Each answer's status must be one the role may get (never 5xx;
signed out: the login page; an annotator: 403 on the lead's pages; the lead: the pages themselves) and its content
type the one of its kind (HTML pages, JSON API, CSV and zip downloads). The annotator's answers never name the
other annotators. ``-s`` prints the requests per role and their statuses.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.resolvers import RegexPattern

from annotator.models import Participant
from tests.conftest import database_url
from tests.live_servers import PASSWORD, seed_database, start_gunicorn, start_runserver

pytestmark = pytest.mark.django_db(transaction=True)

DEMO_ANNOTATOR_PASSWORD = "demo-annotator-pass"
DEMO_LEAD_PASSWORD = "demo-lead-pass"
# pages anyone may open signed out (everything else sends them to the login page)
PUBLIC = {"login", "javascript-catalog", "study", "schema", "api-docs", "api-token", "set_language", "favicon"}
# ...and the pages of people not signed in yet: password reset by email, an invitation's link
PUBLIC |= {"password_reset", "password_reset_done", "password_reset_confirm", "password_reset_complete"}
PUBLIC |= {"invitation_accept"}
# the lead's pages: an annotator gets 403 (404 for a project not theirs), the project's lead gets the page
LEAD_PAGE = re.compile(r"^/projects/[^/]+/(manage|dashboard|quality|runs|adjudication|dialogues)/")
QUERIES = {
    "api-export": "?format=distributions-csv",
    "export": "?format=distributions-csv",  # the export page (the job writing the file, then its link)
    "api-run-per-dialogue": "?format=csv",
    "agreement_csv": "?block=A&table=categories",  # the data behind one agreement figure
}
CONTENT_TYPES = {  # of a 200 where it is not the kind's own (HTML pages, JSON API)
    "javascript-catalog": "text/javascript",
    "jsi18n": "text/javascript",
    "favicon": "image/x-icon",
    "schema": "application/vnd.oai.openapi",
    "draft": "application/json",  # the item page's autosave reads its saved draft
    "lead_import_status": "application/json",  # the upload page polls it
    "dashboard_live_status": "application/json",  # the dashboard polls it while its live figures are rebuilt
    "api-docs": "text/html",
    "api-export": "text/csv",
    "api-run-per-dialogue": "text/csv",
    "api-archive": "application/zip",
    "api-study-participants-csv": "text/csv",
    "lead_study_csv": "text/csv",
    "run_per_dialogue": "text/csv",
    "agreement_csv": "text/csv",
    "report_download": "text/markdown",
}
# the endpoints whose work runs as a job: 202 (JSON naming the job at work) until a worker has done it
JOB_ROUTES = {"api-export", "api-archive", "api-judge-report"}
SKIPPED = {"view_on_site", "autocomplete"}  # the admin's redirect to a content type's page, and its widget's JSON


@dataclass(frozen=True)
class Route:
    path: str
    name: str | None
    api: bool


def routes() -> list[tuple[str, str | None]]:
    """Every URL pattern as (route with its ``<converter:name>`` parameters, name), from the root resolver."""

    def walk(patterns, prefix=""):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                yield prefix, pattern

    return [(prefix, pattern) for prefix, pattern in walk(get_resolver().url_patterns)]


def admin_objects() -> dict[str, str]:
    """The first object of each model the admin shows, by the admin's URL name prefix (``app_model``)."""
    from django.contrib import admin

    found = {}
    for model in admin.site._registry:
        first = model._default_manager.order_by("pk").values_list("pk", flat=True).first()
        if first is not None:
            found[f"{model._meta.app_label}_{model._meta.model_name}"] = str(first)
    return found


def urls(seeded: dict) -> tuple[list[Route], list[str]]:
    """Every page and endpoint with its parameters filled from the seeded data; the names left out and why."""
    from django.contrib import admin

    participant = Participant.objects.order_by("pk").values_list("pk", flat=True).first() or 1
    objects = admin_objects()
    values = {
        "slug": seeded["slug"],
        "assignment_id": seeded["assignment"],
        "dialogue_id": seeded["dialogue"],
        "user_id": seeded["user"],
        "batch_id": seeded["batch"],
        "token": seeded["study_token"],
        "study_id": seeded["study"],
        "participant_id": participant,
        "run_id": seeded["run"],
        "external_id": seeded["external_id"],
        "criterion": seeded["criterion"],
        "unit": 0,
        "annotator": seeded["annotator"],
        "webhook_id": seeded["webhook"],
        "delivery_id": seeded["delivery"],
        "uidb64": "MQ",  # a password-reset link (its token is not valid: the page says so)
        "invitation_id": 1,
        "fmt": "md",  # the study report's download
        "judge_id": seeded["judge"],
        "name": seeded["judge_name"],  # a judge's report
    }
    found, left_out = [], []
    for prefix, pattern in routes():
        name = pattern.name
        if name in SKIPPED:
            left_out.append(f"{name}: not a page of its own")
            continue
        if isinstance(pattern.pattern, RegexPattern) and str(pattern.pattern) == "(?P<url>.*)$":
            found.append(Route(f"/{prefix}no-such-page/", name, False))  # the admin's catch-all
            continue
        if isinstance(pattern.pattern, RegexPattern):  # the admin's per-app index
            labels = re.search(r"\(\?P<app_label>([^)]*)\)", str(pattern.pattern))
            assert labels, f"a regex URL pattern the suite cannot fill: {pattern.pattern}"
            for label in labels.group(1).split("|"):
                found.append(Route(f"/{prefix}{label}/", name, False))
            continue
        route = prefix + str(pattern.pattern)

        def fill(match, route=route, name=name):
            parameter = match.group(2)
            if parameter == "pk":
                for part, key in (
                    ("assignments/", "assignment"),
                    ("runs/", "run"),
                    ("imports/", "batch"),
                    ("judges/", "judge"),
                    ("jobs/", "job"),
                ):
                    if part in route:
                        return str(seeded[key])
            if parameter in ("object_id", "id") and route.startswith("admin/"):  # admin/<app>/<model>/<id>/...
                app, model = re.match(r"admin/(\w+)/(\w+)/", route).groups()
                return objects.get(f"{app}_{model}", "1")
            if parameter == "slug" and "<id:study_id>" in route:
                return seeded["study_slug"]  # the study runs on a project of its own
            assert parameter in values, f"URL parameter {parameter!r} of {route} ({name}): teach the smoke suite it"
            return str(values[parameter])

        path = "/" + re.sub(r"<(?:(\w+):)?(\w+)>", fill, route)
        found.append(Route(path + QUERIES.get(name, ""), name, path.startswith("/api/")))
    assert admin.site._registry, "the admin shows no models"
    return found, left_out


@dataclass
class Answer:
    role: str
    route: Route
    status: int
    content_type: str
    location: str
    body: str


def request_all(server, sessions: dict, routes_: list[Route]) -> list[Answer]:
    answers = []
    for role, (session, headers) in sessions.items():
        for route in routes_:
            response = session.get(server.url + route.path, headers=headers, allow_redirects=False, timeout=120)
            content_type = response.headers.get("Content-Type", "").split(";")[0].strip()
            body = response.text if content_type.startswith(("text/", "application/json")) else ""
            answers.append(
                Answer(role, route, response.status_code, content_type, response.headers.get("Location", ""), body)
            )
    return answers


def expected_problems(answer: Answer) -> list[str]:
    """What is wrong with one answer (nothing: an empty list)."""
    route, status, role = answer.route, answer.status, answer.role
    where = f"{role} GET {route.path} ({route.name}): {status} {answer.content_type}"
    problems = []
    if status >= 500:
        return [f"{where}: a server error"]
    allowed = {200, 401, 403, 404, 405} if route.api else {200, 302, 403, 404, 405}
    if route.name in JOB_ROUTES:
        allowed.add(202)
    if status not in allowed:
        problems.append(f"{where}: not one of {sorted(allowed)}")
    if status == 200:
        kind = CONTENT_TYPES.get(route.name) or ("application/json" if route.api else "text/html")
        if answer.content_type != kind:
            problems.append(f"{where}: expected {kind}")
    elif status == 302:
        if not answer.location.startswith("/"):
            problems.append(f"{where}: redirects off the site to {answer.location!r}")
    elif answer.content_type != ("application/json" if route.api else "text/html") and status != 405:
        problems.append(f"{where}: an error page of the wrong kind")
    admin = route.path.startswith("/admin/")
    if role == "anonymous" and route.name not in PUBLIC and not admin:
        wanted = {401, 405} if route.api else {302, 405}
        if status not in wanted or (status == 302 and not answer.location.startswith("/accounts/login/")):
            problems.append(f"{where}: signed out, expected the login (or 401)")
    if role == "anonymous" and admin and status == 200 and route.name != "login":
        problems.append(f"{where}: the admin open signed out")
    if role in ("annotator", "participant", "owner") and admin and status == 200 and route.name != "login":
        problems.append(f"{where}: the admin open to a user who is not staff")
    if role == "annotator" and LEAD_PAGE.match(route.path) and status not in (403, 404, 405):
        problems.append(f"{where}: a lead's page open to an annotator")
    if role == "owner" and LEAD_PAGE.match(route.path) and status not in (200, 302, 405):
        problems.append(f"{where}: the lead cannot open their own page")
    if role == "annotator" and any(other in answer.body for other in ("ann2", "ann3")):
        problems.append(f"{where}: names another annotator")
    return problems


def sessions_of(server, seeded: dict) -> dict:
    """A session per role: signed out, an annotator, a lead who is not staff, the demo's superuser (also a lead),
    a study participant who arrived by the study link; API requests carry the user's token."""
    participant, study = server.session(), f"/study/{seeded['study_token']}/"
    arrived = participant.get(f"{server.url}{study}?PROLIFIC_PID=smoke-1", allow_redirects=False, timeout=60)
    assert arrived.status_code == 302 and arrived.headers["Location"] == study, arrived.status_code
    started = server.post_form(participant, f"{study}start/", {"consent": "yes"}, study)
    assert started.status_code == 302, started.status_code
    tokens = seeded["tokens"]
    return {
        "anonymous": (server.session(), {}),
        "annotator": (server.login("ann1", DEMO_ANNOTATOR_PASSWORD), {}),
        "owner": (server.login("owner", PASSWORD), {}),
        "superuser": (server.login("lead", DEMO_LEAD_PASSWORD), {}),
        "participant": (participant, {}),
        "annotator-token": (server.session(), {"Authorization": f"Token {tokens['ann1']}"}),
        "owner-token": (server.session(), {"Authorization": f"Token {tokens['owner']}"}),
    }


def smoke(server, seeded: dict) -> None:
    sessions = sessions_of(server, seeded)
    found, left_out = urls(seeded)
    api_only = [r for r in found if r.api]
    answers = request_all(server, {k: v for k, v in sessions.items() if not k.endswith("-token")}, found)
    answers += request_all(server, {k: v for k, v in sessions.items() if k.endswith("-token")}, api_only)
    problems = [p for a in answers for p in expected_problems(a)]
    by_role = Counter(a.role for a in answers)
    statuses = {role: Counter(a.status for a in answers if a.role == role) for role in by_role}
    print(
        f"\n{server.kind}: {len(found)} URLs ({len(api_only)} API), {len(answers)} requests, {len(problems)} problems"
    )
    for role, n in by_role.items():
        print(f"  {role:16} {n:4} requests  " + " ".join(f"{s}:{c}" for s, c in sorted(statuses[role].items())))
    print("  left out: " + "; ".join(left_out))
    assert problems == [], "\n".join(problems[:60])
    assert len(found) > 150  # the pages, the API and the admin
    assert statuses["owner"][200] > 40 and statuses["annotator"][200] > 5 and statuses["superuser"][200] > 100


@pytest.mark.sqlite_only
def test_every_page_and_endpoint_as_every_role_under_runserver_as_the_readme_starts_it(tmp_path):
    url = database_url()
    seeded = seed_database(url)
    server = start_runserver(url, tmp_path / "runserver.log")
    try:
        smoke(server, seeded)
    finally:
        server.stop()


@pytest.mark.postgres(reason="gunicorn with the production settings, as deployed, on the test PostgreSQL")
def test_every_page_and_endpoint_as_every_role_under_gunicorn_with_the_production_settings(tmp_path):
    url = database_url()
    seeded = seed_database(url)
    server = start_gunicorn(url, tmp_path / "gunicorn.log")
    try:
        smoke(server, seeded)
    finally:
        server.stop()
