"""UCH summaries of a nugget project: AUCH per dialogue and its correlation with the ratings."""

from __future__ import annotations

import numpy as np
from django.db.models.functions import Length

from annotator.models import Post, Project, Unit
from annotator.selectors.judgement_arrays import CriterionJudgements
from scoring.correlation import correlate
from scoring.uch import nuggets, uch


def auch_per_dialogue(
    project: Project, nugget: CriterionJudgements, helpdesk_weight: float = 0.5, patience: float | None = None
) -> dict[int, float]:
    """AUCH of every dialogue with nugget judgements; L defaults to the longest dialogue (characters).

    Turn-level nuggets (STC-3) treat each utterance block as one post of the block's length.
    """
    lengths: dict[int, list[tuple[int, int, str, int]]] = {}
    rows = (
        Post.objects.filter(dialogue__project=project)
        .annotate(chars=Length("text"))
        .order_by("dialogue_id", "position")
        .values_list("dialogue_id", "position", "utterance_block", "speaker", "chars")
    )
    for dialogue_id, position, block, speaker, chars in rows.iterator(chunk_size=20000):
        lengths.setdefault(dialogue_id, []).append((position, block, speaker, chars))
    by_turn = nugget.criterion.unit == Unit.TURN
    units: dict[int, tuple[list[str], list[int]]] = {}
    for dialogue_id, posts in lengths.items():
        if by_turn:
            speakers, sizes = [], []
            for _position, block, speaker, chars in posts:
                if block == len(speakers):
                    speakers.append(speaker)
                    sizes.append(0)
                sizes[block] += chars
        else:
            speakers, sizes = [p[2] for p in posts], [p[3] for p in posts]
        units[dialogue_id] = (speakers, sizes)
    L = patience or max((sum(s) for _sp, s in units.values()), default=1)
    labels: dict[tuple[int, int], dict[int, str]] = {}
    for k in range(len(nugget.value)):
        u = nugget.unit[k]
        labels.setdefault((int(nugget.unit_dialogue[u]), int(nugget.annotator[k])), {})[int(nugget.unit_index[u])] = (
            nugget.values[nugget.value[k]]
        )
    per_dialogue: dict[int, list[float]] = {}
    for (dialogue_id, _annotator), given in labels.items():
        speakers, sizes = units[dialogue_id]
        sequence = [given.get(i) for i in range(len(speakers))]
        per_dialogue.setdefault(dialogue_id, []).append(uch(nuggets(speakers, sequence, sizes), L, helpdesk_weight).uch)
    return {d: float(np.mean(v)) for d, v in per_dialogue.items()}


def uch_summary(project: Project, judgements: dict[str, CriterionJudgements]) -> dict | None:
    """``{"auch_mean", "kendall_tau": {CRITERION: {"tau", "ci_low", "ci_high"}}}`` or None without nuggets."""
    nugget = next((d for d in judgements.values() if d.criterion.speakers and len(d.value)), None)
    if nugget is None:
        return None
    auch = auch_per_dialogue(project, nugget)
    dialogues = sorted(auch)
    column = {d: i for i, d in enumerate(dialogues)}
    measure = np.array([auch[d] for d in dialogues])
    out = {"auch_mean": float(measure.mean()), "kendall_tau": {}}
    for key, data in judgements.items():
        if data.criterion.unit != Unit.DIALOGUE or not len(data.value):
            continue
        numbers = np.array([float(v) for v in data.values])
        ratings = np.full((len(data.annotators), len(dialogues)), np.nan)
        dialogue_of = data.unit_dialogue[data.unit]
        keep = np.array([int(d) in column for d in dialogue_of], dtype=bool)
        cols = np.array([column[int(d)] for d in dialogue_of[keep]], dtype=np.int64)
        ratings[data.annotator[keep], cols] = numbers[data.value[keep]]
        try:
            r = correlate(measure, ratings)
        except ValueError:
            continue
        out["kendall_tau"][key] = {"tau": r.tau, "ci_low": r.ci_low, "ci_high": r.ci_high, "pearson": r.pearson}
    return out
