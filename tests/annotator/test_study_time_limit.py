"""A study's time limit through the pages: the item page's clock, saves in the grace and after it (410
with the reason), the lead's confirmation for a running study's new time limit and for a study with no
place."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotator.models import Assignment, Judgement, Participant, ReleasedItem
from annotator.services.judgements import Given, ItemClosed, judgements_save
from annotator.studies.services import StudyError, participant_arrive, participant_start, study_update
from tests.factories import page_save, study_on_new_project

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_rate_counts():
    cache.clear()
    yield
    cache.clear()


def started(study, pid: str) -> tuple[Client, Participant, Assignment]:
    """A participant who opened the link in a browser and consented; their first item."""
    client = Client()
    client.get(reverse("study", args=[study.token]), {"PROLIFIC_PID": pid, "SESSION_ID": f"se-{pid}"})
    client.post(reverse("study_start", args=[study.token]), {"consent": "yes"})
    participant = Participant.objects.get(study=study, external_id=pid)
    return client, participant, Assignment.objects.filter(annotator=participant.user).order_by("queue_rank").first()


def minutes_ago(participant: Participant, minutes: float) -> None:
    Participant.objects.filter(pk=participant.pk).update(allocated_at=timezone.now() - timedelta(minutes=minutes))


def draft(client: Client, item: Assignment, value: str = "no"):
    return page_save(client, item, {"j:severe_error:1": value})


def test_the_item_page_shows_the_deadline_in_server_time_the_rule_and_loads_the_timer(tmp_path):
    _work, study = study_on_new_project(tmp_path, time_limit_minutes=30)
    client, participant, item = started(study, "p1")
    page = client.get(reverse("annotate", args=[item.pk]))
    body = page.content.decode()
    deadline = participant.allocated_at + timedelta(minutes=30)
    assert page.context["study_clock"].deadline == deadline
    assert f'data-deadline="{deadline.isoformat()}"' in body
    assert "When the time is up, this page takes no more answers" in body
    assert 'data-warn-seconds="300"' in body and 'data-warn-seconds="60"' in body
    assert 'type="module" src="/static/js/study_timer.js"' in body
    # an ordinary annotator's page has no clock
    from tests.factories import project_with_work

    other = project_with_work("nlpcc", slug="plain", annotators=1, k=1)
    plain = Client()
    plain.force_login(other.annotators[0])
    mine = Assignment.objects.filter(annotator=other.annotators[0]).first()
    assert "study-clock" not in plain.get(reverse("annotate", args=[mine.pk])).content.decode()


def test_a_save_in_the_grace_is_taken_and_one_after_it_is_refused_with_410_and_the_reason(tmp_path, settings):
    settings.STUDY_SAVE_GRACE_SECONDS = 120
    _work, study = study_on_new_project(tmp_path, time_limit_minutes=30)
    client, participant, item = started(study, "p1")
    # one minute past the limit (within the two minutes' grace): taken
    minutes_ago(participant, 31)
    assert draft(client, item, "no").status_code == 200
    assert Judgement.objects.filter(assignment=item).count() == 1
    # past the grace: refused with 410 and the reason, nothing stored
    minutes_ago(participant, 32.5)
    late = draft(client, item, "yes")
    assert late.status_code == 410
    assert late.json()["code"] == "time_over" and "run out" in late.json()["detail"]
    assert Judgement.objects.get(assignment=item).value == "no"
    submitted = page_save(client, item, {"j:severe_error:1": "no"}, submit=True)
    assert submitted.status_code == 410 and submitted.json()["code"] == "time_over"
    with pytest.raises(ItemClosed):
        judgements_save(assignment_id=item.pk, user=participant.user, values=[Given("severe_error", 1, "yes")])
    # the item's page sends them to the study's page, which says why
    page = client.get(reverse("annotate", args=[item.pk]), follow=True)
    assert page.redirect_chain[-1] == (reverse("study", args=[study.token]), 302)
    assert "The time for this study has run out" in page.content.decode()
    # and the next participant gets the item with the answer saved in time kept in the released copy
    participant_start(participant_id=participant_arrive(study=study, external_id="next").pk)
    kept = ReleasedItem.objects.get(participant=participant, dialogue=item.dialogue)
    assert kept.assignment_number == item.pk
    assert kept.judgements == [{"criterion": "severe_error", "unit": 1, "value": "no"}]


def test_a_participant_who_submits_the_last_item_in_the_grace_gets_the_completion_code(tmp_path):
    _work, study = study_on_new_project(tmp_path, items_per_participant=1, time_limit_minutes=10)
    client, participant, item = started(study, "p1")
    keys = item.dialogue.project.criteria.values_list("key", flat=True)
    minutes_ago(participant, 10.5)
    changes = {f"j:{key}:1": "no" if key == "severe_error" else "yes" for key in keys}
    done = page_save(client, item, changes, submit=True)
    assert done.status_code == 200
    page = client.get(reverse("submit", args=[item.pk]), follow=True)  # where the page goes after submitting
    assert study.completion_code in page.content.decode()


def test_a_new_time_limit_for_a_running_study_says_whom_it_affects_and_needs_confirmation(tmp_path):
    work, study = study_on_new_project(tmp_path, dialogues=6, k=2, items_per_participant=2, time_limit_minutes=60)
    _c1, first, _i1 = started(study, "p1")
    started(study, "p2")
    minutes_ago(first, 40)
    lead = Client()
    lead.force_login(work.lead)
    url = reverse("lead_study", args=[work.project.slug, study.pk])
    form = {"name": study.name, "items_per_participant": 2, "time_limit_minutes": 30, "completion_code": "C0DE"}
    # without the confirmation: refused, saying whom it affects, with the box to confirm
    asked = lead.post(url, form)
    body = asked.content.decode()
    assert asked.status_code == 400
    assert "moves the deadline of 2 participants at work (4 unfinished items)" in body
    assert "1 of them is past the new limit at once" in body
    assert 'name="confirm_time_limit"' in body
    study.refresh_from_db()
    assert study.time_limit_minutes == 60
    # with it: saved
    assert lead.post(url, dict(form, confirm_time_limit="on")).status_code == 302
    study.refresh_from_db()
    assert study.time_limit_minutes == 30
    # other settings change without asking; so does the limit of a study nobody works in
    assert lead.post(url, dict(form, name="renamed")).status_code == 302
    # the API asks the same
    api = reverse("api-study", args=[work.project.slug, study.pk])
    refused = lead.patch(api, {"time_limit_minutes": 45}, content_type="application/json")
    assert refused.status_code == 400 and "participants at work" in refused.json()["detail"]
    confirmed = lead.patch(api, {"time_limit_minutes": 45, "confirm_time_limit": True}, content_type="application/json")
    assert confirmed.status_code == 200 and confirmed.json()["time_limit_minutes"] == 45
    with pytest.raises(StudyError, match="moves the deadline"):
        study_update(study=study, time_limit_minutes=50)


def test_the_time_limit_of_a_study_nobody_works_in_changes_without_asking(tmp_path):
    _work, study = study_on_new_project(tmp_path)
    assert study_update(study=study, time_limit_minutes=5).time_limit_minutes == 5


def test_opening_a_study_with_no_place_says_so_on_the_form_and_needs_confirmation(tmp_path):
    work, _study = study_on_new_project(tmp_path, dialogues=3, k=1, items_per_participant=1)
    lead = Client()
    lead.force_login(work.lead)
    url = reverse("lead_studies", args=[work.project.slug])
    form = {"name": "too big", "items_per_participant": 5, "time_limit_minutes": 20}
    # 3 items lack annotators, fewer than 5 per participant: 0 places, said on the form, nothing opened
    asked = lead.post(url, form)
    body = asked.content.decode()
    assert asked.status_code == 400
    assert "opens with 0 places: 3 items still lack annotators" in body
    assert 'name="open_without_places"' in body
    assert not work.project.studies.filter(name="too big").exists()
    # confirmed: opened, and its page keeps saying so beside the settings
    opened = lead.post(url, dict(form, open_without_places="on"))
    assert opened.status_code == 302
    study = work.project.studies.get(name="too big")
    page = lead.get(reverse("lead_study", args=[work.project.slug, study.pk])).content.decode()
    assert 'id="no-places-warning"' in page
    # every dialogue already with its K annotators (one participant takes all 3): said so too
    participant_start(participant_id=participant_arrive(study=study, external_id="p0").pk)
    full = lead.post(url, dict(form, name="late", items_per_participant=1))
    assert full.status_code == 400 and "every dialogue already has its K = 1" in full.content.decode()
    # a study with places opens at once
    fresh = study_on_new_project(tmp_path, dialogues=4, k=1, slug="roomy")[0]
    roomy = reverse("lead_studies", args=[fresh.project.slug])
    lead.force_login(fresh.lead)
    assert lead.post(roomy, dict(form, items_per_participant=2)).status_code == 302
