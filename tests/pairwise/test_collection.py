"""The pairwise preset at work: shown order balanced and recorded, names hidden from annotators, the stats
payload (``manage.py stats --json``), agreement on the outcomes, and active pairs with their caps and stop."""

from __future__ import annotations

import json
import math
import random
from collections import Counter

import pytest
from django.test import Client
from django.urls import reverse

from annotator.handout.services.bulk import assignments_create_balanced
from annotator.models import Assignment, AssignmentStatus, Candidate, Judgement, PairwiseSettings
from annotator.pairwise.selectors import collection_status
from annotator.pairwise.services.active_pairs import active_pair_assign
from annotator.services.imports import dialogues_import
from annotator.services.judgements import Given, judgements_save
from annotator.services.projects import membership_add, project_create
from scoring.agreement import fleiss_kappa
from tests.factories import user_make
from tests.pairwise.data import STRENGTHS, pairwise_items, write_lines

pytestmark = pytest.mark.django_db


def comparison_project(tmp_path, *, slug="pw", items=8, annotators=5, k=5, votes=0, assign=True):
    project = project_create(slug=slug, preset="pairwise", annotators_per_dialogue=k)
    dialogues_import(
        project=project, paths=[write_lines(tmp_path / f"{slug}.jsonl", pairwise_items(items, votes=votes))]
    )
    people = [user_make(f"{slug}-ann{i}") for i in range(annotators)]
    for person in people:
        membership_add(project=project, user=person, role="annotator")
    lead = user_make(f"{slug}-lead")
    membership_add(project=project, user=lead, role="lead")
    if assign:
        assignments_create_balanced(project=project, seed=3)
    return project, people, lead


def vote(assignment, value: str, criterion: str = "overall") -> None:
    judgements_save(
        assignment_id=assignment.pk, user=assignment.annotator, values=[Given(criterion, 0, value)], submit=True
    )


@pytest.mark.parametrize("k", [2, 3, 5])
def test_shown_order_is_balanced_across_each_items_annotators_and_recorded_with_each_vote(tmp_path, k):
    project, people, _lead = comparison_project(tmp_path, slug=f"pw-k{k}", items=10, annotators=5, k=k)
    per_item: dict[int, Counter] = {}
    for a in Assignment.objects.filter(dialogue__project=project):
        per_item.setdefault(a.dialogue_id, Counter())[a.shown_first] += 1
    assert len(per_item) == 10
    for counts in per_item.values():
        assert sum(counts.values()) == k and set(counts) <= {"a", "b"}
        assert abs(counts["a"] - counts["b"]) <= 1
    # across items neither candidate leads: the per-item start is a hash, not always A
    firsts = Counter(
        Assignment.objects.filter(dialogue__project=project).order_by("pk").values_list("dialogue_id", "shown_first")
    )
    assert {shown for (_d, shown), _n in firsts.items()} == {"a", "b"}
    # every vote records the order its annotator saw
    for a in Assignment.objects.filter(dialogue__project=project, annotator=people[0]):
        vote(a, "b")
        assert Judgement.objects.get(assignment=a).shown_first == a.shown_first


def test_an_item_handed_back_and_given_again_stays_balanced(tmp_path):
    project, people, _lead = comparison_project(tmp_path, slug="pw-back", items=4, annotators=4, k=3)
    gone = people[0]
    Assignment.objects.filter(annotator=gone).delete()
    from annotator.services.projects import membership_remove

    membership_remove(project=project, user_id=gone.pk)
    membership_add(project=project, user=user_make("pw-back-new"), role="annotator")
    assignments_create_balanced(project=project, seed=3)
    for dialogue in project.dialogues.all():
        counts = Counter(Assignment.objects.filter(dialogue=dialogue).values_list("shown_first", flat=True))
        assert sum(counts.values()) == 3 and abs(counts["a"] - counts["b"]) <= 1


def test_the_page_shows_the_responses_in_the_assignments_order_and_never_the_system_names(tmp_path):
    project, people, _lead = comparison_project(tmp_path, slug="pw-page", items=2, annotators=2, k=2)
    client = Client()
    client.force_login(people[0])
    systems = set(Candidate.objects.values_list("system", flat=True))
    for a in Assignment.objects.filter(annotator=people[0]):
        html = client.get(reverse("annotate", args=[a.pk])).content.decode()
        texts = list(Candidate.objects.filter(dialogue=a.dialogue).order_by("slot").values_list("text", flat=True))
        first, second = texts if a.shown_first == "a" else texts[::-1]
        assert html.index(first.split(":")[1]) < html.index(second.split(":")[1])
        for system in systems:
            assert system not in html.replace(first, "").replace(second, "")  # the texts start with their name
        # key 1 is the response shown first, in system terms
        assert html.index(f'value="{a.shown_first}"') < html.index(f'value="{"b" if a.shown_first == "a" else "a"}"')
    PairwiseSettings.objects.create(project=project, reveal_systems=True)
    a = Assignment.objects.filter(annotator=people[0]).first()
    html = client.get(reverse("annotate", args=[a.pk])).content.decode()
    assert 'class="muted candidate-system"' in html


def test_stats_json_carries_bradley_terry_per_criterion_and_agreement_on_the_outcomes(tmp_path, manage):
    project, _people, _lead = comparison_project(tmp_path, slug="pw-stats", items=24, votes=5, assign=False)
    result = manage("stats", "pw-stats", "--json", check=True)
    payload = json.loads(result.stdout)
    summary = payload["bradley_terry"]["overall"]
    rows = summary["systems"]
    ranked = [r["system"] for r in rows]  # best first
    assert set(ranked) == set(STRENGTHS) and ranked[-1] == "delta" and "alpha" in ranked[:2]
    for r in rows:
        assert r["ci"][0] <= r["score"] <= r["ci"][1] and r["rank_ci"][0] <= r["rank"] <= r["rank_ci"][1]
        assert set(r) >= {"system", "score", "elo", "ci", "sandwich_ci", "rank", "rank_ci", "wins", "losses", "ties"}
    assert abs(sum(r["score"] for r in rows)) < 1e-6  # centred to mean 0
    assert summary["n_votes"] == 24 * 5 and summary["bootstrap"] == 1000 and summary["ties"] == "half"
    assert summary["position_bias"]["n"] == 120 and summary["collection"]["state"] in ("collecting", "separated")
    assert {"style_controlled", "intransitive_triads", "win_matrix", "vote_dropping"} <= set(summary)
    # agreement: units are items, categories the system-relative outcomes, checked against the library directly
    agreement = payload["criteria"]["overall"]
    counts = [
        [Judgement.objects.filter(assignment__dialogue=d, value=v).count() for v in ("a", "b", "tie", "both_bad")]
        for d in project.dialogues.order_by("pk")
    ]
    import numpy as np

    assert agreement["fleiss_kappa"] == pytest.approx(fleiss_kappa(np.array(counts)), abs=1e-9)
    assert "nominal" in agreement["krippendorff_alpha"]


def test_active_pairs_give_one_item_at_a_time_within_the_caps_and_stop_at_the_budget(tmp_path):
    project, people, _lead = comparison_project(tmp_path, slug="pw-act", items=12, annotators=4, k=2, assign=False)
    PairwiseSettings.objects.create(project=project, active_pairs=True, vote_budget=10)
    assert assignments_create_balanced(project=project, seed=0).created == 0  # nothing handed out in bulk
    first = active_pair_assign(project=project, user=people[0])
    assert first is not None and first.shown_first in ("a", "b")
    assert active_pair_assign(project=project, user=people[0]) is None  # finish the open one first
    given = 1
    vote(first, "a")
    rounds = 0
    while rounds < 40:
        rounds += 1
        person = people[rounds % 4]
        item = active_pair_assign(project=project, user=person)
        if item is None:
            continue
        given += 1
        vote(item, "a" if rounds % 3 else "tie")
    held = Counter(Assignment.objects.filter(dialogue__project=project).values_list("dialogue_id", flat=True))
    assert max(held.values()) <= 2  # K respected
    mine = Counter(Assignment.objects.filter(dialogue__project=project).values_list("annotator_id", "dialogue_id"))
    assert max(mine.values()) == 1  # nobody judges an item twice
    assert given == 10 == Assignment.objects.filter(dialogue__project=project).count()  # the budget caps it
    status = collection_status(project)
    assert status["state"] == "budget_spent" and status["active"]
    assert active_pair_assign(project=project, user=people[1]) is None


def test_active_pairs_stop_when_the_ranking_is_separated(tmp_path):
    project, people, _lead = comparison_project(tmp_path, slug="pw-sep", items=60, annotators=6, k=6, assign=False)
    PairwiseSettings.objects.create(project=project, active_pairs=True)
    strong = {"alpha": 6, "bravo": 4, "charlie": 2, "delta": 0}
    chance = random.Random(7)  # votes drawn from Bradley-Terry: a ranking where every system also loses is estimable
    winners = []
    for _round in range(400):
        person = people[_round % len(people)]
        item = active_pair_assign(project=project, user=person)
        if item is None:
            if collection_status(project)["state"] == "separated":
                break
            # no open item for this person: open more places on the same items (a larger K)
            project.annotators_per_dialogue += 1
            project.save(update_fields=["annotators_per_dialogue"])
            continue
        a, b = Candidate.objects.filter(dialogue=item.dialogue).order_by("slot").values_list("system", flat=True)
        a_wins = chance.random() < 1 / (1 + math.exp(strong[b] - strong[a]))
        winners.append(a if a_wins else b)
        vote(item, "a" if a_wins else "b")
    assert collection_status(project)["state"] == "separated"
    assert active_pair_assign(project=project, user=people[0]) is None
    assert Assignment.objects.filter(status=AssignmentStatus.SUBMITTED).count() == len(winners) < 400
