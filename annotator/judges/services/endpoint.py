"""Endpoint judges: the platform asks an OpenAI-compatible chat completions endpoint to rate every unit.

The lead gives the endpoint's URL, the model and a prompt template per criterion; each template may name
``{dialogue}`` (the dialogue up to the unit: the whole dialogue for a dialogue-level criterion),
``{target}`` (the unit's own text), ``{question}``, ``{scale}`` (one ``value: label`` line per value the
unit may take), ``{criterion}`` and, for comparisons, ``{candidates}``. Only these names are replaced:
a template is text, never code. The run (``endpoint_judge_run``, on the heavy queue) sends the prompts
not already answered (``EndpointAnswer``, keyed by the SHA-256 of URL, model, parameters and prompt) with
at most ``concurrency`` requests at a time and ``requests_per_minute``, each retried with backoff
(``annotator.judges.chat_endpoint``), counts the tokens the endpoint reports, and reads each answer
strictly: the answer, stripped of spaces, quotes and a final full stop, must be one of the unit's values
(letter case aside); anything else is recorded as missing with the answer as the reason.

The endpoint's key is a secret setting (``JUDGE_ENDPOINT_API_KEY``), sent only to URLs under one of
``JUDGE_ENDPOINT_KEY_URLS``, matched on the parsed scheme, host, port and path (``config.outbound.addresses.
url_under``: ``https://api.openai.com`` grants nothing to ``https://api.openai.com.attacker.example``), and never
past that host (redirects are not followed): a lead can point a judge at any public URL, but never make the server
hand the key to a host the operator did not name. It is never stored in a judge nor shown back. Requests go
through the platform's one outgoing client (``config.outbound``): internal addresses only on hosts the operator
named (``OUTBOUND_ALLOWED_HOSTS``, and the hosts of the key URLs), answers capped at ``OUTBOUND_MAX_RESPONSE_KB``.
"""

from __future__ import annotations

import hashlib
import json
import re
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass

from django.conf import settings as django_settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotator.judges.chat_endpoint import Completion, EndpointError, RateLimiter, chat_complete, completions_url
from annotator.judges.services.labels import judge_name_check
from annotator.models import Candidate, EndpointAnswer, Judge, JudgeKind, JudgeLabel, JudgeStatus, Post, Project, Unit
from annotator.selectors.population import gold_dialogues
from annotator.selectors.structure import DialogueShape
from annotator.units import POST_UNITS, required_units
from config.enqueue import task_send
from config.outbound.addresses import DestinationRefused, HostRule, destination_precheck, url_under
from config.outbound.policy import allowed_hosts, max_response_bytes

PLACEHOLDER = re.compile(r"\{(dialogue|target|question|scale|criterion|candidates)\}")
LIMITS = {  # setting -> (default, smallest, largest)
    "concurrency": (4, 1, 32),
    "requests_per_minute": (600, 0, 100_000),
    "max_retries": (3, 0, 10),
    "max_tokens": (16, 1, 4096),
    "timeout": (60, 1, 600),
}
PROGRESS_EVERY = 50  # answers between two progress saves


class EndpointSettingsError(ValueError):
    """Endpoint settings that cannot be used; the message names the setting."""


def endpoint_settings_check(*, project: Project, given: dict) -> dict:
    """The settings as stored: URL (http or https), model, prompt templates of known criteria, limits."""
    if not isinstance(given, dict):
        raise EndpointSettingsError("endpoint: expected an object")
    url = str(given.get("url") or "").strip()
    try:
        destination_precheck(url, allowed=judge_allowed_hosts())
    except DestinationRefused as exc:
        raise EndpointSettingsError(f"url: {exc} (the endpoint's URL, e.g. https://host/v1)") from None
    model = str(given.get("model") or "").strip()
    if not model:
        raise EndpointSettingsError("model: give the model's name")
    prompts = given.get("prompts")
    keys = set(project.criteria.values_list("key", flat=True))
    if not isinstance(prompts, dict) or not prompts:
        raise EndpointSettingsError("prompts: give a prompt template per criterion, {criterion key: template}")
    for key, template in prompts.items():
        if key not in keys:
            raise EndpointSettingsError(f"prompts.{key}: no such criterion (the project's: {', '.join(sorted(keys))})")
        if not isinstance(template, str) or not template.strip():
            raise EndpointSettingsError(f"prompts.{key}: a template is non-empty text")
    out = {"url": url, "model": model, "prompts": dict(prompts)}
    if given.get("system"):
        out["system"] = str(given["system"])
    temperature = given.get("temperature", 0.0)
    if isinstance(temperature, bool) or not isinstance(temperature, int | float) or not 0 <= temperature <= 2:
        raise EndpointSettingsError("temperature: a number from 0 to 2")
    out["temperature"] = float(temperature)
    for name, (default, low, high) in LIMITS.items():
        value = given.get(name, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise EndpointSettingsError(f"{name}: an integer from {low} to {high}")
        out[name] = value
    if "api_key" in given or "key" in given:
        raise EndpointSettingsError("api_key: the key is a server setting (JUDGE_ENDPOINT_API_KEY), never sent here")
    return out


def endpoint_judge_create(
    *, project: Project, name: str, endpoint: dict, description: str = "", created_by=None, send: bool = True
) -> Judge:
    """A new endpoint judge, waiting for a worker to run it (sent once the transaction commits; with
    ``send=False`` the caller runs it, ``endpoint_judge_run``)."""
    stored = endpoint_settings_check(project=project, given=endpoint)
    with transaction.atomic():
        judge = Judge.objects.create(
            project=project,
            name=judge_name_check(project=project, name=name),
            kind=JudgeKind.ENDPOINT,
            description=description,
            endpoint_settings=stored,
            source={"url": stored["url"], "model": stored["model"]},
            status=JudgeStatus.PENDING,
            created_by=created_by,
        )
        if send:
            transaction.on_commit(
                lambda: task_send("annotator.tasks.run_endpoint_judge", judge.pk, project_id=project.pk)
            )
    return judge


@dataclass(frozen=True)
class Prompt:
    """One unit to ask about: where it is, the values it may take, and the messages sent."""

    criterion_id: int
    dialogue_id: int
    unit: int
    allowed: tuple[str, ...]
    messages: tuple[dict, ...]

    def key(self, stored: dict) -> str:
        what = [stored["url"], stored["model"], stored["temperature"], stored["max_tokens"], list(self.messages)]
        return hashlib.sha256(json.dumps(what, ensure_ascii=False, sort_keys=True).encode()).hexdigest()


def _render(template: str, fields: dict[str, str]) -> str:
    return PLACEHOLDER.sub(lambda m: fields[m.group(1)], template)


def _scale_line(value: str, label: str) -> str:
    """``value: label``; a label that already starts with its value (``"1: yes"``) as it is."""
    return label if label.startswith(value) else f"{value}: {label}"


def _lines(posts: list[tuple]) -> str:
    return "\n".join(f"{speaker}: {text}" for _position, speaker, text, _block in posts)


def project_prompts(judge: Judge) -> list[Prompt]:
    """Every unit of the project's gold dialogues that a criterion with a template asks about, as prompts."""
    project, stored = judge.project, judge.endpoint_settings
    criteria = [c for c in project.criteria.all() if c.key in stored["prompts"]]
    dialogues = gold_dialogues(project).order_by("position", "pk")
    posts: dict[int, list[tuple]] = {}
    for dialogue_id, *row in (
        Post.objects.filter(dialogue__in=dialogues)
        .order_by("dialogue_id", "position")
        .values_list("dialogue_id", "position", "speaker", "text", "utterance_block")
    ):
        posts.setdefault(dialogue_id, []).append(tuple(row))
    candidates: dict[int, list[str]] = {}
    for dialogue_id, text in (
        Candidate.objects.filter(dialogue__in=dialogues).order_by("slot").values_list("dialogue_id", "text")
    ):
        candidates.setdefault(dialogue_id, []).append(text)
    shapes = _shapes(dialogues)
    prompts = []
    for dialogue_id in dialogues.values_list("pk", flat=True):
        rows = posts.get(dialogue_id, [])
        shape = shapes.get(dialogue_id, DialogueShape((), ()))
        pair = candidates.get(dialogue_id, [])
        for criterion in criteria:
            for unit in required_units(criterion, shape):
                if criterion.unit == Unit.DIALOGUE:
                    context, target = rows, rows
                elif criterion.unit in POST_UNITS:
                    context, target = rows[: unit + 1], [rows[unit]]
                else:
                    last = max(i for i, r in enumerate(rows) if r[3] == unit)
                    context, target = rows[: last + 1], [r for r in rows if r[3] == unit]
                speaker = target[0][1] if criterion.unit != Unit.DIALOGUE else None
                allowed = criterion.allowed_values(speaker if criterion.speakers else None)
                labels = {v["value"]: v.get("label", v["value"]) for v in criterion.values}
                fields = {
                    "dialogue": _lines(context),
                    "target": "\n".join(r[2] for r in target),
                    "question": criterion.question or criterion.label,
                    "scale": "\n".join(_scale_line(v, labels.get(v, v)) for v in allowed),
                    "criterion": criterion.label,
                    "candidates": "\n".join(f"{'AB'[i]}: {t}" for i, t in enumerate(pair)),
                }
                messages = [{"role": "user", "content": _render(stored["prompts"][criterion.key], fields)}]
                if stored.get("system"):
                    messages.insert(0, {"role": "system", "content": stored["system"]})
                prompts.append(Prompt(criterion.pk, dialogue_id, unit, tuple(allowed), tuple(messages)))
    return prompts


def _shapes(dialogues) -> dict[int, DialogueShape]:
    rows: dict[int, list[tuple]] = {}
    for dialogue_id, *row in (
        Post.objects.filter(dialogue__in=dialogues)
        .order_by("dialogue_id", "position")
        .values_list("dialogue_id", "speaker", "utterance_block", "source_annotated")
    ):
        rows.setdefault(dialogue_id, []).append(row)
    return {d: DialogueShape.of_posts(r) for d, r in rows.items()}


def answer_value(text: str, allowed: tuple[str, ...]) -> tuple[str | None, str]:
    """(the value an answer names, "") or (None, why not): strict, letter case aside.

    >>> answer_value(' "B". ', ("A", "B")), answer_value("b", ("A", "B")), answer_value("B or A", ("A", "B"))
    (('B', ''), ('B', ''), (None, "unparsable answer: 'B or A'"))
    """
    cleaned = text.strip().strip("\"'`").rstrip(".").strip().strip("\"'`")
    if cleaned in allowed:
        return cleaned, ""
    folded = [v for v in allowed if v.casefold() == cleaned.casefold()]
    if len(folded) == 1:
        return folded[0], ""
    return None, f"unparsable answer: {text.strip()[:80]!r}"


def _api_key(url: str) -> str:
    """The key, for a URL under one of the operator's prefixes (scheme, host, port and path parsed; the path on a
    segment boundary); otherwise none."""
    if any(url_under(url, prefix) for prefix in django_settings.JUDGE_ENDPOINT_KEY_URLS):
        return django_settings.JUDGE_ENDPOINT_API_KEY
    return ""


def judge_allowed_hosts() -> tuple[HostRule, ...]:
    """Where an endpoint judge may reach an internal address: the operator's ``OUTBOUND_ALLOWED_HOSTS`` and the
    hosts of ``JUDGE_ENDPOINT_KEY_URLS`` (a model server on the lab's network that the operator named)."""
    return allowed_hosts(*django_settings.JUDGE_ENDPOINT_KEY_URLS)


def endpoint_judge_run(*, judge_id: int) -> Judge | None:
    """Ask the endpoint about every unit and keep the answers as the judge's labels (replacing any earlier)."""
    judge = Judge.objects.filter(pk=judge_id, kind=JudgeKind.ENDPOINT).select_related("project").first()
    if judge is None:
        return None
    stored = judge.endpoint_settings
    prompts = project_prompts(judge)
    keys = [p.key(stored) for p in prompts]
    Judge.objects.filter(pk=judge.pk).update(
        status=JudgeStatus.RUNNING, error="", units_total=len(prompts), units_done=0
    )
    cached = {a.key: a.answer for a in EndpointAnswer.objects.filter(key__in=set(keys))}
    answers: dict[str, str] = dict(cached)
    failures: dict[str, str] = {}
    tokens = [0, 0]
    fresh = {}
    for prompt, key in zip(prompts, keys):
        if key not in cached:
            fresh.setdefault(key, prompt)
    limiter = RateLimiter(stored["requests_per_minute"])
    api_key = _api_key(completions_url(stored["url"]))
    allowed, max_bytes = judge_allowed_hosts(), max_response_bytes()

    def ask(prompt: Prompt) -> Completion:
        return chat_complete(
            url=stored["url"],
            model=stored["model"],
            messages=list(prompt.messages),
            api_key=api_key,
            temperature=stored["temperature"],
            max_tokens=stored["max_tokens"],
            timeout=stored["timeout"],
            max_retries=stored["max_retries"],
            limiter=limiter,
            max_bytes=max_bytes,
            allowed=allowed,
        )

    done = len(prompts) - sum(1 for k in keys if k in fresh)
    with ThreadPoolExecutor(max_workers=stored["concurrency"]) as pool:
        futures = {pool.submit(ask, prompt): key for key, prompt in fresh.items()}
        for n, future in enumerate(as_completed(futures), 1):
            key = futures[future]
            try:
                completion = future.result()
            except EndpointError as exc:
                failures[key] = f"endpoint error: {exc}"
                continue
            answers[key] = completion.text
            tokens[0] += completion.prompt_tokens
            tokens[1] += completion.completion_tokens
            EndpointAnswer.objects.get_or_create(
                key=key,
                defaults={
                    "model": stored["model"],
                    "answer": completion.text,
                    "prompt_tokens": completion.prompt_tokens,
                    "completion_tokens": completion.completion_tokens,
                },
            )
            if n % PROGRESS_EVERY == 0:
                Judge.objects.filter(pk=judge.pk).update(units_done=done + n)
    labels = []
    for prompt, key in zip(prompts, keys):
        if key in answers:
            value, reason = answer_value(answers[key], prompt.allowed)
        else:
            value, reason = None, failures.get(key, "no answer")
        labels.append(
            JudgeLabel(
                judge=judge,
                dialogue_id=prompt.dialogue_id,
                criterion_id=prompt.criterion_id,
                unit=prompt.unit,
                value=value or "",
                reason=reason,
            )
        )
    answered = sum(1 for label in labels if label.value)
    failed = bool(prompts) and not answered
    with transaction.atomic():
        JudgeLabel.objects.filter(judge=judge).delete()
        JudgeLabel.objects.bulk_create(labels, batch_size=5000)
        Judge.objects.filter(pk=judge.pk).update(
            status=JudgeStatus.FAILED if failed else JudgeStatus.READY,
            error=(next(iter(failures.values()), "") or labels[0].reason) if failed else "",
            units_done=len(prompts),
            prompt_tokens=F("prompt_tokens") + tokens[0],  # every run's spending, the cached answers cost nothing
            completion_tokens=F("completion_tokens") + tokens[1],
            source={**judge.source, "cached": sum(k in cached for k in keys), "ran_at": timezone.now().isoformat()},
        )
    judge.refresh_from_db()
    return judge


def endpoint_judge_job_lost(*, job, final: bool) -> None:
    """The judge's run lost its worker or its time (``annotator.services.jobs``): waiting again for the attempt
    sent again (the answers it had are cached, never paid twice), or failed saying why."""
    unended = Judge.objects.filter(pk=job.args[0], status__in=[JudgeStatus.PENDING, JudgeStatus.RUNNING])
    if final:
        unended.update(status=JudgeStatus.FAILED, error=job.error)
    else:
        unended.update(status=JudgeStatus.PENDING)
