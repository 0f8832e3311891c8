"""Scoring a run file against a project's gold data and saving the scores with the run."""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

import numpy as np
from django.db import transaction
from django.utils import timezone

from annotator.models import AssignmentStatus, Post, Project, Reordering, Unit
from scoring.breakdown import TABLE1, classification_metrics
from scoring.models import Run, RunKind, RunStatus
from scoring.services.compare import comparisons_refresh
from scoring.services.payloads import json_finite
from scoring.services.schedule import safe_enqueue
from scoring.ordering import coherence_b23, kendall_tau, ngram_preservation
from scoring.run_files import RunFileError, read_dbdc_run, read_stc3_run
from scoring.runs import breakdown_distribution_metrics, neglog2, nugget_dialogue_scores, pool_breakdown, quality_scores
from scoring.services.gold import criteria_by_unit, dialogue_counts, external_ids, turn_gold

BREAKDOWN_PRESETS = {"dbdc"}
REORDERING_PRESETS = {"coherence"}
BREAKDOWN_METRICS = TABLE1 + ["Precision(B)", "Recall(B)", "Precision(PB+B)", "Recall(PB+B)"]


def run_files(path: Path) -> list[tuple[str, bytes]]:
    """(name, bytes) of the run's files: one file, every file of a folder, or every member of a zip."""
    path = Path(path)
    if path.is_dir():
        return [(str(p), p.read_bytes()) for p in sorted(path.rglob("*.json")) if p.is_file()]
    return expand_zips([(str(path), path.read_bytes())])


def expand_zips(files: list[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    """Replace every zip among ``files`` by its JSON members."""
    out = []
    for name, raw in files:
        if zipfile.is_zipfile(io.BytesIO(raw)):
            with zipfile.ZipFile(io.BytesIO(raw)) as archive:
                out += [
                    (f"{name}:{n}", archive.read(n))
                    for n in sorted(archive.namelist())
                    if n.endswith(".json") and not n.startswith("__MACOSX")
                ]
        else:
            out.append((name, raw))
    return out


def _mean(values: np.ndarray) -> float:
    return float(np.nanmean(values)) if len(values) else float("nan")


def score_stc3(project: Project, files: list[tuple[str, bytes]], *, alpha: float, strict: bool):
    if len(files) != 1:
        raise RunFileError("run", f"an STC-3 run is one JSON file, got {len(files)}")
    name, raw = files[0]
    external = external_ids(project)
    by_unit = criteria_by_unit(project)
    quality = {d.criterion.key: d for d in by_unit.get(Unit.DIALOGUE, [])}
    nugget = by_unit.get(Unit.TURN, [None])[0]
    gold_quality = {k: dialogue_counts(d, external) for k, d in quality.items()}
    turns = turn_gold(project, nugget, external) if nugget else None
    gold_ids = set().union(*(g.keys() for g in gold_quality.values())) if gold_quality else set()
    if turns:
        gold_ids |= {d for d, _u in turns.counts}
    gold_turns = {d: turns.speakers[d] for d in gold_ids} if turns else {d: [] for d in gold_ids}
    scale = next(iter(quality.values())).values if quality else ["-2", "-1", "0", "1", "2"]
    run = read_stc3_run(
        raw,
        source=name,
        gold_turns=gold_turns,
        quality_scale=scale,
        quality_keys=list(quality),
        customer_labels=[nugget.values[i] for i in nugget.scale("customer")] if nugget else [],
        helpdesk_labels=[nugget.values[i] for i in nugget.scale("helpdesk")] if nugget else [],
        strict=strict,
    )
    scores: dict = {"quality": {}, "n_dialogues": len(run.dialogues)}
    per_dialogue: dict[str, dict] = {d: {} for d in run.dialogues}
    for key, (positions, estimates) in run.quality.items():
        if len(positions) == 0:
            continue
        ids = [run.dialogues[i] for i in positions]
        missing = [d for d in ids if d not in gold_quality[key]]
        if missing:
            raise RunFileError(name, f"has no gold {key} judgements", dialogue=missing[0], field=f"quality.{key}")
        gold = np.array([gold_quality[key][d] for d in ids])
        values = quality_scores(estimates, gold)
        mean_rsnod, mean_nmd = _mean(values["rsnod"]), _mean(values["nmd"])
        scores["quality"][key] = {
            "rsnod": mean_rsnod,
            "nmd": mean_nmd,
            "rsnod_neglog2": float(neglog2(mean_rsnod)),
            "nmd_neglog2": float(neglog2(mean_nmd)),
        }
        for d, r, n in zip(ids, values["rsnod"].tolist(), values["nmd"].tolist()):
            per_dialogue[d][f"{key}.rsnod"], per_dialogue[d][f"{key}.nmd"] = r, n
    if nugget and (len(run.customer.turn) or len(run.helpdesk.turn)):

        def gold_rows(rows):
            return np.array(
                [turns.counts.get((run.dialogues[d], t)) for d, t in zip(rows.dialogue, rows.turn)], dtype=float
            ).reshape(len(rows.turn), -1)

        values = nugget_dialogue_scores(
            run.customer.p,
            gold_rows(run.customer),
            run.customer.dialogue,
            run.helpdesk.p,
            gold_rows(run.helpdesk),
            run.helpdesk.dialogue,
            len(run.dialogues),
            alpha,
        )
        scored = ~np.isnan(values["rnss"])
        mean_rnss, mean_jsd = _mean(values["rnss"][scored]), _mean(values["jsd"][scored])
        scores["nugget"] = {
            "rnss": mean_rnss,
            "jsd": mean_jsd,
            "rnss_neglog2": float(neglog2(mean_rnss)),
            "jsd_neglog2": float(neglog2(mean_jsd)),
        }
        for i in np.nonzero(scored)[0]:
            per_dialogue[run.dialogues[i]].update(
                nugget_rnss=float(values["rnss"][i]), nugget_jsd=float(values["jsd"][i])
            )
    return scores, per_dialogue


def score_dbdc(project: Project, files: list[tuple[str, bytes]], *, strict: bool, threshold: float):
    external = external_ids(project)
    data = criteria_by_unit(project)[Unit.SYSTEM_TURN][0]
    counts = data.counts()
    turn_index = {
        (external[d], p): (p if t is None else t)
        for d, p, t in Post.objects.filter(dialogue__project=project).values_list(
            "dialogue_id", "position", "source_turn_index"
        )
    }
    gold: dict[tuple[str, int], np.ndarray] = {}
    gold_turns: dict[str, list[int]] = {}
    for u, (d, position) in enumerate(zip(data.unit_dialogue, data.unit_index)):
        did = external[int(d)]
        index = turn_index[(did, int(position))]
        gold[(did, index)] = counts[u]
        gold_turns.setdefault(did, []).append(index)
    run = read_dbdc_run(files, gold_turns=gold_turns, strict=strict)
    gold_counts = np.array([gold[(d, t)] for d, t in zip(run.dialogue, run.turn.tolist())], dtype=float)
    per_turn = breakdown_distribution_metrics(run.p, gold_counts)

    def all_metrics(rows=None) -> dict[str, float]:
        merged = classification_metrics(run.label, gold_counts, threshold, rows) | pool_breakdown(per_turn, rows)
        return {name: merged[name] for name in BREAKDOWN_METRICS}

    scores = {
        "breakdown": all_metrics(),
        "n_dialogues": len(set(run.dialogue)),
        "n_turns": len(run.dialogue),
        "threshold": threshold,
    }
    rows_of: dict[str, list[int]] = {}
    for row, did in enumerate(run.dialogue):
        rows_of.setdefault(did, []).append(row)
    per_dialogue = {did: all_metrics(np.array(rows)) for did, rows in rows_of.items()}
    return scores, per_dialogue


def score_reorderings(project: Project) -> tuple[dict, dict]:
    """tau, b2, b3 and (b2 + b3)/2 of every submitted reordering, per assignment and per dialogue."""
    rows = list(
        Reordering.objects.filter(
            assignment__dialogue__project=project, assignment__status=AssignmentStatus.SUBMITTED
        ).values_list(
            "assignment_id", "assignment__dialogue__external_id", "assignment__annotator__username", "submitted_order"
        )
    )
    if not rows:
        raise RunFileError(project.slug, "has no submitted reorderings to score")
    per_assignment, per_dialogue_lists = {}, {}
    for assignment_id, dialogue, annotator, order in rows:
        order = np.asarray(order, dtype=np.int64)
        values = {
            "tau": kendall_tau(order),
            "b2": ngram_preservation(order, 2),
            "b3": ngram_preservation(order, 3) if len(order) >= 3 else float("nan"),
            "b23": coherence_b23(order),
        }
        per_assignment[str(assignment_id)] = {"dialogue": dialogue, "annotator": annotator, **values}
        per_dialogue_lists.setdefault(dialogue, []).append(values)
    per_dialogue = {
        d: {k: float(np.mean([v[k] for v in vs])) for k in ("tau", "b2", "b3", "b23")}
        for d, vs in per_dialogue_lists.items()
    }
    scores = {
        "reordering": {k: float(np.mean([v[k] for v in per_assignment.values()])) for k in ("tau", "b2", "b3", "b23")},
        "n_dialogues": len(per_dialogue),
        "n_reorderings": len(per_assignment),
        "per_assignment": per_assignment,
    }
    return scores, per_dialogue


def run_score(
    *,
    project: Project,
    path: Path | None = None,
    files: list[tuple[str, bytes]] | None = None,
    name: str | None = None,
    alpha: float = 0.5,
    strict: bool = False,
    threshold: float = 0.0,
) -> Run:
    """Read, validate and score a run (a path: file, folder or zip; or ``files`` as (name, bytes)) and save it.

    For coherence projects neither is given and the annotators' reorderings are scored.
    Raises ``RunFileError`` (naming file, dialogue and field) and saves nothing on bad input.
    Scoring the same name again replaces the earlier scores.
    """
    if project.preset in REORDERING_PRESETS:
        scores, per_dialogue = score_reorderings(project)
        return _save(project, name or "reorderings", RunKind.REORDERING, "", {}, scores, per_dialogue)
    if files is None:
        if path is None:
            raise RunFileError(project.slug, "needs a run file (a path)")
        files = run_files(path)
    else:
        files = expand_zips(files)
    source = str(path) if path is not None else ", ".join(n for n, _r in files)[:500]
    if not files:
        raise RunFileError(source or "run", "contains no JSON files")
    if project.preset in BREAKDOWN_PRESETS:
        kind, options = RunKind.DBDC, {"strict": strict, "threshold": threshold}
        scores, per_dialogue = score_dbdc(project, files, strict=strict, threshold=threshold)
    else:
        kind, options = RunKind.STC3, {"alpha": alpha, "strict": strict}
        scores, per_dialogue = score_stc3(project, files, alpha=alpha, strict=strict)
    default_name = Path(path).stem if path is not None else Path(files[0][0].split(":")[0]).stem
    return _save(project, name or default_name, kind, source, options, scores, per_dialogue)


def _save(project: Project, name: str, kind: str, source: str, options: dict, scores: dict, per_dialogue: dict) -> Run:
    with transaction.atomic():
        run, _ = Run.objects.update_or_create(
            project=project,
            name=name,
            defaults={
                "kind": kind,
                "source_name": source,
                "options": options,
                "scores": json_finite(scores),
                "per_dialogue": json_finite(per_dialogue),
                "scored_at": timezone.now(),
                "status": RunStatus.SCORED,
                "error": "",
                "source": None,
            },
        )
    return run


def run_upload(*, project: Project, name: str, files: list[tuple[str, bytes]], options: dict | None = None) -> Run:
    """Keep an uploaded run (as a zip of its files) and queue it for scoring by a worker."""
    if not name.strip():
        raise RunFileError("run", "needs a name", field="name")
    if not files:
        raise RunFileError(name, "has no files", field="files")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        used: set[str] = set()
        for i, (filename, raw) in enumerate(files):
            member = Path(filename).name or "run.json"
            if member in used:  # keep every file even when two share a name
                member = f"{i:04d}-{member}"
            used.add(member)
            archive.writestr(member, raw)
    kind = RunKind.DBDC if project.preset in BREAKDOWN_PRESETS else RunKind.STC3
    with transaction.atomic():
        run, _ = Run.objects.update_or_create(
            project=project,
            name=name,
            defaults={
                "kind": kind,
                "status": RunStatus.PENDING,
                "error": "",
                "source": buffer.getvalue(),
                "source_name": ", ".join(Path(f).name for f, _r in files)[:500],
                "options": options or {},
                "scores": {},
                "per_dialogue": {},
                "scored_at": None,
            },
        )
        transaction.on_commit(lambda: _enqueue_scoring(run.pk))
    return run


def _enqueue_scoring(run_id: int) -> None:
    from scoring.tasks import score_uploaded_run

    safe_enqueue(score_uploaded_run, run_id)


def run_score_stored(*, run_id: int) -> Run:
    """Score an uploaded run (the worker's side). Safe to run twice: a scored run is left as it is."""
    run = Run.objects.select_related("project").get(pk=run_id)
    if run.status != RunStatus.PENDING or run.source is None:
        return run
    with zipfile.ZipFile(io.BytesIO(bytes(run.source))) as archive:
        files = [(n, archive.read(n)) for n in sorted(archive.namelist())]
    options = run.options or {}
    try:
        scored = run_score(
            project=run.project,
            files=files,
            name=run.name,
            alpha=options.get("alpha", 0.5),
            strict=options.get("strict", False),
            threshold=options.get("threshold", 0.0),
        )
    except RunFileError as exc:
        Run.objects.filter(pk=run.pk).update(status=RunStatus.FAILED, error=str(exc), source=None)
        run.refresh_from_db()
        return run
    comparisons_refresh(project=run.project)
    return scored


def per_dialogue_csv(run: Run) -> str:
    """One row per dialogue, one column per metric, for download."""
    metrics = sorted({m for values in run.per_dialogue.values() for m in values if m not in ("dialogue", "annotator")})
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["dialogue"] + metrics)
    for dialogue, values in run.per_dialogue.items():
        writer.writerow([dialogue] + [values.get(m, "") for m in metrics])
    return buffer.getvalue()
