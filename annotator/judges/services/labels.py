"""Judges: importing an automatic rater's labels, and removing a judge.

A judge's file is read by the collection's own reader (STC-3 / DialEval JSON, DBDC3 logs, pairwise
JSON lines) as a collection with one annotator, the judge; or it is a judge's JSON lines of labels
(``annotator.judges.labels_file``), for any preset, with an optional probability distribution
per unit. Its labels are mapped onto the project's dialogues, which must already be there, checked
against the criteria like any judgement, and written to the judges' own table in one transaction:
nothing is written when one label is wrong. They never enter the judgements table, so gold data,
agreement, quality control and exports never see them.
"""

from __future__ import annotations

import math
import re
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from django.db import transaction

from annotator.importers import ParsedDialogue, read_sources
from annotator.importers.detect import detect_format
from annotator.judges.labels_file import ParsedLabel, is_labels_file, read_judge_labels
from annotator.models import Dialogue, Judge, JudgeKind, JudgeLabel, Project
from annotator.selectors.structure import DialogueShape, project_shapes
from annotator.services.imports.uploads import upload_check_size
from annotator.units import UnitError, check_value, unit_speaker
from scoring.errors import N_, InputError
from scoring.run_files import PROBABILITY_TOLERANCE

JUDGE_FORMATS = ("auto", "stc3", "dbdc", "pairwise", "labels")
NAME_MAX = 100
DBDC_PROBABILITIES = {"prob-O": "O", "prob-T": "T", "prob-X": "X"}  # as DBDC run files give them


def judge_format(path: Path, fmt: str = "auto") -> str:
    """The format of a judge's file: as chosen, or detected (a JSON lines file with ``labels`` is a judge's
    labels; otherwise the collection formats' detection)."""
    if fmt != "auto":
        if fmt not in JUDGE_FORMATS:
            raise InputError(
                str(path),
                N_("unknown format %(fmt)s; choose one of %(join)s"),
                params={"fmt": repr(fmt), "join": ", ".join(JUDGE_FORMATS)},
            )
        return fmt
    if path.is_file() and path.name.lower().endswith(".jsonl") and is_labels_file(path):
        return "labels"
    return detect_format(path)


def _pairwise_distribution(parsed: ParsedDialogue, extra: dict | None) -> dict | None:
    """A comparison's ``distribution`` names winners as the file does (a system, tie, both_bad): in ``a``/``b``."""
    given = ((extra or {}).get("fields") or {}).get("distribution")
    if given is None:
        return None
    slot = {c.system: s for c, s in zip(parsed.candidates, ("a", "b"))}
    if not isinstance(given, dict):
        return given  # the check says what is wrong with it
    return {slot.get(k, k): v for k, v in given.items()}


def _dbdc_distribution(extra: dict | None) -> dict | None:
    extra = extra or {}
    if "distribution" in extra:
        return extra["distribution"]
    if any(k in extra for k in DBDC_PROBABILITIES):
        return {label: extra.get(k, 0.0) for k, label in DBDC_PROBABILITIES.items()}
    return None


def _collection_labels(path: Path, fmt: str) -> Iterator[ParsedLabel]:
    """The labels of a file in a collection format, whose one annotator is the judge."""
    annotator: str | None = None
    for parsed in read_sources([path], fmt, language=""):
        if parsed.gold_counts:
            raise parsed.fail(
                N_("holds counts of several annotators; a judge's file labels each unit once"), "annotations"
            )
        for j in parsed.judgements:
            if annotator is None:
                annotator = j.annotator
            elif j.annotator != annotator:
                raise parsed.fail(
                    N_("names a second annotator, %(second)s, after %(first)s; a judge's file has one annotator"),
                    j.field,
                    params={"first": repr(annotator), "second": repr(j.annotator)},
                )
            if fmt == "pairwise":
                distribution = _pairwise_distribution(parsed, j.extra)
            elif fmt == "dbdc":
                distribution = _dbdc_distribution(j.extra)
            else:
                distribution = None
            yield ParsedLabel(parsed.file, parsed.external_id, j.criterion, j.unit, j.value, distribution, j.field)


def judge_file_labels(path: Path, fmt: str = "auto", *, display: str | None = None) -> tuple[str, list[ParsedLabel]]:
    """(the format read, the labels) of a judge's file; ``InputError`` naming file, record and field."""
    path = Path(path)
    if not path.exists():
        raise InputError(display or str(path), N_("does not exist"))
    fmt = judge_format(path, fmt)
    if fmt == "labels":
        labels = list(read_judge_labels(path, display=display or str(path)))
    else:
        labels = list(_collection_labels(path, fmt))
    if not labels:
        raise InputError(display or str(path), N_("holds no labels (a judge's file labels units of the project)"))
    return fmt, labels


def _checked_distribution(label: ParsedLabel, allowed: list[str]) -> dict[str, float]:
    """The label's distribution over ``allowed`` (values absent count 0), or ``InputError``."""
    field = f"{label.field}.distribution" if not label.field.endswith("distribution") else label.field
    given = label.distribution
    if not isinstance(given, dict) or not given:
        raise InputError(label.file, N_("expected an object {value: probability}"), record=label.record, field=field)
    out: dict[str, float] = {}
    for value, p in given.items():
        if str(value) not in allowed:
            raise InputError(
                label.file,
                N_("%(value)s is not a value of the scale (allowed: %(join)s)"),
                record=label.record,
                field=field,
                params={"value": repr(str(value)[:40]), "join": ", ".join(allowed)},
            )
        if isinstance(p, bool) or not isinstance(p, int | float) or not math.isfinite(p) or not 0 <= p <= 1:
            raise InputError(
                label.file,
                N_("probability %(value)s is not a number between 0 and 1"),
                record=label.record,
                field=f"{field}.{value}",
                params={"value": repr(p)[:40]},
            )
        out[str(value)] = float(p)
    total = sum(out.values())
    if abs(total - 1.0) > PROBABILITY_TOLERANCE:
        raise InputError(
            label.file,
            N_("the probabilities sum to %(total)s, not 1"),
            record=label.record,
            field=field,
            params={"total": round(total, 6)},
        )
    return {v: out.get(v, 0.0) for v in allowed}


def _argmax(distribution: dict[str, float]) -> str:
    """The most probable value; the first in scale order among equals."""
    return max(distribution, key=lambda v: distribution[v])


class _Checker:
    """Checks labels against a project: its dialogues, criteria, units and scales."""

    def __init__(self, project: Project):
        self.dialogues = dict(Dialogue.objects.filter(project=project).values_list("external_id", "pk"))
        self.criteria = {c.key: c for c in project.criteria.all()}
        self.shapes = project_shapes(project.pk)
        self.seen: set[tuple[int, int, int]] = set()

    def row(self, judge: Judge, label: ParsedLabel) -> JudgeLabel:
        def fail(message: str, field: str | None = None, **params) -> InputError:
            return InputError(label.file, message, record=label.record, field=field or label.field, params=params)

        dialogue_id = self.dialogues.get(label.record)
        if dialogue_id is None:
            raise fail(
                N_("no dialogue with this id in the project; import the dialogues before the judge's labels"), "id"
            )
        criterion = self.criteria.get(label.criterion)
        if criterion is None:
            raise fail(
                N_("unknown criterion %(key)s (the project's: %(join)s)"),
                key=repr(label.criterion[:40]),
                join=", ".join(self.criteria),
            )
        try:
            speaker = unit_speaker(criterion, label.unit, self.shapes.get(dialogue_id, DialogueShape((), ())))
            allowed = criterion.allowed_values(speaker if criterion.speakers else None)
            distribution = None if label.distribution is None else _checked_distribution(label, allowed)
            value = label.value if label.value is not None else _argmax(distribution)
            check_value(criterion, speaker, value)
        except UnitError as exc:
            raise fail(str(exc)) from None
        key = (criterion.pk, dialogue_id, label.unit)
        if key in self.seen:
            raise fail(N_("labels unit %(unit)s of %(key)s a second time"), unit=label.unit, key=criterion.key)
        self.seen.add(key)
        return JudgeLabel(
            judge=judge,
            dialogue_id=dialogue_id,
            criterion=criterion,
            unit=label.unit,
            value=value,
            distribution=distribution,
        )


def judge_name_check(*, project: Project, name: str, display: str = "judge") -> str:
    """The judge's name, stripped; ``InputError`` when empty, too long or taken."""
    name = (name or "").strip()
    if not name:
        raise InputError(display, N_("a judge needs a name"))
    if len(name) > NAME_MAX:
        raise InputError(display, N_("a judge's name has at most %(max)s characters"), params={"max": NAME_MAX})
    if Judge.objects.filter(project=project, name=name).exists():
        raise InputError(
            display,
            N_("the project already has a judge named %(name)s; remove it first or choose another name"),
            params={"name": repr(name)},
        )
    return name


@transaction.atomic
def judge_labels_save(
    *,
    project: Project,
    name: str,
    kind: str,
    labels: Iterable[ParsedLabel],
    source: dict,
    description: str = "",
    created_by=None,
) -> Judge:
    """A new judge of ``project`` with ``labels``, all checked first: one wrong label writes nothing."""
    name = judge_name_check(project=project, name=name, display=(source.get("files") or ["judge"])[0])
    judge = Judge.objects.create(
        project=project, name=name, kind=kind, source=source, description=description, created_by=created_by
    )
    checker = _Checker(project)
    rows = [checker.row(judge, label) for label in labels]
    JudgeLabel.objects.bulk_create(rows, batch_size=5000)
    return judge


def judge_import(
    *,
    project: Project,
    path: Path,
    name: str,
    fmt: str = "auto",
    description: str = "",
    created_by=None,
    display: str | None = None,
) -> Judge:
    """Import a judge's labels from ``path`` (``fmt``: one of ``JUDGE_FORMATS``) as a new judge ``name``."""
    display = display or Path(path).name
    judge_name_check(project=project, name=name, display=display)  # before reading a large file
    read, labels = judge_file_labels(Path(path), fmt, display=display)
    return judge_labels_save(
        project=project,
        name=name,
        kind=JudgeKind.IMPORTED,
        labels=labels,
        source={"files": [display], "format": read},
        description=description,
        created_by=created_by,
    )


def judge_import_upload(
    *, project: Project, uploaded, name: str, fmt: str = "auto", description: str = "", created_by=None
) -> Judge:
    """``judge_import`` of an uploaded file, kept under its own name in a temporary folder (messages name it,
    not the temporary path). A zip of DBDC logs is read like a folder."""
    file_name = re.sub(r"[^\w.+-]", "_", Path(str(uploaded.name)).name)[-100:].lstrip(".") or "upload"
    upload_check_size(name=file_name, size=uploaded.size)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / file_name
        with open(path, "wb") as out:
            for chunk in uploaded.chunks():
                out.write(chunk)
        try:
            return judge_import(
                project=project,
                path=path,
                name=name,
                fmt=fmt,
                description=description,
                created_by=created_by,
                display=file_name,
            )
        except InputError as exc:
            exc.file = exc.file.replace(f"{tmp}/", "")
            raise


def judge_remove(*, judge: Judge) -> None:
    """Remove a judge and its labels."""
    judge.delete()
