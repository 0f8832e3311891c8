"""Participants arriving at once, on PostgreSQL with real row locks: every request in its own thread
and database connection, all released together by a barrier."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import Count
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotator.models import Assignment, AssignmentStatus, Judgement, Participant, ReleasedItem
from annotator.services.judgements import Given, judgements_save
from annotator.studies.selectors import Stage, participant_state
from annotator.studies.services import participant_arrive, participant_start, studies_release_expired
from tests.factories import study_on_new_project

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres(reason="row locks (select_for_update skip_locked) between concurrent transactions"),
]


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()


def run_at_once(jobs) -> list:
    """Run every job in its own thread, all starting together; returns their results (or exceptions)."""
    barrier = threading.Barrier(len(jobs))
    results: list = [None] * len(jobs)

    def run(i, job):
        try:
            barrier.wait()
            results[i] = job()
        except Exception as exc:  # reported by the test's assertions
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, job)) for i, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    return results


def participant_visit(study, external_id: str, address: str):
    """A participant's browser: open the Prolific link, consent; the status codes of both."""

    def visit():
        client = Client(REMOTE_ADDR=address)
        opened = client.get(reverse("study", args=[study.token]), {"PROLIFIC_PID": external_id, "STUDY_ID": "s"})
        started = client.post(reverse("study_start", args=[study.token]), {"consent": "yes"})
        return opened.status_code, started.status_code

    return visit


def assert_k_per_dialogue(project, k: int) -> None:
    rows = Assignment.objects.filter(dialogue__project=project)
    per_dialogue = Counter(rows.values_list("dialogue_id", flat=True))
    assert set(per_dialogue.values()) == {k} and len(per_dialogue) == project.dialogues.count()
    pairs = rows.values("annotator_id", "dialogue_id").annotate(n=Count("pk"))
    assert {row["n"] for row in pairs} == {1}  # no duplicate assignment rows


def test_fifty_participants_arriving_at_once_get_disjoint_sets_and_every_dialogue_exactly_k(tmp_path):
    # given 20 dialogues, K = 4, 2 items per participant: 40 places
    work, study = study_on_new_project(tmp_path, dialogues=20, k=4, items_per_participant=2)
    # when 50 browsers open the link at once: 45 different ids, 5 of them twice (a double click, two tabs)
    ids = [f"pid-{i:02d}" for i in range(45)] + [f"pid-{i:02d}" for i in range(5)]
    results = run_at_once([participant_visit(study, pid, f"10.0.{n // 200}.{n % 200}") for n, pid in enumerate(ids)])
    # then no request failed
    assert all(isinstance(r, tuple) and max(r) < 500 for r in results), results
    # every dialogue has exactly K annotators and no (annotator, dialogue) pair twice
    assert_k_per_dialogue(work.project, 4)
    # one participant per id; 40 of them hold 2 different dialogues each, the rest none
    participants = list(Participant.objects.filter(study=study))
    assert len({p.external_id for p in participants}) == len(participants) <= 45
    sets = {
        p.external_id: list(Assignment.objects.filter(annotator=p.user).values_list("dialogue_id", flat=True))
        for p in participants
    }
    with_items = {pid: dialogues for pid, dialogues in sets.items() if dialogues}
    assert len(with_items) == 40
    assert all(len(set(dialogues)) == len(dialogues) == 2 for dialogues in with_items.values())
    assert sum(len(d) for d in with_items.values()) == Assignment.objects.count() == 80  # disjoint rows
    # those who came too late were told so (and never got items)
    for p in participants:
        if p.external_id not in with_items:
            assert participant_state(participant=p).stage == Stage.FULL


def test_an_abandoned_participants_items_are_released_after_the_time_limit_and_reassigned_under_load(tmp_path):
    # given 10 dialogues, K = 2, 2 items each: 10 participants fill the study
    work, study = study_on_new_project(tmp_path, dialogues=10, k=2, items_per_participant=2, time_limit_minutes=20)
    crowd = []
    for i in range(10):
        participant = participant_arrive(study=study, external_id=f"first-{i}")
        crowd.append(participant_start(participant_id=participant.pk))
    # three of them abandon: one untouched, one with a draft, one with one of two items submitted
    drafted, half_done = crowd[1], crowd[2]
    draft_item = Assignment.objects.filter(annotator=drafted.user).order_by("pk").first()
    judgements_save(assignment_id=draft_item.pk, user=drafted.user, values=[Given("severe_error", 1, "no")])
    submitted = Assignment.objects.filter(annotator=half_done.user).order_by("pk").first()
    keys = work.project.criteria.values_list("key", flat=True)
    judgements_save(
        assignment_id=submitted.pk, user=half_done.user, values=[Given(k, 1, "yes") for k in keys], submit=True
    )
    abandoned = crowd[:3]
    Participant.objects.filter(pk__in=[p.pk for p in abandoned]).update(
        allocated_at=timezone.now() - timedelta(minutes=23)  # past the limit and its grace
    )
    # when ten newcomers arrive at once while the lead also releases expired items, twice
    newcomers = [participant_visit(study, f"new-{i}", f"10.9.0.{i}") for i in range(10)]
    releases = [lambda: studies_release_expired(project=work.project)] * 2
    results = run_at_once(newcomers + releases)
    assert all(not isinstance(r, Exception) for r in results), results
    # then the 5 unfinished items were released once each, their drafts kept, and handed to newcomers
    released = list(ReleasedItem.objects.all())
    assert len(released) == 5 and len({(r.participant_id, r.dialogue_id) for r in released}) == 5
    kept = ReleasedItem.objects.get(participant=drafted, dialogue=draft_item.dialogue)
    assert kept.judgements == [{"criterion": "severe_error", "unit": 1, "value": "no"}]
    assert Assignment.objects.get(pk=submitted.pk).status == AssignmentStatus.SUBMITTED
    taken = Counter(
        Assignment.objects.filter(annotator__study_participant__external_id__startswith="new-").values_list(
            "dialogue_id", flat=True
        )
    )
    assert taken == Counter(r.dialogue_id for r in released)
    # every dialogue is back at exactly K, without duplicate rows; the abandoned are marked released
    assert_k_per_dialogue(work.project, 2)
    assert all(p.released_at for p in Participant.objects.filter(pk__in=[p.pk for p in abandoned]))
    assert all(Assignment.objects.filter(annotator=p.user).exclude(status="submitted").count() == 0 for p in abandoned)


def test_an_item_being_saved_in_the_grace_is_not_released_under_the_save_and_its_answer_goes_with_the_released_copy(
    tmp_path, settings
):
    # given a participant 30 s past the time limit: within the grace, their page's saves are still taken
    settings.STUDY_SAVE_GRACE_SECONDS = 120
    work, study = study_on_new_project(tmp_path, dialogues=2, k=1, items_per_participant=1, time_limit_minutes=10)
    participant = participant_start(participant_id=participant_arrive(study=study, external_id="slow").pk)
    Participant.objects.filter(pk=participant.pk).update(
        allocated_at=timezone.now() - timedelta(minutes=10, seconds=30)
    )
    item = Assignment.objects.get(annotator=participant.user)
    saving, released_once = threading.Event(), threading.Event()
    outcome: dict = {}

    def slow_save():  # a save whose transaction is still open (the row locked) while the release runs
        try:
            with transaction.atomic():
                judgements_save(assignment_id=item.pk, user=participant.user, values=[Given("severe_error", 1, "no")])
                saving.set()
                released_once.wait(timeout=60)
            outcome["saved"] = True
        finally:
            connection.close()

    def release():  # a sweep on a clock past the grace
        try:
            saving.wait(timeout=60)
            outcome["during"] = studies_release_expired(
                project=work.project, now=timezone.now() + timedelta(seconds=settings.STUDY_SAVE_GRACE_SECONDS)
            )
        finally:
            released_once.set()
            connection.close()

    threads = [threading.Thread(target=slow_save), threading.Thread(target=release)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    # then the sweep left the item being saved alone, and the save landed
    assert outcome == {"saved": True, "during": 0}
    assert Judgement.objects.filter(assignment_id=item.pk).count() == 1
    # the next sweep releases it with the answer saved in time in the released copy
    later = timezone.now() + timedelta(seconds=settings.STUDY_SAVE_GRACE_SECONDS)
    assert studies_release_expired(project=work.project, now=later) == 1
    kept = ReleasedItem.objects.get(participant=participant)
    assert kept.assignment_number == item.pk
    assert kept.judgements == [{"criterion": "severe_error", "unit": 1, "value": "no"}]
