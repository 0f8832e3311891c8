"""DBDC3 ``*.log.json`` files (a zip), each dialogue with every annotator's breakdown labels."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator

from annotator.filenames import unique_names
from annotator.importers.dbdc import DEFAULT_ANNOTATION_EXTRA
from annotator.models import Criterion, Project, Unit
from annotator.selectors.population import gold_dialogues, gold_judgements, population_of
from annotator.selectors.structure import project_shapes
from annotator.units import required_units

from .common import annotator_names, gold_dialogue_chunks, posts_by_dialogue
from .stream import zip_chunks


def dbdc_record_stream(project: Project) -> Iterator[tuple[str, dict]]:
    """(name inside the zip, dialogue object) per dialogue, in import order, reading the rows of
    ``DIALOGUE_CHUNK`` dialogues at a time.

    Labels of a turn come in the order they were stored, which for an import is the source's. Only
    the turns the criterion asks about carry labels (``annotator.units``): a label left on
    another turn (an opening prompt judged before the DBDC3 rule applied) is not exported.
    Member names are ``ID.log.json`` built from the dialogue id made safe (``annotator.filenames``:
    no separators, no ``..``, no absolute paths, so extracting the zip writes nothing outside its
    folder) and numbered where two ids would give one name.
    """
    population = population_of(project)
    names = annotator_names(project)
    shapes = project_shapes(project.pk)
    criteria = {c.pk: c for c in Criterion.objects.filter(project=project)}
    external_ids = gold_dialogues(project, population).order_by("position", "pk").values_list("external_id", flat=True)
    members = iter(unique_names(list(external_ids), ".log.json"))
    for chunk in gold_dialogue_chunks(project, population):
        ids = [row[0] for row in chunk]
        posts = posts_by_dialogue(project, ids)
        asked: dict[tuple[int, int], set[int]] = {}
        labels: dict[tuple[int, int], list[dict]] = defaultdict(list)
        rows = (
            gold_judgements(project, population)
            .filter(criterion__unit__in=[Unit.SYSTEM_TURN, Unit.POST], assignment__dialogue_id__in=ids)
            .order_by("pk")
            .values_list(
                "assignment__dialogue_id", "unit", "assignment__annotator_id", "value", "extra", "criterion_id"
            )
        )
        for dialogue_id, unit, annotator_id, value, extra, criterion_id in rows:  # one chunk: a plain cursor
            if (criterion_id, dialogue_id) not in asked:
                asked[(criterion_id, dialogue_id)] = set(required_units(criteria[criterion_id], shapes[dialogue_id]))
            if unit not in asked[(criterion_id, dialogue_id)]:
                continue
            annotator = names.get(annotator_id, (0, str(annotator_id)))[1]
            labels[(dialogue_id, unit)].append(
                {
                    "annotator-id": annotator,
                    "breakdown": value,
                    **(DEFAULT_ANNOTATION_EXTRA if extra is None else extra),
                }
            )
        for dialogue_id, external_id, meta in chunk:
            turns = []
            for position, speaker, text, _block, turn_index, post_meta in posts[dialogue_id]:
                turn = {"turn-index": position if turn_index is None else turn_index, "speaker": speaker}
                turn.update(post_meta or {})
                turn["utterance"] = text
                turn["annotations"] = labels.get((dialogue_id, position), [])
                turns.append(turn)
            fields = {"dialogue-id": external_id, **meta.get("fields", {}), "turns": turns}
            order = meta.get("keys") or list(fields)
            yield next(members), {k: fields[k] for k in order if k in fields}


def dbdc_records(project: Project) -> list[tuple[str, dict]]:
    return list(dbdc_record_stream(project))


def export_dbdc_zip_chunks(project: Project) -> Iterator[bytes]:
    """The zip of ``*.log.json`` files as it is written; reproducible: the same data gives the same bytes."""
    return zip_chunks(
        (path, lambda record=record: [json.dumps(record, ensure_ascii=False, indent=2).encode("utf-8")])
        for path, record in dbdc_record_stream(project)
    )


def export_dbdc_zip(project: Project) -> bytes:
    return b"".join(export_dbdc_zip_chunks(project))
