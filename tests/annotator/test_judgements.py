"""Saving judgements: validation, completeness, read-only after submit, retries, merging, versions and
conflicts, concurrency."""

import threading

import pytest
from django.db import connection

from annotator.handout.services.bulk import assignments_create_balanced
from annotator.models import Assignment, AssignmentStatus, Judgement, Reordering
from annotator.services.imports import dialogues_import
from annotator.services.judgements import (
    ConflictError,
    Given,
    SubmissionError,
    assignment_reopen,
    judgements_save,
)
from annotator.services.projects import membership_add
from tests.fixtures.collections import stc3_dialogues, write_json

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.both_databases(
        reason=(
            "a save locks and writes its rows with plain SQL, one statement per database "
            "(annotator.services.judgements.rows); SQLite serialises writers"
        )
    ),
]


@pytest.fixture
def item(make_project, make_user, tmp_path):
    project = make_project("stc3", annotators_per_dialogue=1)
    dialogues_import(project=project, paths=[write_json(tmp_path / "s.json", [stc3_dialogues()[1]])])
    user = make_user("ann")
    membership_add(project=project, user=user, role="annotator")
    assignments_create_balanced(project=project)
    return Assignment.objects.get(annotator=user)


COMPLETE = [
    Given("A", 0, "1"),
    Given("S", 0, "0"),
    Given("E", 0, "-1"),
    Given("nugget", 0, "CNUG0"),
    Given("nugget", 1, "HNUG*"),
]


def stored(assignment):
    return set(Judgement.objects.filter(assignment=assignment).values_list("criterion__key", "unit", "value"))


def test_draft_then_submit_merges_the_judgements(item):
    judgements_save(assignment_id=item.pk, user=item.annotator, values=[Given("A", 0, "2")], seconds=12)
    item.refresh_from_db()
    assert item.status == AssignmentStatus.IN_PROGRESS and item.seconds_spent == 12
    judgements_save(assignment_id=item.pk, user=item.annotator, values=COMPLETE, submit=True, seconds=3)
    item.refresh_from_db()
    assert item.status == AssignmentStatus.SUBMITTED and item.seconds_spent == 15
    assert stored(item) == {(g.criterion, g.unit, g.value) for g in COMPLETE}


def test_incomplete_or_invalid_submissions_name_the_problem_and_save_nothing(item):
    with pytest.raises(SubmissionError) as error:
        judgements_save(assignment_id=item.pk, user=item.annotator, values=COMPLETE[:3], submit=True)
    # then the message names the turns as the page shows them, and the fields to highlight
    assert "Nugget type is missing for turn 1 (customer) and turn 2 (helpdesk)" in error.value.problems
    assert error.value.missing == ["j:nugget:0", "j:nugget:1"]
    with pytest.raises(SubmissionError, match="'CNUG' is not a value of nugget on a helpdesk unit"):
        judgements_save(assignment_id=item.pk, user=item.annotator, values=COMPLETE[:4] + [Given("nugget", 1, "CNUG")])
    with pytest.raises(SubmissionError, match="no turn 5"):
        judgements_save(assignment_id=item.pk, user=item.annotator, values=[Given("nugget", 5, "CNUG")])
    assert stored(item) == set()


def test_submitted_items_are_read_only_but_a_retry_succeeds(item):
    judgements_save(assignment_id=item.pk, user=item.annotator, values=COMPLETE, submit=True)
    judgements_save(assignment_id=item.pk, user=item.annotator, values=COMPLETE, submit=True)  # retried request
    with pytest.raises(SubmissionError, match="already submitted"):
        judgements_save(assignment_id=item.pk, user=item.annotator, values=[Given("A", 0, "-2")])
    assert stored(item) == {(g.criterion, g.unit, g.value) for g in COMPLETE}
    assignment_reopen(assignment_id=item.pk)
    changed = [Given("A", 0, "-2")] + COMPLETE[1:]
    judgements_save(assignment_id=item.pk, user=item.annotator, values=changed, submit=True)
    assert ("A", 0, "-2") in stored(item) and len(stored(item)) == 5


def test_someone_elses_assignment_does_not_exist_for_you(item, make_user):
    with pytest.raises(Assignment.DoesNotExist):
        judgements_save(assignment_id=item.pk, user=make_user("intruder"), values=COMPLETE)


def test_concurrent_saves_of_one_answer_leave_one_of_them_never_a_duplicate(item, transactional_db):
    # (PostgreSQL: row locks between concurrent transactions; SQLite: each save checks before its write turn and
    # reads again under it)
    # given two tabs saving different complete sets at the same moment, many times
    variants = [COMPLETE, [Given("A", 0, "-2")] + COMPLETE[1:]]
    errors = []

    def tab(values):
        from django.db import connections

        try:
            for _ in range(15):
                judgements_save(assignment_id=item.pk, user=item.annotator, values=values)
        except Exception as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=tab, args=(v,)) for v in variants]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    # then the stored judgements are one of the complete sets, never a mix or duplicates
    assert stored(item) in [{(g.criterion, g.unit, g.value) for g in v} for v in variants]
    assert Judgement.objects.filter(assignment=item).count() == 5


def test_reordering_is_checked_against_the_constraints(make_project, make_user, tmp_path):
    import json

    project = make_project("coherence")
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"id": "c", "turns": [{"speaker": "AB"[t % 2], "text": str(t)} for t in range(4)]}))
    dialogues_import(project=project, paths=[path])
    user = make_user("r")
    membership_add(project=project, user=user, role="annotator")
    assignments_create_balanced(project=project, sets=1)
    item = Assignment.objects.get(annotator=user)
    with pytest.raises(SubmissionError, match="first turn must be by A"):
        judgements_save(assignment_id=item.pk, user=user, values=[], reordering=[1, 0, 3, 2])
    with pytest.raises(SubmissionError, match="alternate"):
        judgements_save(assignment_id=item.pk, user=user, values=[], reordering=[0, 2, 1, 3])
    values = [Given("overall", 0, "5")] + [Given("turn_coherence", t, "4") for t in range(4)]
    judgements_save(assignment_id=item.pk, user=user, values=values, reordering=[2, 1, 0, 3], submit=True)
    # turns given as shown, stored as the source's
    assert Reordering.objects.get(assignment=item).submitted_order == [item.shown_order[i] for i in [2, 1, 0, 3]]


def test_saves_record_their_times_and_every_row_of_a_large_item(item, monkeypatch):
    # given saves split over several INSERT statements (the batch size shrunk to 2 rows)
    from annotator.services.judgements import rows

    monkeypatch.setattr(rows, "INSERT_BATCH", 2)
    judgements_save(assignment_id=item.pk, user=item.annotator, values=COMPLETE[:3], seconds=4)
    item.refresh_from_db()
    first_started = item.started_at
    assert first_started is not None and first_started.tzinfo is not None and item.submitted_at is None
    judgements_save(assignment_id=item.pk, user=item.annotator, values=COMPLETE, submit=True, seconds=5)
    item.refresh_from_db()
    # then every row is stored once, the start time is kept and the submission time is set
    assert stored(item) == {(g.criterion, g.unit, g.value) for g in COMPLETE}
    assert Judgement.objects.filter(assignment=item).count() == len(COMPLETE)
    assert item.started_at == first_started and item.submitted_at >= first_started
    assert item.seconds_spent == 9 and item.status == AssignmentStatus.SUBMITTED
    assert all(j.updated_at >= first_started for j in Judgement.objects.filter(assignment=item))
    # and reopening then saving a draft clears the submission time; an empty value removes one answer
    assignment_reopen(assignment_id=item.pk)
    judgements_save(assignment_id=item.pk, user=item.annotator, values=[Given("A", 0, "")])
    item.refresh_from_db()
    assert item.submitted_at is None and stored(item) == {(g.criterion, g.unit, g.value) for g in COMPLETE[1:]}


def test_saves_read_criteria_and_posts_once_and_see_edits(item, django_assert_num_queries):
    from annotator.models import Criterion

    judgements_save(assignment_id=item.pk, user=item.annotator, values=COMPLETE[:1])
    # a second save reads neither the criteria nor the posts again: lock, merge (insert or update), the
    # assignment's update (on PostgreSQL a WITH of the merge: one statement)
    postgres = connection.vendor == "postgresql"
    with django_assert_num_queries(4 if postgres else 5) as context:  # with SAVEPOINT and RELEASE
        judgements_save(assignment_id=item.pk, user=item.annotator, values=COMPLETE[:2], version=1)
    statements = [q["sql"] for q in context.captured_queries if "SAVEPOINT" not in q["sql"]]
    assert [s.split()[0] for s in statements] == (["SELECT", "WITH"] if postgres else ["SELECT", "INSERT", "UPDATE"])
    if postgres:
        assert "UPDATE" in statements[1] and "INSERT INTO" in statements[1]
    assert not any("annotator_criterion" in s or "annotator_post" in s for s in statements)
    # an edit of a criterion (the admin may change its label) reaches the next save's messages
    criterion = Criterion.objects.get(project=item.dialogue.project, key="nugget")
    criterion.label = "Nugget kind"
    criterion.save()
    with pytest.raises(
        SubmissionError, match=r"Nugget kind is missing for turn 1 \(customer\) and turn 2 \(helpdesk\)"
    ):
        judgements_save(assignment_id=item.pk, user=item.annotator, values=COMPLETE[:3], submit=True)


def test_saves_merge_answer_by_answer_and_count_the_version(item):
    # given a save of two answers
    saved = judgements_save(assignment_id=item.pk, user=item.annotator, values=COMPLETE[:2], version=0)
    assert saved.version == 1
    # when a later save brings one other answer
    saved = judgements_save(assignment_id=item.pk, user=item.annotator, values=[COMPLETE[2]], version=1)
    # then the answers it does not mention stay, and the version counts both saves
    assert saved.version == 2
    assert stored(item) == {(g.criterion, g.unit, g.value) for g in COMPLETE[:3]}
    item.refresh_from_db()
    assert item.version == 2


def test_a_stale_tab_changing_other_questions_keeps_both_tabs_answers(item):
    # given two tabs that loaded the item at version 0; tab 1 saves A and S
    judgements_save(assignment_id=item.pk, user=item.annotator, values=COMPLETE[:2], version=0)
    # when tab 2, still at version 0, saves E and a nugget (it never saw A and S)
    tab2 = [Given("E", 0, "-1", base=None), Given("nugget", 0, "CNUG0", base="")]
    saved = judgements_save(assignment_id=item.pk, user=item.annotator, values=tab2, version=0)
    # then every answer of both tabs is stored
    assert saved.version == 2
    assert stored(item) == {(g.criterion, g.unit, g.value) for g in COMPLETE[:4]}


def test_a_stale_tab_changing_the_same_question_gets_a_conflict_and_nothing_is_overwritten(item):
    # given tab 1 answers A = 1 at version 0
    judgements_save(assignment_id=item.pk, user=item.annotator, values=[Given("A", 0, "1")], version=0)
    # when tab 2, which saw no answer to A (version 0), answers A = -2 and S = 0
    with pytest.raises(ConflictError) as error:
        judgements_save(
            assignment_id=item.pk,
            user=item.annotator,
            values=[Given("A", 0, "-2", base=""), Given("S", 0, "0", base="")],
            version=0,
        )
    # then the conflict names the question, both values, and the current version; nothing is saved
    conflict = error.value
    assert [(c.name, c.stored, c.given) for c in conflict.conflicts] == [("j:A:0", "1", "-2")]
    assert conflict.version == 1
    assert "Task accomplishment for the dialogue as a whole: 1: good there, -2: very poor here" in conflict.problems[0]
    assert stored(item) == {("A", 0, "1")}
    # and once tab 2 has seen the stored value (its base is "1", at the version the conflict gave), its change is taken
    judgements_save(
        assignment_id=item.pk, user=item.annotator, values=[Given("A", 0, "-2", base="1")], version=conflict.version
    )
    assert stored(item) == {("A", 0, "-2")}


@pytest.mark.sqlite_only
def test_a_save_that_another_tab_overtakes_between_its_check_and_its_write_turn_is_checked_again(
    item, monkeypatch, transactional_db
):
    """On SQLite a save checks before it takes the process's write turn; a save of another tab that lands in
    between changes the rows the check read, and the check is made again under the turn."""
    from annotator.services.judgements import save as module

    decide, overtaken = module._decide, []

    def decide_then_other_tab(given, reads):
        plan = decide(given, reads)
        if not overtaken:  # the first check only: tab 1 answers A = 1 before tab 2 has its turn
            overtaken.append(True)
            judgements_save(assignment_id=item.pk, user=item.annotator, values=[Given("A", 0, "1", base="")], version=0)
        return plan

    monkeypatch.setattr(module, "_decide", decide_then_other_tab)
    # when tab 2, which saw no answer to A (version 0), answers A = -2: its check (before tab 1's save) passes
    with pytest.raises(ConflictError) as error:
        judgements_save(assignment_id=item.pk, user=item.annotator, values=[Given("A", 0, "-2", base="")], version=0)
    # then under the turn it is a conflict with tab 1's answer, which stays; nothing of tab 2's is written
    assert [(c.name, c.stored, c.given) for c in error.value.conflicts] == [("j:A:0", "1", "-2")]
    assert stored(item) == {("A", 0, "1")}
    item.refresh_from_db()
    assert item.version == 1


@pytest.mark.sqlite_only
def test_a_submission_overtaken_by_a_reopening_is_checked_against_the_reopened_item(
    item, monkeypatch, transactional_db
):
    """The refusal found before the write turn is checked under it too: a submitted item reopened in between
    takes the save."""
    from annotator.services.judgements import save as module

    judgements_save(assignment_id=item.pk, user=item.annotator, values=COMPLETE, submit=True)
    decide, overtaken = module._decide, []

    def decide_then_reopen(given, reads):
        try:
            return decide(given, reads)
        finally:
            if not overtaken:
                overtaken.append(True)
                assignment_reopen(assignment_id=item.pk)

    monkeypatch.setattr(module, "_decide", decide_then_reopen)
    saved = judgements_save(assignment_id=item.pk, user=item.annotator, values=[Given("A", 0, "-2")])
    assert saved.status == AssignmentStatus.IN_PROGRESS
    assert ("A", 0, "-2") in stored(item)


def test_an_answer_changed_and_changed_back_elsewhere_is_still_a_change_the_tab_has_not_seen(item):
    # given tab 1 and tab 2 read the item at version 0, A unanswered; tab 1 answers A = 1, then removes it
    judgements_save(assignment_id=item.pk, user=item.annotator, values=[Given("A", 0, "1", base="")], version=0)
    judgements_save(assignment_id=item.pk, user=item.annotator, values=[Given("A", 0, "", base="1")], version=1)
    assert stored(item) == set()
    # when tab 2 answers A, its base ("" seen) equal to what is stored again
    with pytest.raises(ConflictError) as error:
        judgements_save(assignment_id=item.pk, user=item.annotator, values=[Given("A", 0, "-2", base="")], version=0)
    # then it is a conflict all the same: the removal came after what tab 2 read (its revision is newer)
    assert [(c.name, c.stored, c.seen, c.given) for c in error.value.conflicts] == [("j:A:0", "", "", "-2")]
    assert stored(item) == set()
    # and a value written back to what it was (1 -> -1 -> 1) is a change too
    judgements_save(assignment_id=item.pk, user=item.annotator, values=[Given("S", 0, "1", base="")], version=2)
    judgements_save(assignment_id=item.pk, user=item.annotator, values=[Given("S", 0, "-1", base="1")], version=3)
    judgements_save(assignment_id=item.pk, user=item.annotator, values=[Given("S", 0, "1", base="-1")], version=4)
    with pytest.raises(ConflictError):
        judgements_save(assignment_id=item.pk, user=item.annotator, values=[Given("S", 0, "0", base="1")], version=3)
    assert stored(item) == {("S", 0, "1")}


def test_a_stale_save_of_the_value_already_stored_is_no_conflict(item):
    judgements_save(assignment_id=item.pk, user=item.annotator, values=[Given("A", 0, "1")], version=0)
    saved = judgements_save(
        assignment_id=item.pk, user=item.annotator, values=[Given("A", 0, "1", base="")], version=0, seconds=2
    )
    assert saved.version == 2 and stored(item) == {("A", 0, "1")}


def test_concurrent_saves_of_different_questions_keep_both(item, transactional_db):
    # given two tabs that loaded the item at version 0 and save different questions at the same moment
    tabs = [COMPLETE[:2], COMPLETE[2:]]
    errors = []

    def tab(values):
        from django.db import connections

        try:
            for _ in range(10):
                judgements_save(
                    assignment_id=item.pk,
                    user=item.annotator,
                    values=[Given(g.criterion, g.unit, g.value, base=None) for g in values],
                    version=0,
                )
                values = [Given(g.criterion, g.unit, g.value, base=g.value) for g in values]
        except Exception as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=tab, args=(v,)) for v in tabs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # then no save failed and every answer of both tabs is stored once
    assert errors == []
    assert stored(item) == {(g.criterion, g.unit, g.value) for g in COMPLETE}
    assert Judgement.objects.filter(assignment=item).count() == 5
    item.refresh_from_db()
    assert item.version == 20


def test_missing_turns_are_named_in_the_order_shown_with_their_speakers(make_project, make_user, tmp_path):
    import json

    # given a coherence item shown in a permuted order, with the first two shown turns rated
    project = make_project("coherence")
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"id": "c", "turns": [{"speaker": "AB"[t % 2], "text": str(t)} for t in range(6)]}))
    dialogues_import(project=project, paths=[path])
    user = make_user("r")
    membership_add(project=project, user=user, role="annotator")
    assignments_create_balanced(project=project, sets=1)
    item = Assignment.objects.get(annotator=user)
    shown = item.shown_order
    rated = [Given("turn_coherence", k, "4") for k in range(2)]  # units as the annotator sees them
    # when the item is submitted
    with pytest.raises(SubmissionError) as error:
        judgements_save(assignment_id=item.pk, user=user, values=rated, submit=True)
    # then the message names the missing turns by their shown number and speaker, then the rest
    speakers = ["AB"[t % 2] for t in shown]
    turns = [f"turn {i + 1} ({speakers[i]})" for i in range(2, 6)]
    assert error.value.problems == [
        "Overall coherence is missing for the dialogue as a whole",
        f"Turn coherence is missing for {turns[0]}, {turns[1]}, {turns[2]} and {turns[3]}",
        "the reordering is missing",
    ]
    assert error.value.missing == ["j:overall:0"] + [f"j:turn_coherence:{k}" for k in range(2, 6)] + ["reordering"]


def test_a_stale_reordering_changed_elsewhere_is_a_conflict(make_project, make_user, tmp_path):
    import json

    project = make_project("coherence")
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"id": "c", "turns": [{"speaker": "AB"[t % 2], "text": str(t)} for t in range(4)]}))
    dialogues_import(project=project, paths=[path])
    user = make_user("r")
    membership_add(project=project, user=user, role="annotator")
    assignments_create_balanced(project=project, sets=1)
    item = Assignment.objects.get(annotator=user)
    judgements_save(assignment_id=item.pk, user=user, values=[], reordering=[0, 3, 2, 1], version=0)
    with pytest.raises(ConflictError) as error:
        judgements_save(assignment_id=item.pk, user=user, values=[], reordering=[2, 1, 0, 3], version=0)
    assert [c.name for c in error.value.conflicts] == ["reordering"]
    # orders are sent as shown and stored as source turns (the answer key stays on the server)
    from annotator.units import ShownFrame

    stored = ShownFrame.of([0, 1, 2, 3], item.shown_order).order_to_source([0, 3, 2, 1])
    assert Reordering.objects.get(assignment=item).submitted_order == stored


def test_reopen_keeps_the_reason_for_the_annotator_and_counts_the_version(item):
    judgements_save(assignment_id=item.pk, user=item.annotator, values=COMPLETE, submit=True)
    reopened = assignment_reopen(assignment_id=item.pk, reason="  Turn 2 is a goal nugget, look again.  ")
    item.refresh_from_db()
    assert item.status == AssignmentStatus.IN_PROGRESS and item.reopened_at is not None
    assert item.reopen_reason == "Turn 2 is a goal nugget, look again."
    assert reopened.version == item.version == 2
    # a tab opened before the reopening (version 1) changing an answer nobody else changed is not refused
    judgements_save(assignment_id=item.pk, user=item.annotator, values=[Given("A", 0, "2", base="1")], version=1)
    assert ("A", 0, "2") in stored(item)
