"""Gold distributions per criterion and unit (Sakai 2017), as JSON or long-form CSV.

``aggregation`` chooses what a unit's distribution is: the vote shares (``votes``, as DialEval and DBDC
use) or the posterior of a latent-truth model that weighs annotators by their estimated reliability
(``dawid-skene``, ``glad``, ``mace``; ``scoring.aggregation``). Either way each unit carries its vote
counts, the annotators whose judgements it holds, and the adjudicated label if a lead or adjudicator
settled it; the JSON also names the included and excluded annotators and, for a model, each
annotator's estimated reliability. On a project with an adaptive budget each unit also says how many labels
its item has (``item_labels``) and why the item stopped getting more (``stopped``: ``stable``, ``at_maximum``,
``budget_spent``, or "" while open); the JSON's ``adaptive`` section says it per item. A unit of a label-gold
criterion also carries its ``label`` (the majority under the criterion's threshold), whether that label is
``settled`` at the project's ``delta`` and its ``change_probability`` (that the label of ``max_k`` annotators
would differ; ``scoring.adaptive.label_gold``), under the prior the hand-outs used (fitted to every unit).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict
from itertools import islice

import numpy as np

from annotator.handout.selectors.adaptive import AdaptiveStatus, adaptive_on, adaptive_status, stop_reason
from annotator.models import Project, Unit
from annotator.selectors.adjudication import adjudicated_labels
from annotator.selectors.judgement_arrays import CriterionJudgements, project_judgements
from annotator.selectors.population import annotators_included
from scoring.adaptive import LabelStopRule

from .common import annotator_names
from .stream import LazyList, csv_chunks, json_chunks

AGGREGATIONS = ("votes", "dawid-skene", "glad", "mace")


def _posteriors(data: CriterionJudgements, aggregation: str, names: list[str]) -> tuple[np.ndarray, dict]:
    """(units x values posteriors, {scale name: {annotator: reliability}}); a unit's row covers its own scale."""
    from scoring.aggregation import aggregate
    from scoring.gold import gold_distribution

    counts = data.counts()
    if aggregation == "votes":
        out = np.zeros(counts.shape)
        for u in range(data.n_units):
            columns = data.scale(data.unit_speaker[u]) if data.criterion.speakers else list(range(len(data.values)))
            out[u, columns] = gold_distribution(counts[u, columns])
        return out, {}
    if data.unit_counts.any():
        raise ValueError(
            f"{aggregation} needs each annotator's labels; criterion {data.criterion.key} has counts published "
            "without annotators (use --aggregation votes)"
        )
    out = np.full(counts.shape, np.nan)
    reliability: dict[str, dict[str, float]] = {}
    groups = data.criterion.speakers or [""]
    for speaker in groups:
        columns = data.scale(speaker) if speaker else list(range(len(data.values)))
        units = np.nonzero(data.unit_speaker == speaker)[0] if speaker else np.arange(data.n_units)
        local_unit = np.full(data.n_units, -1)
        local_unit[units] = np.arange(len(units))
        local_value = np.full(len(data.values), -1)
        local_value[columns] = np.arange(len(columns))
        use = local_unit[data.unit] >= 0
        result = aggregate(
            local_unit[data.unit[use]], data.annotator[use], local_value[data.value[use]],
            n_units=len(units), n_values=len(columns), n_annotators=len(data.annotators), method=aggregation,
        )  # fmt: skip
        out[np.ix_(units, columns)] = result.posteriors
        label = data.criterion.key + (f":{speaker}" if speaker else "")
        reliability[label] = {names[a]: float(r) for a, r in enumerate(result.reliability) if np.isfinite(r)}
    return out, reliability


SLICE_DIALOGUES = 2000  # dialogues read at a time for a votes export (memory does not grow with the project)


def distribution_document(project: Project, aggregation: str = "votes", *, lazy: bool = False) -> dict:
    """``{"project", "aggregation", "annotators", "criteria": {KEY: {"unit", "scale" | "scales", "items"}}}``.

    An item is one unit: its dialogue's external id, the unit number (0 for the dialogue, the post position
    or the utterance block index), the speaker, the number of judgements, the counts and the distribution
    (vote shares or a model's posterior) over the scale that applies to the unit's speaker, the annotators
    whose judgements it holds, and the adjudicated label and note (null and "" where nobody settled it).

    Vote shares depend on each unit's own counts, so they are read a slice of ``SLICE_DIALOGUES``
    dialogues at a time (``project_judgements`` of one criterion and those dialogues); with ``lazy``
    each slice's items are made as they are written (``LazyList``), so neither the project's judgements
    nor its items are ever all held. A model's posterior weighs every label of the criterion, so a
    model export reads the criterion whole (and fits the model before the first byte is written).
    """
    if aggregation not in AGGREGATIONS:
        raise ValueError(f"unknown aggregation {aggregation!r}; choose one of {', '.join(AGGREGATIONS)}")
    ranked_names = annotator_names(project)
    settled = adjudicated_labels(project=project)
    out: dict = {
        "project": project.slug,
        "aggregation": aggregation,
        "annotators": asdict(annotators_included(project)),
        "criteria": {},
    }
    if aggregation != "votes":
        out["reliability"] = {}
    status = adaptive_status(project) if adaptive_on(project) else None
    stops = _adaptive_stops(status)
    if stops is not None:
        out["adaptive"] = stops
    for criterion in project.criteria.all():
        key = criterion.key
        entry: dict = {"unit": criterion.unit}
        values = list(dict.fromkeys(criterion.allowed_values()))
        if criterion.speakers:
            entry["scales"] = {s: [v for v in values if v in criterion.allowed_values(s)] for s in criterion.speakers}
        else:
            entry["scale"] = values
        if aggregation == "votes":
            items = _votes_items(project, key, ranked_names, settled, out)
        else:
            items = iter(list(_slice_items(project, key, None, aggregation, ranked_names, settled, out)))
        if stops is not None:
            items = _with_stops(items, stops)
            if isinstance(rule := status.rules.get(key), LabelStopRule) and "scale" in entry:
                items = _with_labels(items, rule, entry["scale"])
        entry["items"] = LazyList(items) if lazy else list(items)
        out["criteria"][key] = entry
    return out


def _adaptive_stops(status: AdaptiveStatus | None) -> dict[str, dict] | None:
    """{external id: {"labels", "state", "stopped"}} on an adaptive project, else None."""
    if status is None:
        return None
    return {
        i.external_id: {"labels": i.labels, "state": i.state, "stopped": stop_reason(i, status)} for i in status.items
    }


def _with_stops(items: Iterator[dict], stops: dict[str, dict]) -> Iterator[dict]:
    for item in items:
        stop = stops.get(item["dialogue"], {"labels": 0, "stopped": ""})
        yield {**item, "item_labels": stop["labels"], "stopped": stop["stopped"]}


LABEL_CHUNK = 1000  # units whose change probability is computed at once


def _with_labels(items: Iterator[dict], rule: LabelStopRule, scale: list[str]) -> Iterator[dict]:
    """The items of a label-gold criterion with their label, whether it is settled and its change probability."""
    while chunk := list(islice(items, LABEL_CHUNK)):
        counts = np.array([[item["counts"].get(value, 0) for value in scale] for item in chunk], dtype=float)
        change = rule.statistic(counts)
        labels = rule.labels(counts)
        n = counts.sum(axis=1)
        settled = (n >= rule.max_k) | ((n >= rule.min_k) & (change <= rule.delta))
        for i, item in enumerate(chunk):
            yield {
                **item,
                "label": scale[labels[i]] if n[i] else None,
                "settled": bool(settled[i]),
                "change_probability": float(change[i]),
                "delta": rule.delta,
            }


def _dialogue_slices(project: Project) -> Iterator[list[int]]:
    """The project's dialogue ids in order, ``SLICE_DIALOGUES`` at a time (keyset pages: each one query)."""
    last = 0
    while ids := list(
        project.dialogues.filter(pk__gt=last).order_by("pk").values_list("pk", flat=True)[:SLICE_DIALOGUES]
    ):
        yield ids
        last = ids[-1]


def _votes_items(project, key, ranked_names, settled, out) -> Iterator[dict]:
    for ids in _dialogue_slices(project):
        yield from _slice_items(project, key, ids, "votes", ranked_names, settled, out)


def _slice_items(project, key, ids, aggregation, ranked_names, settled, out) -> Iterator[dict]:
    """The items of criterion ``key`` in dialogues ``ids`` (None: all), a model's reliability added to ``out``."""
    data = project_judgements(project, keys=[key], dialogue_ids=ids)[key]
    if not data.n_units:
        return iter(())
    dialogues = project.dialogues.filter(pk__in=np.unique(data.unit_dialogue).tolist())
    external = dict(dialogues.values_list("pk", "external_id"))
    names = [ranked_names[int(u)][1] if int(u) in ranked_names else str(u) for u in data.annotators]
    # annotators listed in the project's own order (imported ones in their source order), not by
    # database id, so an export is the same after the project is archived and restored
    rank = [ranked_names.get(int(u), (len(ranked_names), str(u))) for u in data.annotators]
    distributions, reliability = _posteriors(data, aggregation, names)
    if aggregation != "votes":
        out["reliability"].update(reliability)
    return _items(key, data, distributions, names, rank, external, settled)


def _items(key: str, data: CriterionJudgements, distributions, names, rank, external, settled) -> Iterator[dict]:
    criterion, speakers = data.criterion, data.criterion.speakers
    counts = data.counts()
    order = np.argsort(data.unit, kind="stable")
    bounds = np.searchsorted(data.unit[order], np.arange(data.n_units + 1))
    all_columns = list(range(len(data.values)))
    scales = {s: data.scale(s) for s in speakers}
    for u in range(data.n_units):
        columns = scales[data.unit_speaker[u]] if speakers else all_columns
        row = counts[u, columns]
        dialogue_id, unit = int(data.unit_dialogue[u]), int(data.unit_index[u])
        item = {"dialogue": external[dialogue_id], "unit": unit}
        if criterion.unit != Unit.DIALOGUE:
            item["speaker"] = data.unit_speaker[u]
        item["n"] = int(row.sum())
        item["counts"] = {data.values[c]: int(n) for c, n in zip(columns, row)}
        item["distribution"] = {data.values[c]: float(distributions[u, c]) for c in columns}
        judged_by = data.annotator[order[bounds[u] : bounds[u + 1]]]
        item["annotators"] = [names[a] for a in sorted(judged_by.tolist(), key=rank.__getitem__)]
        adjudication = settled.get((key, dialogue_id, unit))
        item["adjudicated"] = adjudication["value"] if adjudication else None
        item["adjudication_note"] = adjudication["note"] if adjudication else ""
        yield item


def distribution_records(project: Project, aggregation: str = "votes") -> dict:
    """``distribution_document`` with every item in memory."""
    return distribution_document(project, aggregation)


def export_distributions_json_chunks(project: Project, aggregation: str = "votes") -> Iterator[bytes]:
    document = distribution_document(project, aggregation, lazy=True)
    return json_chunks(document, ensure_ascii=False, indent=1)


def export_distributions_json(project: Project, aggregation: str = "votes") -> bytes:
    return b"".join(export_distributions_json_chunks(project, aggregation))


CSV_COLUMNS = [
    "criterion", "dialogue", "unit", "speaker", "n", "value", "count", "probability",
    "adjudicated", "adjudication_note", "aggregation", "annotators",
]  # fmt: skip


LABEL_COLUMNS = ["label", "settled", "change_probability", "delta"]


def _csv_rows(document: dict, aggregation: str) -> Iterator[list]:
    adaptive = "adaptive" in document  # (more columns: the item's labels and why it stopped; label gold's)
    yield CSV_COLUMNS + (["item_labels", "stopped", *LABEL_COLUMNS] if adaptive else [])
    for key, entry in document["criteria"].items():
        for item in entry["items"]:
            extra = [item["item_labels"], item["stopped"]] if adaptive else []
            if adaptive:  # (empty on distribution gold)
                extra += [_csv_cell(item.get(column)) for column in LABEL_COLUMNS]
            for value, count in item["counts"].items():
                yield [
                    key,
                    item["dialogue"],
                    item["unit"],
                    item.get("speaker", ""),
                    item["n"],
                    value,
                    count,
                    repr(item["distribution"][value]),
                    item["adjudicated"] or "",
                    item["adjudication_note"],
                    aggregation,
                    ";".join(item["annotators"]),
                    *extra,
                ]


def _csv_cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def export_distributions_csv_chunks(project: Project, aggregation: str = "votes") -> Iterator[bytes]:
    """One row per unit and value; ``adjudicated`` repeats the unit's final label on each of its rows, and
    ``annotators`` lists (separated by ``;``) the annotators whose judgements the unit holds."""
    # the arrays and any model are computed here, before the first byte: a refusal is an error, not a cut stream
    return csv_chunks(_csv_rows(distribution_document(project, aggregation, lazy=True), aggregation))


def export_distributions_csv(project: Project, aggregation: str = "votes") -> bytes:
    return b"".join(export_distributions_csv_chunks(project, aggregation))
