"""Comparison projects' exports, as JSON lines: the items with their votes, and preference pairs for training.

``pairwise``: the import's own format (``annotator.importers.pairwise``), one item per line with every
submitted vote as ``{"annotator", "winner": <system> | "tie" | "both_bad", "shown_first": <system>}``
(``criterion`` when it is not ``overall``; the source's other fields kept): importing a file and exporting
it gives the file back.

``preference-pairs``: one line per item and criterion whose votes have a single most-voted outcome that is a
system (the plurality winner; an item whose most votes are a tie, both bad, or shared by two outcomes is
left out): ``{"id", "context", "chosen", "rejected", "chosen_system", "rejected_system", "votes"}``, the
votes counted per outcome (``{<system>: n, <system>: n, "tie": n, "both_bad": n}``); ``criterion`` is
added when the project has several. This is the (prompt, chosen, rejected) form reward models and DPO
are trained on.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence

from annotator.models import Candidate, Project
from annotator.presets import A_BETTER, B_BETTER, BOTH_BAD, TIE
from annotator.selectors.population import gold_judgements, population_of

from .common import annotator_names, gold_dialogue_chunks, posts_by_dialogue
from .stream import chunked

DEFAULT_CRITERION = "overall"


def _candidates(dialogue_ids: Sequence[int]) -> dict[int, list[tuple[str, str]]]:
    """dialogue id -> [(system, text) of candidate A, of candidate B]."""
    result: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for dialogue_id, system, text in (
        Candidate.objects.filter(dialogue_id__in=list(dialogue_ids))
        .order_by("dialogue_id", "slot")
        .values_list("dialogue_id", "system", "text")
    ):
        result[dialogue_id].append((system, text))
    return result


def _votes(project: Project, dialogue_ids: Sequence[int], population) -> dict[int, list[tuple]]:
    """dialogue id -> [(annotator user id, criterion key, value, shown first, extra)] in the order stored."""
    result: dict[int, list[tuple]] = defaultdict(list)
    rows = (
        gold_judgements(project, population)
        .filter(assignment__dialogue_id__in=list(dialogue_ids))
        .order_by("pk")
        .values_list("assignment__dialogue_id", "assignment__annotator_id", "criterion__key", "value", "shown_first",
                     "extra")
    )  # fmt: skip
    for dialogue_id, *rest in rows:
        result[dialogue_id].append(tuple(rest))
    return result


def _winner(value: str, systems: list[str]) -> str:
    return {A_BETTER: systems[0], B_BETTER: systems[1]}.get(value, value)


def _items(project: Project) -> Iterator[tuple[str, dict, list[dict], list[tuple[str, str]], list[tuple]]]:
    """(external id, source meta, context, candidates, votes) of every item, a chunk of items at a time."""
    population = population_of(project)
    for chunk in gold_dialogue_chunks(project, population):
        ids = [row[0] for row in chunk]
        posts = posts_by_dialogue(project, ids)
        candidates = _candidates(ids)
        votes = _votes(project, ids, population)
        for dialogue_id, external_id, meta in chunk:
            context = [{"speaker": p[1], "text": p[2]} for p in posts[dialogue_id]]
            yield external_id, meta or {}, context, candidates[dialogue_id], votes[dialogue_id]


def _item_id(external_id: str, meta: dict):
    return int(external_id) if meta.get("id_type") == "int" and external_id.lstrip("-").isdigit() else external_id


def pairwise_record_stream(project: Project) -> Iterator[dict]:
    """The items as the import reads them, with their submitted votes."""
    names = annotator_names(project)
    for external_id, meta, context, candidates, votes in _items(project):
        systems = [system for system, _text in candidates]
        record: dict = {"id": _item_id(external_id, meta)}
        if meta.get("language_given"):
            record["language"] = project.dialogues.get(external_id=external_id).language
        record["context"] = context
        record["candidates"] = [{"system": system, "text": text} for system, text in candidates]
        annotations = []
        for annotator_id, key, value, shown_first, extra in votes:
            extra = extra or {}
            annotation = {"annotator": names.get(annotator_id, (0, str(annotator_id)))[1]}
            if key != DEFAULT_CRITERION or extra.get("criterion_given"):
                annotation["criterion"] = key
            annotation["winner"] = _winner(value, systems)
            if shown_first:
                annotation["shown_first"] = _winner(shown_first, systems)
            annotation.update(extra.get("fields", {}))
            annotations.append(annotation)
        if annotations:
            record["annotations"] = annotations
        if "meta" in meta:
            record["meta"] = meta["meta"]
        yield record


def preference_pair_stream(project: Project) -> Iterator[dict]:
    """One preference pair per item and criterion with a plurality winner that is a system (module docstring)."""
    keys = list(project.criteria.order_by("position").values_list("key", flat=True))
    for external_id, meta, context, candidates, votes in _items(project):
        systems = [system for system, _text in candidates]
        for key in keys:
            counts = Counter(value for _a, k, value, _shown, _extra in votes if k == key)
            ranked = counts.most_common()
            if not ranked or ranked[0][0] not in (A_BETTER, B_BETTER):
                continue
            if len(ranked) > 1 and ranked[1][1] == ranked[0][1]:
                continue  # no single most-voted outcome
            chosen = 0 if ranked[0][0] == A_BETTER else 1
            record = {
                "id": _item_id(external_id, meta),
                "context": context,
                "chosen": candidates[chosen][1],
                "rejected": candidates[1 - chosen][1],
                "chosen_system": systems[chosen],
                "rejected_system": systems[1 - chosen],
                "votes": {
                    systems[0]: counts[A_BETTER],
                    systems[1]: counts[B_BETTER],
                    TIE: counts[TIE],
                    BOTH_BAD: counts[BOTH_BAD],
                },
            }
            if len(keys) > 1:
                record["criterion"] = key
            yield record


def _lines(records: Iterator[dict]) -> Iterator[bytes]:
    return chunked(json.dumps(record, ensure_ascii=False) + "\n" for record in records)


def export_pairwise_chunks(project: Project) -> Iterator[bytes]:
    """The items with their votes as JSON lines (UTF-8), written as they are read."""
    return _lines(pairwise_record_stream(project))


def export_preference_pairs_chunks(project: Project) -> Iterator[bytes]:
    """The preference pairs as JSON lines (UTF-8), written as they are read."""
    return _lines(preference_pair_stream(project))
