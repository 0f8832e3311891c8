"""Assignment: K different annotators per dialogue, balanced, reproducible, incremental, safe for submitted work."""

import json
from collections import Counter

import pytest

from annotator.handout.services.bulk import assignments_create_balanced
from annotator.models import Assignment, AssignmentStatus, Membership
from annotator.services.imports import dialogues_import
from annotator.services.projects import membership_add

pytestmark = pytest.mark.django_db


def jsonl(path, n, start=0, speakers="AB"):
    path.write_text(
        "".join(
            json.dumps({"id": f"d{i}", "turns": [{"speaker": speakers[t % 2], "text": f"t{t}"} for t in range(6)]})
            + "\n"
            for i in range(start, start + n)
        )
    )
    return path


@pytest.fixture
def project(make_project, make_user, tmp_path):
    project = make_project("dch1", annotators_per_dialogue=3)
    dialogues_import(project=project, paths=[jsonl(tmp_path / "a.jsonl", 10, speakers=("customer", "helpdesk"))])
    for i in range(5):
        membership_add(project=project, user=make_user(f"ann{i}"), role="annotator")
    return project


def snapshot(project):
    return sorted(
        Assignment.objects.filter(dialogue__project=project).values_list("dialogue__external_id", "annotator__username")
    )


def test_k_different_annotators_balanced_and_reproducible(project):
    report = assignments_create_balanced(project=project, seed=7)
    assert report.created == 30
    per_dialogue = Counter(d for d, _a in snapshot(project))
    assert set(per_dialogue.values()) == {3}
    assert len(set(snapshot(project))) == 30  # no annotator twice on a dialogue
    loads = Counter(a for _d, a in snapshot(project))
    assert max(loads.values()) - min(loads.values()) <= 1
    first = snapshot(project)
    Assignment.objects.all().delete()
    assignments_create_balanced(project=project, seed=7)
    assert snapshot(project) == first
    Assignment.objects.all().delete()
    assignments_create_balanced(project=project, seed=8)
    assert snapshot(project) != first  # another seed, another assignment


def test_rerun_assigns_only_what_is_missing_and_never_moves_submitted_work(project, tmp_path, make_user):
    assignments_create_balanced(project=project, seed=1)
    done = Assignment.objects.filter(dialogue__project=project).first()
    Assignment.objects.filter(pk=done.pk).update(status=AssignmentStatus.SUBMITTED)
    assert assignments_create_balanced(project=project, seed=1).created == 0
    dialogues_import(
        project=project, paths=[jsonl(tmp_path / "b.jsonl", 2, start=10, speakers=("customer", "helpdesk"))]
    )
    membership_add(project=project, user=make_user("late"), role="annotator")
    report = assignments_create_balanced(project=project, seed=1)
    assert report.created == 6
    assert Assignment.objects.get(pk=done.pk).annotator_id == done.annotator_id
    loads = Counter(a for _d, a in snapshot(project))
    assert loads["late"] == 2  # the least-loaded newcomer takes a place on each new dialogue (at most one each)


def test_unfinished_work_of_a_removed_annotator_is_handed_to_others(project):
    assignments_create_balanced(project=project, seed=2)
    leaver = Membership.objects.get(project=project, user__username="ann0")
    mine = Assignment.objects.filter(annotator=leaver.user)
    kept = mine.first()
    Assignment.objects.filter(pk=kept.pk).update(status=AssignmentStatus.SUBMITTED)
    unfinished = mine.count() - 1
    Membership.objects.filter(pk=leaver.pk).update(active=False)
    report = assignments_create_balanced(project=project, seed=2)
    assert report.handed_back == unfinished and report.created == unfinished
    assert list(Assignment.objects.filter(annotator=leaver.user).values_list("pk", flat=True)) == [kept.pk]
    assert set(Counter(d for d, _a in snapshot(project)).values()) == {3}


def test_too_few_annotators(project):
    project.annotators_per_dialogue = 9
    with pytest.raises(ValueError, match="fewer than K = 9"):
        assignments_create_balanced(project=project)


def test_coherence_projects_get_balanced_permutation_sets(make_project, make_user, tmp_path):
    from scoring.ordering import kendall_tau

    project = make_project("coherence")
    dialogues_import(project=project, paths=[jsonl(tmp_path / "c.jsonl", 6)])
    users = [make_user(f"c{i}") for i in range(6)]
    for u in users:
        membership_add(project=project, user=u, role="annotator")
    assignments_create_balanced(project=project, seed=0, sets=3)
    sets = {}
    for a in Assignment.objects.filter(dialogue__project=project):
        assert a.shown_order[0] % 2 == 0  # first speaker kept: an A turn first
        assert sorted(a.shown_order) == list(range(6))
        sets.setdefault(a.annotator_id, set()).add(a.permutation_set)
    assert all(len(s) == 1 for s in sets.values())  # one set per annotator
    assert Counter(next(iter(s)) for s in sets.values()) == {0: 2, 1: 2, 2: 2}
    # each annotator judges all six dialogues; within a set taus are mixed
    for u in users:
        orders = [a.shown_order for a in Assignment.objects.filter(annotator=u)]
        assert len(orders) == 6
        taus = [kendall_tau(o) for o in orders]
        assert max(taus) - min(taus) > 0.3
    # the order of items differs between annotators of the same set
    ranks = {
        u.username: [a.dialogue_id for a in Assignment.objects.filter(annotator=u).order_by("queue_rank")]
        for u in users
    }
    assert len({tuple(r) for r in ranks.values()}) > 1
