"""STC-3 / DialEval JSON: dialogues with their turns and every annotator's annotation, in source order."""

from __future__ import annotations

import json
from itertools import groupby

from annotator.models import Project, Unit
from annotator.selectors.population import gold_dialogues

from .common import judgements_by_assignment, posts_by_dialogue


def stc3_records(project: Project) -> list[dict]:
    posts = posts_by_dialogue(project)
    per_dialogue, judgements = judgements_by_assignment(project)
    criteria = list(project.criteria.all())
    quality_keys = [c.key for c in criteria if c.unit == Unit.DIALOGUE]
    nugget_key = next((c.key for c in criteria if c.unit == Unit.TURN), None)
    records = []
    for dialogue_id, external_id, meta in (
        gold_dialogues(project).order_by("position", "pk").values_list("pk", "external_id", "source_meta")
    ):
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
        records.append(record)
    return records


def export_stc3(project: Project) -> bytes:
    return json.dumps(stc3_records(project), ensure_ascii=False, indent=1).encode("utf-8")
