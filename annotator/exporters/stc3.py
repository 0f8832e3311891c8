"""STC-3 / DialEval JSON: dialogues with their turns and every annotator's annotation, in source order."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import groupby

from annotator.models import Project, Unit
from annotator.selectors.population import population_of

from .common import annotator_names, gold_dialogue_chunks, judgements_by_assignment, posts_by_dialogue
from .stream import LazyList, json_chunks


def stc3_record_stream(project: Project) -> Iterator[dict]:
    """The records of the STC-3 export one dialogue at a time, reading the rows of ``DIALOGUE_CHUNK`` dialogues
    at a time (memory does not grow with the project)."""
    population = population_of(project)
    ranks = annotator_names(project)
    criteria = list(project.criteria.all())
    quality_keys = [c.key for c in criteria if c.unit == Unit.DIALOGUE]
    nugget_key = next((c.key for c in criteria if c.unit == Unit.TURN), None)
    for chunk in gold_dialogue_chunks(project, population):
        ids = [row[0] for row in chunk]
        posts = posts_by_dialogue(project, ids)
        per_dialogue, judgements = judgements_by_assignment(project, ids, population=population, ranks=ranks)
        for dialogue_id, external_id, meta in chunk:
            turns = [
                {"sender": speaker, "utterances": [p[2] for p in group]}
                for (_block, speaker), group in groupby(posts[dialogue_id], key=lambda p: (p[3], p[1]))
            ]
            record = {"id": external_id, "turns": turns}
            assignment_ids = per_dialogue.get(dialogue_id, [])
            if assignment_ids or meta.get("annotations"):
                annotations = []
                for assignment_id in assignment_ids:
                    given = {(key, unit): value for key, unit, value, _extra in judgements[assignment_id]}
                    quality = {k: int(given[(k, 0)]) for k in quality_keys if (k, 0) in given}
                    nugget = [given.get((nugget_key, t)) for t in range(len(turns))]
                    annotations.append({"quality": quality, "nugget": nugget})
                record["annotations"] = annotations
            yield record


def stc3_records(project: Project) -> list[dict]:
    return list(stc3_record_stream(project))


def export_stc3_chunks(project: Project) -> Iterator[bytes]:
    """The STC-3 JSON as it is written: the bytes of ``json.dumps(records, ensure_ascii=False, indent=1)``."""
    return json_chunks(LazyList(stc3_record_stream(project)), ensure_ascii=False, indent=1)


def export_stc3(project: Project) -> bytes:
    return b"".join(export_stc3_chunks(project))
