"""A reordering item's answer key (which source turn each shown turn is) never reaches the annotator:
the page and the API number turns and posts as shown; the server maps them back."""

import re

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotator.models import Assignment, Judgement, Reordering
from annotator.services.imports import dialogues_import
from annotator.services.projects import membership_add, project_create

pytestmark = pytest.mark.django_db

TURNS = 6
SHOWN = [4, 1, 2, 5, 0, 3]  # source turns in shown order: first speaker kept, speakers alternate


@pytest.fixture
def item(tmp_path, make_user):
    project = project_create(slug="coh", preset="coherence", annotators_per_dialogue=1)
    path = tmp_path / "c.jsonl"
    path.write_text(
        '{"id": "c1", "turns": ['
        + ", ".join(f'{{"speaker": "{"AB"[t % 2]}", "text": "source turn {t}"}}' for t in range(TURNS))
        + "]}\n"
    )
    dialogues_import(project=project, paths=[path], fmt="jsonl")
    ann = make_user("ann")
    membership_add(project=project, user=ann, role="annotator")
    dialogue = project.dialogues.get()
    return Assignment.objects.create(annotator=ann, dialogue=dialogue, shown_order=SHOWN)


def api_for(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def numbers(html: str, pattern: str) -> list[int]:
    return [int(n) for n in re.findall(pattern, html)]


def test_the_page_numbers_turns_as_shown(item):
    client = Client()
    client.force_login(item.annotator)
    html = client.get(reverse("annotate", args=[item.pk])).content.decode()
    texts = re.findall(r'<span class="turn-text">source turn (\d)</span>', html)
    assert [int(t) for t in texts] == SHOWN  # the turns are shown permuted...
    assert numbers(html, r'data-turn="(\d+)"') == list(range(TURNS))  # ...but numbered as shown
    assert numbers(html, r'data-block="(\d+)"') == list(range(TURNS))
    assert sorted(set(numbers(html, r'name="j:turn_coherence:(\d+)"'))) == list(range(TURNS))
    first_radio = numbers(html, r'name="j:turn_coherence:(\d+)"')[0]
    assert first_radio == 0


def test_the_api_numbers_turns_as_shown_and_the_server_maps_them_back(item):
    api = api_for(item.annotator)
    listed = api.get("/api/assignments/").json()["results"][0]
    detail = api.get(f"/api/assignments/{item.pk}/").json()
    assert "shown_order" not in listed and "shown_order" not in detail
    dialogue = api.get("/api/projects/coh/dialogues/c1/").json()
    assert [p["text"] for p in dialogue["posts"]] == [f"source turn {t}" for t in SHOWN]
    assert [p["position"] for p in dialogue["posts"]] == list(range(TURNS))
    assert [p["utterance_block"] for p in dialogue["posts"]] == list(range(TURNS))

    # the annotator rates shown turn k with k + 1 (k < 5) and puts the turns back in source order
    back_in_order = [SHOWN.index(t) for t in range(TURNS)]
    body = {
        "judgements": [{"criterion": "turn_coherence", "unit": k, "value": str(1 + k % 5)} for k in range(TURNS)]
        + [{"criterion": "overall", "unit": 0, "value": "7"}],
        "reordering": back_in_order,
        "submit": True,
    }
    saved = api.post(f"/api/assignments/{item.pk}/judgements/", body, format="json")
    assert saved.status_code == 200, saved.content
    assert "shown_order" not in saved.json()
    # stored under source positions
    assert Reordering.objects.get(assignment=item).submitted_order == list(range(TURNS))
    stored = dict(
        Judgement.objects.filter(assignment=item, criterion__key="turn_coherence").values_list("unit", "value")
    )
    assert stored == {SHOWN[k]: str(1 + k % 5) for k in range(TURNS)}
    # and read back as shown
    detail = api.get(f"/api/assignments/{item.pk}/").json()
    assert detail["reordering"] == back_in_order
    assert {(j["unit"], j["value"]) for j in detail["judgements"] if j["criterion"] == "turn_coherence"} == {
        (k, str(1 + k % 5)) for k in range(TURNS)
    }


def test_a_saved_reordering_comes_back_on_the_page_as_shown_numbers(item):
    from annotator.services.judgements import judgements_save

    back_in_order = [SHOWN.index(t) for t in range(TURNS)]
    judgements_save(assignment_id=item.pk, user=item.annotator, values=[], reordering=back_in_order)
    client = Client()
    client.force_login(item.annotator)
    html = client.get(reverse("annotate", args=[item.pk])).content.decode()
    assert numbers(html, r'data-turn="(\d+)"') == back_in_order
    assert [int(t) for t in re.findall(r'<span class="turn-text">source turn (\d)</span>', html)] == list(range(TURNS))


def test_missing_units_are_named_as_shown(item):
    from annotator.services.judgements import Given, SubmissionError, judgements_save

    rated = [Given("turn_coherence", k, "3") for k in range(TURNS) if k != 2] + [Given("overall", 0, "4")]
    with pytest.raises(SubmissionError) as refused:
        judgements_save(
            assignment_id=item.pk, user=item.annotator, values=rated, reordering=list(range(TURNS)), submit=True
        )
    # shown turn 2 (0-based) is the page's third turn; the field to highlight is the shown one
    assert "Turn coherence is missing for turn 3 " in str(refused.value)
    assert refused.value.missing == ["j:turn_coherence:2"]
