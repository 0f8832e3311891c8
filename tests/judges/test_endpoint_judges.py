"""Endpoint judges against a real server process on loopback that speaks the chat completions protocol:
every unit asked once, answers read strictly, retries, the cache, tokens counted, the key sent only where the
operator allows and never shown back; through the API (its job run in the caller) and through a real worker."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from annotator.judges.selectors import judge_label_arrays
from annotator.judges.services.endpoint import (
    EndpointSettingsError,
    endpoint_judge_create,
    endpoint_judge_run,
    endpoint_settings_check,
)
from annotator.models import EndpointAnswer, Judge, JudgeStatus
from annotator.selectors.structure import dialogue_shape
from annotator.units import required_units
from tests.chat_endpoint_server import expected_answer
from tests.factories import api_client, project_with_work
from tests.live_servers import ChatEndpoint
from tests.waiting import wait_for

PROMPTS = {
    "A": "{question}\n{dialogue}\nValues:\n{scale}",
    "nugget": "Which nugget is this turn?\n{target}\nContext:\n{dialogue}\nValues:\n{scale}",
    "S": "UNPARSABLE {question}\nValues:\n{scale}",
}


@pytest.fixture
def endpoint(tmp_path, settings):
    settings.OUTBOUND_ALLOWED_HOSTS = ["127.0.0.1"]  # the operator named the server's host (the worker's: conftest)
    server = ChatEndpoint(tmp_path / "requests.jsonl")
    yield server
    server.stop()


def settings_for(url: str, **extra) -> dict:
    return {"url": url, "model": "tiny-judge", "prompts": PROMPTS, "concurrency": 3, **extra}


def expected_a_prompt(dialogue) -> str:
    """The A prompt of a dialogue, rendered here independently of the service."""
    criterion = dialogue.project.criteria.get(key="A")
    lines = "\n".join(f"{p.speaker}: {p.text}" for p in dialogue.posts.order_by("position"))
    scale = "\n".join(
        v["label"] if v["label"].startswith(v["value"]) else f"{v['value']}: {v['label']}" for v in criterion.values
    )
    return f"{criterion.question or criterion.label}\n{lines}\nValues:\n{scale}"


def asked_units(project, key: str) -> int:
    criterion = project.criteria.get(key=key)
    return sum(len(required_units(criterion, dialogue_shape(d.pk))) for d in project.dialogues.all())


@pytest.mark.django_db
def test_an_endpoint_judge_asks_every_unit_once_and_reads_answers_strictly(endpoint, settings):
    settings.JUDGE_ENDPOINT_API_KEY = "sk-never-shown"
    settings.JUDGE_ENDPOINT_KEY_URLS = [endpoint.url]
    work = project_with_work("stc3", slug="endpoint-judge", assign=False)
    project = work.project
    judge = endpoint_judge_create(project=project, name="tiny", endpoint=settings_for(endpoint.url))
    judge = endpoint_judge_run(judge_id=judge.pk)
    requests = endpoint.requests()
    n_units = {key: asked_units(project, key) for key in PROMPTS}
    assert judge.units_total == judge.units_done == sum(n_units.values())
    # one request per distinct prompt: the S prompt names no dialogue, so its three units share one
    assert len(requests) == len({r["prompt"] for r in requests}) == n_units["A"] + n_units["nugget"] + 1
    assert {r["path"] for r in requests} == {"/v1/chat/completions"} and {r["model"] for r in requests} == {
        "tiny-judge"
    }
    assert {r["authorization"] for r in requests} == {"Bearer sk-never-shown"}
    assert judge.status == JudgeStatus.READY
    assert judge.prompt_tokens == sum(len(r["prompt"].split()) for r in requests)
    assert judge.completion_tokens == len(requests)
    arrays = judge_label_arrays(judge)
    # A: each dialogue's answer is the server's answer to the prompt rendered independently here
    for dialogue in project.dialogues.all():
        at = arrays["A"].item.tolist().index(dialogue.external_id)
        assert arrays["A"].value[at] == expected_answer(expected_a_prompt(dialogue))
    # nugget: per turn, a value of the turn speaker's scale, as the server answered
    nugget = arrays["nugget"]
    asked = [r["prompt"] for r in requests if r["prompt"].startswith("Which nugget")]
    assert Counter(nugget.value.tolist()) == Counter(expected_answer(p) for p in asked)
    assert len(nugget) == n_units["nugget"]
    # S: unparsable answers are missing, with the answer as the reason
    assert len(arrays["S"]) == 0 and arrays["S"].missing == n_units["S"]
    reasons = set(judge.labels.filter(criterion__key="S").values_list("reason", flat=True))
    assert reasons == {"unparsable answer: 'maybe, it depends'"}
    # the key is in no judge, no answer cached, no API answer
    assert "sk-never-shown" not in json.dumps(judge.endpoint_settings) + json.dumps(judge.source)
    listed = api_client(work.lead).get(f"/api/projects/{project.slug}/judges/")
    assert listed.status_code == 200 and "sk-never-shown" not in listed.content.decode()
    assert listed.json()[0]["endpoint"]["model"] == "tiny-judge"

    # run again: every prompt is answered from the cache, nothing is sent or spent
    tokens = judge.prompt_tokens
    again = endpoint_judge_run(judge_id=judge.pk)
    assert len(endpoint.requests()) == len(requests)
    assert again.prompt_tokens == tokens and again.source["cached"] == judge.units_total
    assert judge_label_arrays(again)["A"].value.tolist() == arrays["A"].value.tolist()
    assert EndpointAnswer.objects.count() == len({r["prompt"] for r in requests})


@pytest.mark.django_db
def test_the_key_goes_only_to_urls_the_operator_named(endpoint, settings):
    settings.JUDGE_ENDPOINT_API_KEY = "sk-secret"
    settings.JUDGE_ENDPOINT_KEY_URLS = ["https://api.example.org/"]
    project = project_with_work("stc3", slug="endpoint-key", assign=False).project
    prompts = {"A": PROMPTS["A"]}
    judge = endpoint_judge_create(project=project, name="t", endpoint=settings_for(endpoint.url, prompts=prompts))
    endpoint_judge_run(judge_id=judge.pk)
    assert {r["authorization"] for r in endpoint.requests()} == {None}
    with pytest.raises(EndpointSettingsError, match="api_key"):
        endpoint_settings_check(project=project, given={**settings_for(endpoint.url), "api_key": "sk-x"})


@pytest.mark.django_db
def test_busy_answers_are_retried_with_backoff(tmp_path, settings):
    settings.OUTBOUND_ALLOWED_HOSTS = ["127.0.0.1"]
    server = ChatEndpoint(tmp_path / "requests.jsonl", flaky=True)
    try:
        project = project_with_work("stc3", slug="endpoint-flaky", assign=False).project
        endpoint = settings_for(server.url, prompts={"A": PROMPTS["A"]}, max_retries=2)
        judge = endpoint_judge_run(judge_id=endpoint_judge_create(project=project, name="t", endpoint=endpoint).pk)
        n = project.dialogues.count()
        assert len(server.requests()) == 2 * n  # each prompt: a 503, then the answer
        assert len(judge_label_arrays(judge)["A"]) == n and judge.status == JudgeStatus.READY
    finally:
        server.stop()


@pytest.mark.django_db
def test_an_endpoint_that_never_answers_fails_the_judge_with_the_reason(settings):
    settings.OUTBOUND_ALLOWED_HOSTS = ["127.0.0.1"]
    project = project_with_work("stc3", slug="endpoint-down", assign=False).project
    endpoint = settings_for("http://127.0.0.1:9/v1", prompts={"A": PROMPTS["A"]}, max_retries=0, timeout=2)
    judge = endpoint_judge_run(judge_id=endpoint_judge_create(project=project, name="t", endpoint=endpoint).pk)
    assert judge.status == JudgeStatus.FAILED and "no answer" in judge.error
    assert judge.labels.filter(value="").count() == project.dialogues.count()


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"url": "ftp://x"}, "url"),
        ({"model": ""}, "model"),
        ({"prompts": {"Q": "x"}}, "prompts.Q"),
        ({"concurrency": 0}, "concurrency"),
        ({"temperature": 3}, "temperature"),
    ],
)
@pytest.mark.django_db
def test_settings_are_checked(change, words, settings):
    settings.OUTBOUND_ALLOWED_HOSTS = ["127.0.0.1"]
    project = project_with_work("stc3", slug="endpoint-check", assign=False).project
    with pytest.raises(EndpointSettingsError, match=words):
        endpoint_settings_check(project=project, given={**settings_for("http://127.0.0.1:1/v1"), **change})


@pytest.mark.eager_tasks(reason="the judge the API created, once its job has asked the endpoint")
@pytest.mark.django_db
def test_the_api_creates_an_endpoint_judge_whose_job_asks_the_endpoint(endpoint, django_capture_on_commit_callbacks):
    work = project_with_work("stc3", slug="endpoint-api", assign=False)
    body = {"name": "tiny", "endpoint": settings_for(endpoint.url, prompts={"A": PROMPTS["A"]})}
    with django_capture_on_commit_callbacks(execute=True):
        answer = api_client(work.lead).post(f"/api/projects/{work.project.slug}/judges/", body, format="json")
    assert answer.status_code == 201, answer.content
    judge = Judge.objects.get()
    assert judge.status == JudgeStatus.READY and judge.labels.count() == work.project.dialogues.count()
    bad = api_client(work.lead).post(
        f"/api/projects/{work.project.slug}/judges/", {**body, "name": "x", "endpoint": {"url": "nope"}}, format="json"
    )
    assert bad.status_code == 400 and "url" in bad.json()["endpoint"][0]


@pytest.mark.worker
@pytest.mark.postgres(reason="a Celery worker in another process, through Redis, shares the database")
def test_an_endpoint_judge_runs_on_a_real_worker(celery_worker_process, transactional_db, endpoint):
    project = project_with_work("stc3", slug="endpoint-worker", assign=False).project
    judge = endpoint_judge_create(project=project, name="tiny", endpoint=settings_for(endpoint.url))
    assert wait_for(lambda: Judge.objects.get(pk=judge.pk).status == JudgeStatus.READY, 120)
    judge.refresh_from_db()
    assert len(endpoint.requests()) == judge.units_total - asked_units(project, "S") + 1  # S: one shared prompt
    assert judge.labels.exclude(value="").count() == judge.units_total - asked_units(project, "S")


@pytest.mark.django_db
def test_import_judge_runs_an_endpoint_judge_from_a_settings_file(endpoint, tmp_path, capsys):
    from django.core.management import call_command

    project = project_with_work("stc3", slug="endpoint-cli", assign=False).project
    path = tmp_path / "judge.json"
    path.write_text(json.dumps(settings_for(endpoint.url, prompts={"A": PROMPTS["A"]})), encoding="utf-8")
    call_command("import_judge", project.slug, "--judge", "tiny", "--endpoint", str(path))
    out = capsys.readouterr().out
    n = project.dialogues.count()
    assert f"asked {n} units" in out and "Ready" in out
    assert len(endpoint.requests()) == n and Judge.objects.get().labels.exclude(value="").count() == n
