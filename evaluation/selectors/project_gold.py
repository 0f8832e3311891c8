"""Gold data of a project arranged for the run readers and the scoring library."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from annotator.models import Post, Project, Unit
from annotator.selectors.judgement_arrays import CriterionJudgements
from scoring.run_files import DBDCGold


@dataclass(frozen=True)
class GoldArrays:
    """Per criterion key, its units and per-unit counts (in ``unit_counts``); per dialogue (database id),
    the speaker of each turn (utterance block) in order."""

    criteria: dict[str, CriterionJudgements]
    turn_speakers: dict[int, list[str]]


@dataclass(frozen=True)
class TurnGold:
    """Per dialogue (external id) each unit's speaker; the dialogues with gold turn counts; the turn criterion's
    counts, looked up in bulk by ``turn_counts``."""

    speakers: dict[str, list[str]]
    dialogues: set[str]
    data: CriterionJudgements
    id_of: dict[str, int]  # external id -> database id


_TURN_SHIFT = 1 << 32  # (dialogue id, turn) as one sortable integer


def turn_counts(gold: TurnGold, dialogues: list[str], position: np.ndarray, turn: np.ndarray, speaker: str):
    """Counts over ``speaker``'s scale of each (``dialogues[position[i]]``, ``turn[i]``); NaN where there is none.

    One sorted search instead of a dictionary look-up per turn (26,000 turns in STC-3 Chinese).
    """
    data = gold.data
    columns = data.scale(speaker)
    keys = data.unit_dialogue.astype(np.int64) * _TURN_SHIFT + data.unit_index.astype(np.int64)
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    ids = np.array([gold.id_of.get(d, -1) for d in dialogues], dtype=np.int64)
    wanted = ids[position] * _TURN_SHIFT + turn.astype(np.int64)
    at = np.minimum(np.searchsorted(ordered, wanted), max(len(ordered) - 1, 0))
    found = ordered[at] == wanted if len(ordered) else np.zeros(len(wanted), dtype=bool)
    out = np.full((len(wanted), len(columns)), np.nan)
    if found.any():
        out[found] = data.counts()[order[at[found]]][:, columns]
    return out


def external_ids(project: Project) -> dict[int, str]:
    return dict(project.dialogues.values_list("pk", "external_id"))


def dialogue_counts(data: CriterionJudgements, external: dict[int, str]) -> dict[str, np.ndarray]:
    """external id -> counts over the scale, for a dialogue-level criterion."""
    counts = data.counts()
    return {external[int(d)]: counts[u] for u, d in enumerate(data.unit_dialogue)}


def turn_gold(data: CriterionJudgements, external: dict[int, str], gold: GoldArrays) -> TurnGold:
    """Speakers of every turn (utterance block) and the turn criterion's counts (see ``turn_counts``)."""
    speakers = {external[d]: blocks for d, blocks in gold.turn_speakers.items()}
    dialogues = {external[d] for d in set(data.unit_dialogue.tolist())}
    return TurnGold(speakers, dialogues, data, {e: d for d, e in external.items()})


def criteria_by_unit(gold: GoldArrays) -> dict[str, list[CriterionJudgements]]:
    """Each unit kind's criteria with their per-unit counts (from the gold cache)."""
    by_unit: dict[str, list[CriterionJudgements]] = {}
    for data in gold.criteria.values():
        by_unit.setdefault(data.criterion.unit, []).append(data)
    return by_unit


def breakdown_gold(project: Project, gold: GoldArrays) -> DBDCGold:
    """A breakdown project's gold data as DBDC runs are read against it: per dialogue (external id)
    the annotated system turns (the asked units with judgements) and every turn, by the source's
    turn index (the post position for new collections), and the (O, T, X) counts per annotated turn."""
    external = external_ids(project)
    data = criteria_by_unit(gold)[Unit.SYSTEM_TURN][0]
    counts = data.counts()
    turn_index: dict[tuple[int, int], int] = {}
    dialogue_turns: dict[str, list[int]] = {external[d]: [] for d in external}
    rows = (
        Post.objects.filter(dialogue__project=project)
        .order_by("dialogue_id", "position")
        .values_list("dialogue_id", "position", "source_turn_index")
    )
    for dialogue_id, position, source_index in rows.iterator(chunk_size=20000):
        index = position if source_index is None else source_index
        turn_index[(dialogue_id, position)] = index
        dialogue_turns[external[dialogue_id]].append(index)
    turns: dict[str, list[int]] = {}
    per_turn: dict[tuple[str, int], np.ndarray] = {}
    for u, (d, position) in enumerate(zip(data.unit_dialogue.tolist(), data.unit_index.tolist())):
        did, index = external[d], turn_index[(d, position)]
        turns.setdefault(did, []).append(index)
        per_turn[(did, index)] = counts[u]
    return DBDCGold(turns, dialogue_turns, per_turn)
