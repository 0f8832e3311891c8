"""UCH summaries of a nugget project: AUCH per dialogue and its correlation with the ratings."""

from __future__ import annotations

import numpy as np
from django.db.models.functions import Length

from annotator.models import Post, Project, Unit
from annotator.selectors.judgement_arrays import CriterionJudgements
from scoring.correlation import correlate
from scoring.uch import uch_of_sequences


def _unit_lengths(project: Project, by_turn: bool) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray, np.ndarray]:
    """The project's nugget units in dialogue order, as arrays: dialogue id, speaker code (into the returned
    names), length in characters and end offset within the dialogue; plus each dialogue's first unit row.

    Turn-level nuggets (STC-3) take each utterance block as one unit of the block's length and first speaker.
    """
    rows = (
        Post.objects.filter(dialogue__project=project)
        .annotate(chars=Length("text"))
        .order_by("dialogue_id", "position")
        .values_list("dialogue_id", "utterance_block", "speaker", "chars")
    )
    dialogue, block, speaker_name, chars = [], [], [], []
    for d, b, s, c in rows.iterator(chunk_size=20000):
        dialogue.append(d)
        block.append(b)
        speaker_name.append(s)
        chars.append(c)
    dialogue_ids = np.array(dialogue, dtype=np.int64)
    names, speaker = np.unique(np.array(speaker_name, dtype=str), return_inverse=True)
    chars_of = np.array(chars, dtype=np.int64)
    if by_turn and len(dialogue_ids):
        new_unit = np.ones(len(dialogue_ids), dtype=bool)
        blocks = np.array(block, dtype=np.int64)
        new_unit[1:] = (dialogue_ids[1:] != dialogue_ids[:-1]) | (blocks[1:] != blocks[:-1])
        starts = np.flatnonzero(new_unit)
        dialogue_ids, speaker, chars_of = dialogue_ids[starts], speaker[starts], np.add.reduceat(chars_of, starts)
    first = np.ones(len(dialogue_ids), dtype=bool)
    first[1:] = dialogue_ids[1:] != dialogue_ids[:-1]
    dialogue_start = np.flatnonzero(first)
    ends = np.cumsum(chars_of)
    ends -= np.repeat(ends[dialogue_start] - chars_of[dialogue_start], np.diff(np.append(dialogue_start, len(ends))))
    return dialogue_ids, speaker.astype(np.int64), names.tolist(), ends, dialogue_start


def auch_per_dialogue(
    project: Project, nugget: CriterionJudgements, helpdesk_weight: float = 0.5, patience: float | None = None
) -> dict[int, float]:
    """AUCH of every dialogue with nugget judgements: the mean over its annotators of the UCH of their
    labels (Zeng et al. 2017); L defaults to the longest dialogue (characters). Units an annotator left
    unlabelled count as not nuggets. Whole-array work (``scoring.uch.uch_of_sequences``), no loop per
    annotator and dialogue.
    """
    unit_dialogue, unit_speaker, speakers, unit_end, dialogue_start = _unit_lengths(
        project, nugget.criterion.unit == Unit.TURN
    )
    if not len(nugget.value) or not len(unit_dialogue):
        return {}
    dialogue_ids = unit_dialogue[dialogue_start]
    n_units = np.diff(np.append(dialogue_start, len(unit_dialogue)))
    dialogue_end = unit_end[dialogue_start + n_units - 1]
    L = patience or float(dialogue_end.max()) or 1.0
    # one sequence per (dialogue, annotator) with judgements, in dialogue order
    row_of = np.searchsorted(dialogue_ids, nugget.unit_dialogue.astype(np.int64))  # dialogue row of each unit
    judged_row = row_of[nugget.unit]
    pair = judged_row * (int(nugget.annotator.max()) + 1) + nugget.annotator
    pairs, sequence_of_judgement = np.unique(pair, return_inverse=True)
    sequence_row = pairs // (int(nugget.annotator.max()) + 1)
    length = n_units[sequence_row]
    offset = np.concatenate(([0], np.cumsum(length)[:-1]))
    sequence = np.repeat(np.arange(len(pairs)), length)
    unit_row = np.repeat(dialogue_start[sequence_row] - offset, length) + np.arange(len(sequence))
    label = np.full(len(sequence), -1, dtype=np.int64)
    index = nugget.unit_index[nugget.unit]
    inside = index < length[sequence_of_judgement]  # a unit beyond the dialogue's posts is not one of its units
    label[offset[sequence_of_judgement][inside] + index[inside]] = nugget.value[inside]
    scores = uch_of_sequences(
        sequence,
        unit_speaker[unit_row],
        label,
        unit_end[unit_row],
        speakers=speakers,
        labels=nugget.values,
        patience=L,
        helpdesk_weight=helpdesk_weight,
    )
    annotators = np.bincount(sequence_row, minlength=len(dialogue_ids))
    total = np.bincount(sequence_row, weights=scores, minlength=len(dialogue_ids))
    judged = annotators > 0
    return dict(zip(dialogue_ids[judged].tolist(), (total[judged] / annotators[judged]).tolist()))


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
