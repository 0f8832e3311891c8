"""Crowdsourced studies through the pages: links with platform ids, consent, quotas, time limits,
completion, the lead's pages, rate limiting and what a participant can reach."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import connection
from django.db.models import Count
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token

from annotator.handout.services.bulk import assignments_create_balanced
from annotator.models import (
    Assignment,
    AssignmentStatus,
    Membership,
    Participant,
    ReleasedItem,
    Role,
)
from annotator.services.judgements import Given, judgements_save
from annotator.services.projects import membership_add
from annotator.studies.selectors import full_places, participant_state, study_places
from annotator.studies.services import (
    StudyError,
    participant_arrive,
    participant_start,
    study_create,
    study_set_open,
    study_token_rotate,
)
from tests.factories import page_save, project_with_work, study_on_new_project, user_make

pytestmark = pytest.mark.django_db

PROLIFIC = {"PROLIFIC_PID": "5f1a2b3c4d5e6f7a8b9c0d1e", "STUDY_ID": "st-1", "SESSION_ID": "se-1"}


@pytest.fixture(autouse=True)
def fresh_rate_counts():
    """The per-address counts of new participants live in the cache: every test starts without any."""
    cache.clear()
    yield
    cache.clear()


def link(study) -> str:
    return reverse("study", args=[study.token])


def arrive(client: Client, study, **query):
    """Open the study link with ``query`` and follow the redirects."""
    return client.get(link(study), query, follow=True)


def consent(client: Client, study, *, agree: bool = True):
    return client.post(reverse("study_start", args=[study.token]), {"consent": "yes"} if agree else {}, follow=True)


def all_yes(assignment) -> list[Given]:
    keys = assignment.dialogue.project.criteria.values_list("key", flat=True)
    return [Given(key, 1, "no" if key == "severe_error" else "yes") for key in keys]


def finish(participant):
    for item in Assignment.objects.filter(annotator=participant.user):
        judgements_save(assignment_id=item.pk, user=participant.user, values=all_yes(item), submit=True)


def test_a_prolific_link_makes_a_participant_without_password_or_token_who_sees_consent_and_guidelines(tmp_path):
    # given a study with consent text on a project with guidelines
    work, study = study_on_new_project(tmp_path, consent_text="We keep your answers for research.")
    client = Client()
    # when a Prolific participant opens the link
    response = arrive(client, study, **PROLIFIC)
    # then a participant bound to the PROLIFIC_PID exists, signed in, with the platform's other ids
    participant = Participant.objects.get(study=study)
    assert participant.external_id == PROLIFIC["PROLIFIC_PID"]
    assert participant.platform == {"STUDY_ID": "st-1", "SESSION_ID": "se-1"}
    assert response.redirect_chain == [(link(study), 302)]  # the id leaves the address bar
    assert response.context["user"] == participant.user
    # a user with no usable password, no API token, an annotator of the project
    assert not participant.user.has_usable_password()
    assert not Token.objects.filter(user=participant.user).exists()
    assert Membership.objects.get(user=participant.user).role == Role.ANNOTATOR
    # the consent text and the guidelines are shown, and no work is given before consent
    body = response.content.decode()
    assert "We keep your answers for research." in body
    assert work.project.guidelines.split(",")[0] in body
    assert 'id="start-study"' in body
    assert not Assignment.objects.filter(annotator=participant.user).exists()


def test_work_starts_after_consent_with_the_quota_of_items(tmp_path):
    _work, study = study_on_new_project(tmp_path, dialogues=6, k=2, items_per_participant=3)
    client = Client()
    arrive(client, study, **PROLIFIC)
    participant = Participant.objects.get(study=study)
    # without ticking the box: asked again, nothing given
    refused = consent(client, study, agree=False)
    assert refused.status_code == 400 and "Tick the box" in refused.content.decode()
    assert not Assignment.objects.filter(annotator=participant.user).exists()
    # with consent: three different dialogues, and the first item opens
    response = consent(client, study)
    items = list(Assignment.objects.filter(annotator=participant.user).order_by("queue_rank"))
    assert len({a.dialogue_id for a in items}) == 3
    assert response.redirect_chain[-1] == (reverse("annotate", args=[items[0].pk]), 302)
    participant.refresh_from_db()
    assert participant.consented_at and participant.allocated_at


def test_a_returning_participant_continues_on_another_device_and_never_gets_a_second_set(tmp_path, settings):
    _work, study = study_on_new_project(tmp_path, dialogues=6, k=2, items_per_participant=2)
    first_device = Client()
    arrive(first_device, study, **PROLIFIC)
    consent(first_device, study)
    participant = Participant.objects.get(study=study)
    items = list(Assignment.objects.filter(annotator=participant.user).order_by("queue_rank", "pk"))
    judgements_save(assignment_id=items[0].pk, user=participant.user, values=all_yes(items[0]), submit=True)
    # when the same id comes back on another device (a new session) from the same Prolific submission
    other_device = Client()
    response = arrive(other_device, study, **PROLIFIC)
    # then it is the same participant, taken to the item left to do, and consenting again gives nothing new
    assert Participant.objects.filter(study=study).count() == 1
    assert response.redirect_chain[-1] == (reverse("annotate", args=[items[1].pk]), 302)
    consent(other_device, study)
    participant_start(participant_id=participant.pk)
    assert Assignment.objects.filter(annotator=participant.user).count() == 2
    assert participant_arrive(study=study, external_id=PROLIFIC["PROLIFIC_PID"]).pk == participant.pk
    # and the first device, signed out meanwhile, comes back by its cookie alone (no platform value)
    del first_device.cookies[settings.SESSION_COOKIE_NAME]  # (Client.logout() would drop every cookie)
    again = arrive(first_device, study, PROLIFIC_PID=PROLIFIC["PROLIFIC_PID"])
    assert again.redirect_chain[-1] == (reverse("annotate", args=[items[1].pk]), 302)


def test_a_participant_id_alone_does_not_sign_in_from_another_browser(tmp_path, settings):
    # given a Prolific participant who started in their browser
    _work, study = study_on_new_project(tmp_path, dialogues=6, k=2, items_per_participant=2)
    owner = Client()
    arrive(owner, study, **PROLIFIC)
    consent(owner, study)
    participant = Participant.objects.get(study=study)
    # when someone else opens the link with that id alone, or with another submission's SESSION_ID
    for query in ({"PROLIFIC_PID": PROLIFIC["PROLIFIC_PID"]}, dict(PROLIFIC, SESSION_ID="se-guess")):
        stranger = Client()
        refused = arrive(stranger, study, **query)
        # then they are refused with a page that says what to do, and are not signed in
        assert refused.status_code == 403
        assert "This participant id has started in another browser" in refused.content.decode()
        assert "_auth_user_id" not in stranger.session
        assert stranger.get(link(study)).context["kind"] == "no_id"
    # a wrong return code is refused too, and says so
    stranger = Client()
    url = f"{link(study)}?PROLIFIC_PID={PROLIFIC['PROLIFIC_PID']}"
    wrong = stranger.post(url, {"return_code": "WRONGCODE2"})
    assert wrong.status_code == 403 and "That return code is not right" in wrong.content.decode()
    assert "_auth_user_id" not in stranger.session
    # the participant's own code (as typed: lower case, with a dash) signs the new browser in and binds it
    code = participant.return_code
    typed = f"{code[:5].lower()}-{code[5:]}"
    assert stranger.post(url, {"return_code": typed}).status_code == 302
    assert int(stranger.session["_auth_user_id"]) == participant.user_id
    del stranger.cookies[settings.SESSION_COOKIE_NAME]
    assert arrive(stranger, study, PROLIFIC_PID=PROLIFIC["PROLIFIC_PID"]).context["user"] == participant.user
    # a forged cookie (not signed by the server) binds nothing
    forger = Client()
    forger.cookies[f"study-{study.pk}"] = str(participant.pk)
    assert arrive(forger, study, PROLIFIC_PID=PROLIFIC["PROLIFIC_PID"]).status_code == 403
    # the participant sees their return code before they start and on every item page
    newcomer = Client()
    arrive(newcomer, study, PROLIFIC_PID="newcomer")
    fresh = Participant.objects.get(external_id="newcomer")
    assert fresh.return_code in newcomer.get(link(study)).content.decode()
    consent(newcomer, study)
    item = Assignment.objects.filter(annotator=fresh.user).first()
    assert fresh.return_code in newcomer.get(reverse("annotate", args=[item.pk])).content.decode()


def test_an_mturk_worker_comes_back_with_the_same_assignment_id_but_not_with_the_worker_id_alone(tmp_path):
    _work, study = study_on_new_project(tmp_path, dialogues=6, k=2)
    arrive(Client(), study, workerId="A1WORKER", assignmentId="3AS", hitId="3HIT")
    assert arrive(Client(), study, workerId="A1WORKER", assignmentId="3AS", hitId="3HIT").status_code == 200
    assert arrive(Client(), study, workerId="A1WORKER").status_code == 403
    assert arrive(Client(), study, workerId="A1WORKER", assignmentId="OTHER").status_code == 403


def test_mturk_generic_and_custom_parameters_and_the_mturk_preview(tmp_path):
    _work, study = study_on_new_project(tmp_path, dialogues=8, k=2, id_parameter="pid")
    arrive(Client(), study, workerId="A1WORKER", assignmentId="3AS", hitId="3HIT")
    arrive(Client(), study, participant="anyone-7")
    arrive(Client(), study, pid="custom-9", participant="ignored")
    found = dict(Participant.objects.filter(study=study).values_list("external_id", "platform"))
    assert found == {
        "A1WORKER": {"assignmentId": "3AS", "hitId": "3HIT"},
        "anyone-7": {},
        "custom-9": {},
    }
    # an MTurk preview (the worker has not accepted the HIT) explains and creates nobody
    preview = arrive(Client(), study, assignmentId="ASSIGNMENT_ID_NOT_AVAILABLE", hitId="3HIT")
    assert preview.status_code == 200 and "Accept the task to start" in preview.content.decode()
    assert Participant.objects.filter(study=study).count() == 3


def test_visits_without_an_id_with_a_bad_id_or_to_an_unknown_or_closed_study_get_a_page_that_explains(tmp_path):
    _work, study = study_on_new_project(tmp_path)
    no_id = arrive(Client(), study)
    assert no_id.status_code == 200 and "Open this study from your recruiting platform" in no_id.content.decode()
    bad = arrive(Client(), study, PROLIFIC_PID="x\x01y")
    assert bad.status_code == 400 and "not valid" in bad.content.decode()
    unknown = Client().get(reverse("study", args=["no-such-token"]))
    assert unknown.status_code == 404 and "This study link does not work" in unknown.content.decode()
    assert not Participant.objects.exists()
    # a participant who started before the study closed carries on; newcomers are told it is closed
    started = Client()
    arrive(started, study, PROLIFIC_PID="early")
    consent(started, study)
    study_set_open(study=study, is_open=False)
    closed = arrive(Client(), study, PROLIFIC_PID="late")
    assert closed.status_code == 200 and "This study is closed" in closed.content.decode()
    assert not Participant.objects.filter(external_id="late").exists()
    again = arrive(started, study, PROLIFIC_PID="early")
    assert again.redirect_chain[-1][0].startswith("/items/")
    # reopening takes newcomers again
    study_set_open(study=study, is_open=True)
    arrive(Client(), study, PROLIFIC_PID="late")
    assert Participant.objects.filter(external_id="late").exists()


def test_participants_reach_nothing_but_their_own_queue(tmp_path):
    # given two participants of a study, and another project the first one is not part of
    work, study = study_on_new_project(tmp_path, dialogues=6, k=2)
    other = project_with_work("nlpcc", slug="elsewhere", annotators=1, k=1)
    me, them = Client(), Client()
    for client, pid in ((me, "me"), (them, "them")):
        arrive(client, study, PROLIFIC_PID=pid)
        consent(client, study)
    mine = Participant.objects.get(external_id="me")
    theirs = Assignment.objects.filter(annotator__study_participant__external_id="them").first()
    # then their items, other projects, lead pages and other annotators' work answer 404 or 403
    assert me.get(reverse("annotate", args=[theirs.pk])).status_code == 404
    assert me.post(reverse("submit", args=[theirs.pk]), {"j:severe_error:1": "no"}).status_code == 404
    assert me.get(reverse("queue", args=[other.project.slug])).status_code == 404
    assert me.get(reverse("lead_project", args=[work.project.slug])).status_code == 403
    assert me.get(reverse("lead_studies", args=[work.project.slug])).status_code == 403
    assert me.get(reverse("api-study", args=[work.project.slug, study.pk])).status_code == 403
    listed = me.get(reverse("api-assignments")).json()["results"]
    assert {a["id"] for a in listed} == set(Assignment.objects.filter(annotator=mine.user).values_list("pk", flat=True))
    # the project's queue is the study page, which sends them to their next item
    queue = me.get(reverse("queue", args=[work.project.slug]), follow=True)
    assert queue.redirect_chain[0] == (link(study), 302)
    # and the top bar offers no password change to an account without a password
    page = queue.content.decode()
    assert reverse("password_change") not in page and reverse("account_settings") in page
    # no password login and no way to get an API token with one
    anon = Client()
    anon.post(reverse("login"), {"username": mine.user.username, "password": ""})  # the login form, as a person would
    assert "_auth_user_id" not in anon.session
    assert anon.post(reverse("api-token"), {"username": mine.user.username, "password": "x"}).status_code == 400


def test_new_participants_are_rate_limited_per_client_address(tmp_path, settings):
    settings.STUDY_PARTICIPANTS_RATE = "3/hour"
    _work, study = study_on_new_project(tmp_path, dialogues=10, k=3)
    browsers = [Client(REMOTE_ADDR="10.1.1.1") for _i in range(3)]
    for i, browser in enumerate(browsers):
        assert arrive(browser, study, PROLIFIC_PID=f"p{i}").status_code == 200
    # the fourth new id from the same address is turned away with a page, and nobody is created
    busy = arrive(Client(REMOTE_ADDR="10.1.1.1"), study, PROLIFIC_PID="p3")
    assert busy.status_code == 429 and "Too many new participants" in busy.content.decode()
    assert not Participant.objects.filter(external_id="p3").exists()
    # a forged X-Forwarded-For does not help (no proxy is trusted by default)
    forged = arrive(Client(REMOTE_ADDR="10.1.1.1", HTTP_X_FORWARDED_FOR="1.2.3.4"), study, PROLIFIC_PID="p4")
    assert forged.status_code == 429
    # returning participants are not counted, and another address may start
    assert arrive(browsers[0], study, PROLIFIC_PID="p0").status_code == 200
    assert arrive(Client(REMOTE_ADDR="10.2.2.2"), study, PROLIFIC_PID="p3").status_code == 200
    assert Participant.objects.filter(study=study).count() == 4


def test_tokens_are_long_random_and_rotating_retires_the_old_link(tmp_path):
    work, study = study_on_new_project(tmp_path)
    second = study_create(project=work.project, name="second")
    assert len(study.token) >= 43 and study.token != second.token
    old = link(study)
    client = Client()
    arrive(client, study, PROLIFIC_PID="before")
    study_token_rotate(study=study)
    assert Client().get(old, {"PROLIFIC_PID": "x"}).status_code == 404
    assert arrive(Client(), study, PROLIFIC_PID="after").status_code == 200
    # a participant who started carries on with the new link
    assert arrive(client, study).context["user"] == Participant.objects.get(external_id="before").user


def test_completion_shows_the_code_and_the_lead_set_completion_url_and_the_link_again_gives_no_new_work(tmp_path):
    _work, study = study_on_new_project(
        tmp_path,
        dialogues=6,
        k=2,
        completion_code="C0DE42",
        completion_url="https://app.prolific.com/submissions/complete?cc={code}&s={SESSION_ID}",
    )
    client = Client()
    arrive(client, study, **PROLIFIC)
    consent(client, study)
    participant = Participant.objects.get(study=study)
    finish(participant)
    done = arrive(client, study, **PROLIFIC)
    body = done.content.decode()
    assert 'id="completion-code">C0DE42<' in body
    assert 'data-redirect-url="https://app.prolific.com/submissions/complete?cc=C0DE42&amp;s=se-1"' in body
    assert participant_state(participant=participant).stage == "complete"
    assert Assignment.objects.filter(annotator=participant.user).count() == 2
    consent(client, study)
    assert Assignment.objects.filter(annotator=participant.user).count() == 2
    # without a completion URL: the code alone, to paste on the platform (MTurk-style survey HITs)
    study.completion_url = ""
    study.save()
    plain = arrive(client, study).content.decode()
    assert "C0DE42" in plain and "data-redirect-url" not in plain


def test_quotas_give_every_dialogue_exactly_k_annotators_and_then_the_study_is_full(tmp_path):
    # given 6 dialogues, K = 2 and 3 items per participant: 4 places
    _work, study = study_on_new_project(tmp_path, dialogues=6, k=2, items_per_participant=3)
    assert study_places(study=study).full == 4
    for i in range(4):
        client = Client()
        arrive(client, study, PROLIFIC_PID=f"p{i}")
        consent(client, study)
        assert study_places(study=study).full == 3 - i
    per_dialogue = Assignment.objects.values("dialogue_id").annotate(n=Count("pk"))
    assert sorted(row["n"] for row in per_dialogue) == [2] * 6
    # the fifth is told every place is taken, and no participant is made for them
    full = arrive(Client(), study, PROLIFIC_PID="p4")
    assert "Every place is taken" in full.content.decode()
    assert not Participant.objects.filter(external_id="p4").exists()


def test_full_places_is_the_most_participants_with_a_whole_quota():
    import numpy as np

    assert full_places(np.array([2] * 6), 3) == 4
    assert full_places(np.array([2] * 6), 5) == 2  # 12 items: 2 whole quotas of 5, 2 left over
    assert full_places(np.array([4, 1, 1]), 2) == 2  # the dialogue lacking 4 caps it
    assert full_places(np.array([0, 0]), 1) == 0


def test_unfinished_items_are_released_after_the_time_limit_kept_as_drafts_and_go_to_the_next_participant(tmp_path):
    # given 2 dialogues, K = 1: the first participant holds both, submits one and leaves a draft of the other
    _work, study = study_on_new_project(tmp_path, dialogues=2, k=1, time_limit_minutes=30)
    gone = Client()
    arrive(gone, study, PROLIFIC_PID="gone")
    consent(gone, study)
    abandoned = Participant.objects.get(external_id="gone")
    first, second = Assignment.objects.filter(annotator=abandoned.user).order_by("queue_rank")
    judgements_save(assignment_id=first.pk, user=abandoned.user, values=all_yes(first), submit=True)
    judgements_save(assignment_id=second.pk, user=abandoned.user, values=all_yes(second)[:2], seconds=40)
    assert "Every place is taken" in arrive(Client(), study, PROLIFIC_PID="early-bird").content.decode()
    # within the grace after the time limit nothing is released yet: a save in flight still lands
    Participant.objects.filter(pk=abandoned.pk).update(allocated_at=timezone.now() - timedelta(minutes=31))
    assert study_places(study=study).held_by_expired == 0
    assert "Every place is taken" in arrive(Client(), study, PROLIFIC_PID="early-bird").content.decode()
    # when the time limit and its grace have passed and a new participant arrives
    Participant.objects.filter(pk=abandoned.pk).update(allocated_at=timezone.now() - timedelta(minutes=33))
    assert study_places(study=study).held_by_expired == 1
    newcomer = Client()
    arrive(newcomer, study, PROLIFIC_PID="next")
    consent(newcomer, study)
    # then the unfinished item went to the newcomer; the submitted one stays with the first participant
    taker = Participant.objects.get(external_id="next")
    assert list(Assignment.objects.filter(annotator=taker.user).values_list("dialogue_id", flat=True)) == [
        second.dialogue_id
    ]
    assert Assignment.objects.get(pk=first.pk).status == AssignmentStatus.SUBMITTED
    assert not Assignment.objects.filter(pk=second.pk).exists()
    # the draft is kept, not counted: a released item with its answers and time
    kept = ReleasedItem.objects.get(participant=abandoned)
    assert kept.dialogue_id == second.dialogue_id and kept.seconds_spent == 40
    assert kept.judgements == [{"criterion": g.criterion, "unit": 1, "value": g.value} for g in all_yes(second)[:2]]
    # the first participant is told the time ran out; their released item can no longer be saved
    timed_out = arrive(gone, study, PROLIFIC_PID="gone")
    assert "The time for this study has run out" in timed_out.content.decode()
    posted = gone.post(reverse("submit", args=[second.pk]), {"j:severe_error:1": "no"}, follow=True)
    assert posted.redirect_chain[-1] == (link(study), 302)
    assert "The time for this study has run out" in posted.content.decode()
    for late in (
        page_save(gone, second, {"j:severe_error:1": "no"}),  # the page's save and submission (the API's)
        page_save(gone, second, {"j:severe_error:1": "no"}, submit=True),
        gone.get(reverse("draft", args=[second.pk])),  # the page's state, e.g. after signing in again
    ):
        assert late.status_code == 410 and late.json()["code"] == "released"
        assert "went to another participant" in late.json()["detail"]
    # while someone else's item stays a plain 404
    theirs = Assignment.objects.get(annotator=taker.user)
    assert page_save(gone, theirs, {"j:severe_error:1": "no"}).status_code == 404
    assert gone.get(reverse("draft", args=[theirs.pk])).status_code == 404
    with pytest.raises(Assignment.DoesNotExist):
        judgements_save(assignment_id=second.pk, user=abandoned.user, values=all_yes(second))


def test_the_lead_pages_open_a_study_show_link_places_participants_csv_and_manage_it(tmp_path):
    work, study = study_on_new_project(tmp_path, dialogues=6, k=2)
    lead = Client()
    lead.force_login(work.lead)
    # opening a second study through the page, with a refused setting first
    url = reverse("lead_studies", args=[work.project.slug])
    refused = lead.post(url, {"name": "pilot", "items_per_participant": 0, "time_limit_minutes": 20})
    assert refused.status_code == 400
    created = lead.post(
        url,
        {
            "name": "pilot",
            "items_per_participant": 3,
            "time_limit_minutes": 20,
            "completion_url": "https://app.prolific.com/submissions/complete?cc=ABC",
        },
    )
    pilot = work.project.studies.get(name="pilot")
    assert created.status_code == 302 and len(pilot.completion_code) == 8
    bad_url = {"name": "x", "items_per_participant": 1, "time_limit_minutes": 5, "completion_url": "javascript:x"}
    assert lead.post(url, bad_url).status_code == 400
    # a participant who worked
    participant_client = Client()
    arrive(participant_client, study, PROLIFIC_PID="=cmd|' /C calc'!A0", STUDY_ID="st", SESSION_ID="se")
    consent(participant_client, study)
    participant = Participant.objects.get(study=study)
    finish(participant)
    page = lead.get(reverse("lead_study", args=[work.project.slug, study.pk]))
    body = page.content.decode()
    assert page.status_code == 200
    assert f"http://testserver/study/{study.token}/?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}" in body
    assert 'id="places-left">5<' in body
    assert "finished" in body
    # the CSV for payments: one row per participant, formulas defused
    download = lead.get(reverse("lead_study_csv", args=[work.project.slug, study.pk]))
    rows = list(csv.DictReader(io.StringIO(b"".join(download.streaming_content).decode())))
    assert len(rows) == 1
    assert rows[0]["external_id"] == "'=cmd|' /C calc'!A0"
    row = rows[0]
    assert (row["status"], row["items"], row["submitted"], row["study_id"]) == ("finished", "2", "2", "st")
    assert rows[0]["finished"] and rows[0]["started"]
    # settings, close and reopen, new link, API token granted and revoked
    base = {"name": "renamed", "items_per_participant": 2, "time_limit_minutes": 45, "completion_code": "ZZ9"}
    assert lead.post(reverse("lead_study", args=[work.project.slug, study.pk]), base).status_code == 302
    study.refresh_from_db()
    assert (study.name, study.time_limit_minutes, study.completion_code) == ("renamed", 45, "ZZ9")
    lead.post(reverse("lead_study_open", args=[work.project.slug, study.pk]), {"open": "0"})
    study.refresh_from_db()
    assert not study.is_open
    lead.post(reverse("lead_study_open", args=[work.project.slug, study.pk]), {"open": "1"})
    old = study.token
    lead.post(reverse("lead_study_rotate", args=[work.project.slug, study.pk]))
    study.refresh_from_db()
    assert study.is_open and study.token != old
    token_url = reverse("lead_participant_token", args=[work.project.slug, study.pk, participant.pk])
    lead.post(token_url, {"action": "grant"})
    assert Token.objects.filter(user=participant.user).exists()
    lead.post(token_url, {"action": "revoke"})
    assert not Token.objects.filter(user=participant.user).exists()
    # annotators of the project cannot reach any of it
    annotator = user_make("plain-annotator")
    membership_add(project=work.project, user=annotator, role="annotator")
    other = Client()
    other.force_login(annotator)
    assert other.get(reverse("lead_study", args=[work.project.slug, study.pk])).status_code == 403
    assert other.post(token_url, {"action": "grant"}).status_code == 403


def test_the_leads_assignment_run_leaves_participants_out_and_counts_their_items(tmp_path):
    # given a study participant holding 2 items, and then two annotators added by the lead (K = 2)
    work, study = study_on_new_project(tmp_path, dialogues=4, k=2)
    participant = participant_arrive(study=study, external_id="crowd-1")
    participant_start(participant_id=participant.pk)
    for name in ("m1", "m2"):
        membership_add(project=work.project, user=user_make(name), role="annotator")
    # when the lead runs the assignment
    report = assignments_create_balanced(project=work.project)
    # then the participant got nothing more, and every dialogue has exactly K annotators
    assert Assignment.objects.filter(annotator=participant.user).count() == 2
    assert participant.user.username not in report.loads
    counts = Assignment.objects.values_list("dialogue_id").annotate(n=Count("pk"))
    assert sorted(n for _d, n in counts) == [2, 2, 2, 2]


def test_reordering_projects_cannot_run_as_a_study():
    work = project_with_work("coherence", slug="coh", annotators=1, assign=False)
    with pytest.raises(StudyError, match="cannot run as a study"):
        study_create(project=work.project, name="no")


def test_someone_signed_in_with_an_ordinary_account_is_asked_before_the_link_signs_them_out(tmp_path):
    work, study = study_on_new_project(tmp_path)
    lead = Client(enforce_csrf_checks=True)
    lead.force_login(work.lead)
    # a GET (a link opened by accident, or planted in another page) changes nothing
    asked = lead.get(link(study), PROLIFIC)
    assert "You are signed in as crowd-lead" in asked.content.decode()
    assert not Participant.objects.exists()
    assert lead.get(reverse("lead_studies", args=[work.project.slug])).status_code == 200
    # a POST without the CSRF token is refused; with it, the lead takes part as the participant
    assert lead.post(asked.request["PATH_INFO"] + "?" + asked.request["QUERY_STRING"]).status_code == 403
    csrf = asked.context["csrf_token"]
    taken = lead.post(f"{link(study)}?PROLIFIC_PID={PROLIFIC['PROLIFIC_PID']}", {"csrfmiddlewaretoken": str(csrf)})
    assert taken.status_code == 302
    assert Participant.objects.get().external_id == PROLIFIC["PROLIFIC_PID"]
    assert lead.get(reverse("lead_studies", args=[work.project.slug])).status_code == 403


def test_the_study_page_uses_a_fixed_number_of_queries(tmp_path):
    work, study = study_on_new_project(tmp_path, dialogues=12, k=3)
    lead = Client()
    lead.force_login(work.lead)

    def page_queries() -> int:
        with CaptureQueriesContext(connection) as context:
            assert lead.get(reverse("lead_study", args=[work.project.slug, study.pk])).status_code == 200
        return len(context.captured_queries)

    def add(n: int, start: int):
        for i in range(start, start + n):
            participant_start(participant_id=participant_arrive(study=study, external_id=f"q{i}").pk)

    add(2, 0)
    small = page_queries()
    add(6, 2)
    assert page_queries() == small


def test_participants_get_training_first_and_control_items_at_the_projects_rate(tmp_path):
    from types import SimpleNamespace

    from annotator.models import QualityItemKind
    from annotator.selectors.qualification import qualification_status
    from annotator.services.quality_items import Expected, quality_item_set, quality_settings_update
    from tests.factories import first_allowed_values

    # given a study whose project has one training item and two control items, controls at one in four
    work, study = study_on_new_project(tmp_path, dialogues=12, k=2, items_per_participant=6)
    dialogues = list(work.project.dialogues.order_by("position"))
    training, *controls = dialogues[:3]
    for dialogue, kind in ((training, QualityItemKind.TRAINING), *((c, QualityItemKind.CONTROL) for c in controls)):
        probe = SimpleNamespace(dialogue_id=dialogue.pk, dialogue=dialogue)
        answers = [Expected(g.criterion, g.unit, g.value) for g in first_allowed_values(probe)]
        quality_item_set(project=work.project, dialogue_id=dialogue.pk, kind=kind, answers=answers)
    quality_settings_update(project=work.project, control_rate=0.25)
    # when a participant consents
    client = Client()
    arrive(client, study, **PROLIFIC)
    response = consent(client, study)
    participant = Participant.objects.get(study=study)
    given = list(Assignment.objects.filter(annotator=participant.user).values_list("dialogue_id", flat=True))
    # then they get six ordinary items (never a control or training dialogue among them), the training item,
    # and two controls: 2 / (6 + 2) = one in four
    quality = {training.pk, *(c.pk for c in controls)}
    assert len([d for d in given if d not in quality]) == 6
    assert training.pk in given and sum(c.pk in given for c in controls) == 2
    # and the real items open only after the training item (the qualification gate applies to participants)
    assert qualification_status(project=work.project, user=participant.user).state == "training"
    first = Assignment.objects.get(annotator=participant.user, dialogue=training)
    assert response.status_code == 200 and response.redirect_chain[-1][0] == reverse("annotate", args=[first.pk])
    # and the controls do not take a place: the dialogues that lack annotators are the ordinary ones
    import random

    from annotator.studies.services import _neediest_dialogues

    assert not set(_neediest_dialogues(work.project, 100, random.Random(0))) & quality
