"""The dashboard's live figures on the README's own server: ``./scripts/serve.sh`` as a person runs it (SQLite,
the demo, runserver and its Celery worker with beat on the filesystem broker beside the database). The lead opens
the dashboard of the judged demo: the notice says the live figures are being prepared, and the page shows them by
itself once the worker has built them (or, the lead being busy in a form, offers them with a link). The lead then
excludes an annotator on the dashboard: the page never shows the figures from before without the notice naming the
exclusion, and ends showing those without the annotator by itself. Screenshots of the states
(test-artifacts/screenshots/live_rebuild_serve_*.png).

The exclusion's request answers at once; the worker recomputes the statistics and rebuilds the live figures, the
rebuild being the shorter of the two: the lead who excluded may meet the rebuilt figures at once; the notice after a
structural change is what the page shows meanwhile (tests/browser/test_live_rebuild.py holds the rebuild back with
a worker to show it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.browser.assertions import expect
from tests.browser.conftest import SCREENSHOTS
from tests.live_servers import BROKER_ENV, ROOT, running, start_serve_script
from tests.waiting import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only]

SLUG = "demo-stc3"
LEAD = ("lead", "demo-lead-pass")  # the README's demo accounts
# ann1 answers the last value allowed everywhere, ann2 and ann3 the first: excluding ann1 changes every figure
JUDGE = """
import django
django.setup()
from django.contrib.auth import get_user_model
from annotator.models import Assignment, Judgement, Project
from annotator.services.judgements import judgements_save
from tests.factories import _values_for_units
project = Project.objects.get(slug="{slug}")
for name in ("ann1", "ann2", "ann3"):
    user = get_user_model().objects.get(username=name)
    for item in Assignment.objects.filter(annotator=user, dialogue__project=project).select_related("dialogue"):
        pick = (lambda allowed: allowed[-1]) if name == "ann1" else (lambda allowed: allowed[0])
        judgements_save(assignment_id=item.pk, user=user, values=_values_for_units(item, pick), seconds=30, submit=True)
print("JUDGED", [Judgement.objects.filter(assignment__annotator__username=name, assignment__dialogue__project=project)
                 .count() for name in ("ann1", "ann2", "ann3")])
"""


def _judge_the_demo(folder) -> list[int]:
    """The demo annotators' items submitted (their labels, for ann1, ann2 and ann3), in a process of their own on
    the server's database (as saves from the pages would write them: the work they ask for goes to serve.sh's
    worker through its broker beside the database)."""
    env = {k: v for k, v in os.environ.items() if k not in BROKER_ENV}
    env.update(DATABASE_URL=f"sqlite:///{folder / 'serve.sqlite3'}", DJANGO_SETTINGS_MODULE="config.settings.local")
    done = subprocess.run(
        [sys.executable, "-c", JUDGE.format(slug=SLUG)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.split("JUDGED")[-1])


def _login(page, server) -> None:
    page.goto(f"{server.url}/accounts/login/")
    page.get_by_label("Username").fill(LEAD[0])
    page.get_by_label("Password").fill(LEAD[1])
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{server.url}/")


def test_the_dashboard_of_serve_sh_shows_the_notice_then_the_live_figures_by_itself(tmp_path, page, screenshot):
    with running(start_serve_script(tmp_path)) as server:
        # given the demo's STC-3 project with every item of the three demo annotators submitted (no live figures yet)
        labels = _judge_the_demo(tmp_path)
        assert min(labels) > 0
        _login(page, server)
        dashboard = f"{server.url}/projects/{SLUG}/dashboard/"
        # when the lead opens the dashboard (its statistics never computed: nothing is computed in the GET)
        page.goto(dashboard)
        # then it says serve.sh's worker is computing them, and shows them by itself once it has (whether the live
        # figures' first build was still under way is a race with the worker, which tests/browser/test_live_rebuild.py
        # covers with the notice and a lead writing in a form meanwhile)
        status = page.locator("#freshness")
        if not page.locator("#live-labels").count():
            expect(status).to_contain_text("being computed for the first time on a worker")
            screenshot("live_rebuild_serve_first")
        expect(page.locator("#live-labels")).to_be_visible(timeout=180_000)
        expect(page.locator("#live-stale")).to_have_count(0, timeout=180_000)
        notice = page.locator("#live-stale")
        before = int(page.locator("#live-labels").inner_text())
        assert before >= sum(labels)  # and the labels the demo file came with
        # when the lead excludes ann1 on the dashboard
        row = page.locator("tr[data-annotator='ann1']")
        row.locator("input[name=reason]").fill("answers the last value everywhere")
        row.get_by_role("button", name="Exclude").click()
        page.wait_for_url(f"{dashboard}*")
        # then the page never shows the figures from before the exclusion without saying so: either the notice
        # names the exclusion over them, or the worker's rebuild was done before the page was
        if page.locator("#live-stale").count():
            expect(notice).to_contain_text("an annotator was excluded")
            assert int(page.locator("#live-labels").inner_text()) == before
            screenshot("live_rebuild_serve_stale")
            page.locator("#freshness").screenshot(path=str(SCREENSHOTS / "live_rebuild_serve_stale_notice.png"))
        # and the page shows the figures without ann1, by itself if it had to
        expect(page.locator("#live-stale")).to_have_count(0, timeout=120_000)
        expect(page.locator("#live-labels")).to_have_text(str(before - labels[0]))

        # the reliability panel is the full statistics' (recomputed after the exclusion; on a loaded machine after the
        # live figures): it names the exclusion once they are, which a reload shows
        def excluded_shown() -> bool:
            if "Excluded annotators" in page.locator("#reliability").inner_text():
                return True
            page.reload()
            return False

        assert wait_for(excluded_shown, 180, every=2)
        screenshot("live_rebuild_serve_live")
        page.locator("#freshness").screenshot(path=str(SCREENSHOTS / "live_rebuild_serve_live_notice.png"))
        assert "Traceback" not in server.log.read_text(), server.log.read_text()[-3000:]
