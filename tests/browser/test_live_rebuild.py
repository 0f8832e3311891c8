"""After an exclusion the dashboard serves the figures as they were, says since when and why they are being brought
up to date, and shows the new ones by itself once a real Celery worker (through Redis, on PostgreSQL) has rebuilt
the live statistics. Screenshots of both states."""

from __future__ import annotations

import pytest

from annotator.services.exclusions import annotator_exclude
from evaluation.models import LiveState
from evaluation.services import incremental
from evaluation.services.live_rebuild import live_state_rebuild
from evaluation.services.statistics import statistics_recompute
from tests.browser.assertions import expect
from tests.browser.conftest import SCREENSHOTS
from tests.browser.test_agreement_intervals import login
from tests.factories import breakdown_project, submit_all, units_of

pytestmark = [
    pytest.mark.browser,
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres(
        reason="a Celery worker in another process rebuilds the live statistics in the shared database"
    ),
]


def _built_project(tmp_path, slug: str):
    """Four annotators on four dialogues, the first saying X everywhere and the others O; statistics and live state
    built. Returns the project's work and the number of labels each annotator gave."""
    work = breakdown_project(tmp_path, dialogues=4, annotators=4, k=4, slug=slug)
    for i, person in enumerate(work.annotators):
        submit_all(person, work.project, lambda a, key, unit, i=i: "X" if i == 0 else "O")
    statistics_recompute(project_id=work.project.pk)
    live_state_rebuild(project_id=work.project.pk)
    return work, sum(len(units_of(d.pk, work.project)) for d in work.project.dialogues.all())


def _exclude_first_held(work, monkeypatch) -> None:
    """The lead excludes the first annotator; the rebuild the exclusion asks for is held back, so that the page
    meets the state stale (the page's own request for it goes to the worker)."""
    with monkeypatch.context() as held:
        held.setattr(incremental, "live_state_rebuild_request", lambda project_id: True)
        annotator_exclude(
            project=work.project, username=work.annotators[0].username, reason="spam", excluded_by=work.lead
        )


def test_the_dashboard_shows_the_stale_notice_then_the_rebuilt_figures(
    celery_worker_process, live_server, page, screenshot, tmp_path, monkeypatch
):
    # given a project whose first annotator said X everywhere and the others O, with its live statistics built
    work, per_person = _built_project(tmp_path, "live-rebuild")
    project = work.project
    generation = LiveState.objects.get(project=project).generation
    # when the lead excludes the first annotator
    _exclude_first_held(work, monkeypatch)
    login(page, live_server, work.lead.username)
    page.goto(f"{live_server.url}/projects/{project.slug}/dashboard/")
    # then the page says the figures are being brought up to date, and why, with the figures from before
    notice = page.locator("#live-stale")
    expect(notice).to_contain_text("being brought up to date since")
    expect(notice).to_contain_text("an annotator was excluded")
    assert page.locator("#live-labels").inner_text() == str(4 * per_person)
    screenshot("live_rebuild_stale")
    page.locator("#freshness").screenshot(path=str(SCREENSHOTS / "live_rebuild_stale_notice.png"))
    # and once the worker's rebuild has committed, the page shows the live figures without the excluded annotator
    expect(page.locator("#live-stale")).to_have_count(0, timeout=60_000)
    expect(page.locator("#live-labels")).to_have_text(str(3 * per_person))
    screenshot("live_rebuild_live")
    page.locator("#freshness").screenshot(path=str(SCREENSHOTS / "live_rebuild_live_notice.png"))
    state = LiveState.objects.get(project=project)
    assert state.stale_since is None and state.generation == generation + 1
    assert state.excluded == [work.annotators[0].pk] and state.rebuilt_because == "exclusion"


def test_a_lead_filling_in_a_form_is_not_cut_short_by_the_new_figures(
    celery_worker_process, live_server, page, tmp_path, monkeypatch
):
    # given the dashboard meeting a stale state (as above)
    work, per_person = _built_project(tmp_path, "live-busy")
    project = work.project
    _exclude_first_held(work, monkeypatch)
    login(page, live_server, work.lead.username)
    page.goto(f"{live_server.url}/projects/{project.slug}/dashboard/")
    expect(page.locator("#live-stale")).to_contain_text("being brought up to date since")
    # when the lead starts writing a reason to exclude another annotator before the rebuild commits
    reason = page.locator(".exclude-form input[name=reason]").first
    reason.fill("answers too fast")
    # then the page is not reloaded under them: the notice says the new figures are ready, with a link
    expect(page.locator("#live-stale")).to_contain_text("The new figures are ready.", timeout=60_000)
    assert reason.input_value() == "answers too fast"
    assert page.locator("#live-labels").inner_text() == str(4 * per_person)
    # and the link shows them
    page.locator("#live-stale").get_by_role("link", name="Show them").click()
    expect(page.locator("#live-labels")).to_have_text(str(3 * per_person))
    expect(page.locator("#live-stale")).to_have_count(0)
