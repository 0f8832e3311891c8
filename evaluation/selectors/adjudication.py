"""Reads for adjudication: the dashboard's disputed units with their final labels, and one unit in context."""

from __future__ import annotations

from django.http import Http404

from annotator.models import Criterion, Project
from annotator.selectors.adjudication import adjudicated_labels
from annotator.selectors.population import gold_judgements
from annotator.selectors.structure import dialogue_shape
from annotator.units import UnitError, unit_speaker
from evaluation.models import ProjectStatistics


def disputed_with_adjudications(*, project: Project) -> dict:
    """The stored statistics' most disputed units (highest entropy first), each with its final label if
    settled, and the settled units that are no longer among the most disputed."""
    stored = ProjectStatistics.objects.filter(project=project).values_list("payload", flat=True).first() or {}
    settled = adjudicated_labels(project=project)
    disputed = []
    for d in stored.get("disputed", []):
        key = (d["criterion"], d["dialogue_id"], d["unit"])
        disputed.append({**d, "adjudication": settled.get(key)})
    listed = {(d["criterion"], d["dialogue_id"], d["unit"]) for d in disputed}
    return {"disputed": disputed, "others": [v for k, v in settled.items() if k not in listed]}


def adjudication_unit(*, project: Project, dialogue_id: int, criterion: str, unit: int) -> dict:
    """One unit to adjudicate: the dialogue up to and including it, the values that apply, the vote counts."""
    dialogue = project.dialogues.filter(pk=dialogue_id).first()
    found = Criterion.objects.filter(project=project, key=criterion).first()
    if dialogue is None or found is None:
        raise Http404("no such unit")
    try:
        speaker = unit_speaker(found, unit, dialogue_shape(dialogue.pk))
    except UnitError:
        raise Http404("no such unit") from None
    choices = [v for v in found.values if not found.speakers or v.get("speaker") in (None, speaker)]
    counts = dict.fromkeys((c["value"] for c in choices), 0)
    for value in (
        gold_judgements(project)
        .filter(assignment__dialogue=dialogue, criterion=found, unit=unit)
        .values_list("value", flat=True)
    ):
        counts[value] = counts.get(value, 0) + 1
    posts = list(dialogue.posts.order_by("position").values("position", "speaker", "text", "utterance_block"))
    return {
        "dialogue": dialogue,
        "criterion": found,
        "unit": unit,
        "speaker": speaker,
        "choices": choices,
        "counts": [(c["value"], c["label"], counts.get(c["value"], 0)) for c in choices],
        "posts": posts,
    }
