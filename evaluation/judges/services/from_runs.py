"""A submitted run registered as a judge: its predicted distributions become the judge's labels.

The run's stored files are read by the run format's own reader (``scoring.run_files``), against every
dialogue of the project rather than only those with gold data (a judge labels what it was given): an
STC-3 / DialEval submission's quality estimates (unit 0) and nugget estimates (per turn), a DBDC run's
distribution per system turn (by the source's turn index, mapped back to the post). Each unit's label
is the distribution's most probable value, and the distribution is kept.
"""

from __future__ import annotations

from annotator.judges.labels_file import ParsedLabel
from annotator.judges.services.labels import judge_labels_save, judge_name_check
from annotator.models import Dialogue, JudgeKind, Post, Project, Unit
from annotator.selectors.structure import project_shapes
from annotator.units import required_units
from evaluation.models import Run, RunKind
from evaluation.runs.services.scoring import zip_files
from scoring.errors import N_, InputError
from scoring.run_files import DBDC_LABELS, read_dbdc_run, read_stc3_run


def _distribution(values, p) -> dict[str, float]:
    return {v: float(x) for v, x in zip(values, p)}


def _stc3_labels(project: Project, files: list[tuple[str, bytes]]) -> list[ParsedLabel]:
    if len(files) != 1:
        raise InputError("run", N_("an STC-3 run is one JSON file, got %(len)s"), params={"len": len(files)})
    name, raw = files[0]
    criteria = list(project.criteria.all())
    quality = [c for c in criteria if c.unit == Unit.DIALOGUE]
    nugget = next((c for c in criteria if c.unit == Unit.TURN), None)
    external = dict(Dialogue.objects.filter(project=project).values_list("pk", "external_id"))
    shapes = project_shapes(project.pk)
    speakers_of = {}
    for dialogue_id, shape in shapes.items():
        blocks = {}
        for speaker, block in zip(shape.speakers, shape.blocks):
            blocks.setdefault(block, speaker)
        speakers_of[external[dialogue_id]] = [blocks[b] for b in sorted(blocks)]
    scale = quality[0].allowed_values() if quality else ["-2", "-1", "0", "1", "2"]
    labels_of = {s: nugget.allowed_values(s) if nugget else [] for s in ("customer", "helpdesk")}
    run = read_stc3_run(
        raw,
        source=name,
        gold_turns=speakers_of,
        quality_scale=scale,
        quality_keys=[c.key for c in quality],
        customer_labels=labels_of["customer"],
        helpdesk_labels=labels_of["helpdesk"],
    )
    labels = []
    for key, (positions, estimates) in run.quality.items():
        for d, p in zip(positions.tolist(), estimates):
            dialogue = run.dialogues[d]
            labels.append(ParsedLabel(name, dialogue, key, 0, None, _distribution(scale, p), f"quality.{key}"))
    if nugget is not None:
        for speaker, rows in (("customer", run.customer), ("helpdesk", run.helpdesk)):
            for d, t, p in zip(rows.dialogue.tolist(), rows.turn.tolist(), rows.p):
                labels.append(
                    ParsedLabel(
                        name,
                        run.dialogues[d],
                        nugget.key,
                        t,
                        None,
                        _distribution(labels_of[speaker], p),
                        f"nugget[{t}]",
                    )
                )
    return labels


def _dbdc_labels(project: Project, files: list[tuple[str, bytes]]) -> list[ParsedLabel]:
    criterion = next(c for c in project.criteria.all() if c.unit == Unit.SYSTEM_TURN)
    external = dict(Dialogue.objects.filter(project=project).values_list("pk", "external_id"))
    shapes = project_shapes(project.pk)
    index_of: dict[tuple[int, int], int] = {}
    dialogue_turns: dict[str, list[int]] = {d: [] for d in external.values()}
    for dialogue_id, position, source_index in (
        Post.objects.filter(dialogue__project=project)
        .order_by("dialogue_id", "position")
        .values_list("dialogue_id", "position", "source_turn_index")
    ):
        index = position if source_index is None else source_index
        index_of[(dialogue_id, position)] = index
        dialogue_turns[external[dialogue_id]].append(index)
    asked: dict[str, list[int]] = {}
    position_of: dict[tuple[str, int], int] = {}
    for dialogue_id, shape in shapes.items():
        did = external[dialogue_id]
        for position in required_units(criterion, shape):
            asked.setdefault(did, []).append(index_of[(dialogue_id, position)])
            position_of[(did, index_of[(dialogue_id, position)])] = position
    run = read_dbdc_run(files, gold_turns=asked, dialogue_turns=dialogue_turns)
    return [
        ParsedLabel(
            f"{d}.labels.json", d, criterion.key, position_of[(d, t)], None, _distribution(DBDC_LABELS, p), f"turn {t}"
        )
        for d, t, p in zip(run.dialogue, run.turn.tolist(), run.p)
    ]


def judge_from_run(*, run: Run, name: str, description: str = "", created_by=None):
    """Register ``run`` as a new judge ``name`` of its project (``InputError`` when its files do not read)."""
    project = run.project
    judge_name_check(project=project, name=name, display=run.name)
    if not run.source:
        raise InputError(run.name, N_("the run's files were not kept; upload it again to register it as a judge"))
    files = zip_files(bytes(run.source))
    if run.kind == RunKind.STC3:
        labels = _stc3_labels(project, files)
    elif run.kind == RunKind.DBDC:
        labels = _dbdc_labels(project, files)
    else:
        raise InputError(run.name, N_("only STC-3 / DialEval and DBDC runs carry labels a judge can give"))
    return judge_labels_save(
        project=project,
        name=name,
        kind=JudgeKind.RUN,
        labels=labels,
        source={"run": run.pk, "run_name": run.name, "format": run.kind},
        description=description,
        created_by=created_by,
    )
