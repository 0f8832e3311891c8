"""Scoring a run file against a project's gold data and saving the scores with the run."""
from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
from django.db import transaction
from django.utils import timezone

from annotator.models import Post, Project, Unit
from scoring.models import Run, RunKind
from scoring.run_files import RunFileError, read_dbdc_run, read_stc3_run
from scoring.runs import breakdown_distribution_metrics, neglog2, nugget_dialogue_scores, pool_breakdown, quality_scores
from scoring.services.gold import criteria_by_unit, dialogue_counts, external_ids, turn_gold

BREAKDOWN_PRESETS = {"dbdc"}


def run_files(path: Path) -> list[tuple[str, bytes]]:
    """(name, bytes) of the run's files: one file, every file of a folder, or every member of a zip."""
    path = Path(path)
    if path.is_dir():
        return [(str(p), p.read_bytes()) for p in sorted(path.rglob("*.json")) if p.is_file()]
    raw = path.read_bytes()
    if zipfile.is_zipfile(io.BytesIO(raw)):
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            return [(f"{path}:{n}", archive.read(n)) for n in sorted(archive.namelist())
                    if n.endswith(".json") and not n.startswith("__MACOSX")]
    return [(str(path), raw)]


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
    run = read_stc3_run(raw, source=name, gold_turns=gold_turns, quality_scale=scale, quality_keys=list(quality),
                        customer_labels=[nugget.values[i] for i in nugget.scale("customer")] if nugget else [],
                        helpdesk_labels=[nugget.values[i] for i in nugget.scale("helpdesk")] if nugget else [],
                        strict=strict)
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
        scores["quality"][key] = {"rsnod": mean_rsnod, "nmd": mean_nmd, "rsnod_neglog2": float(neglog2(mean_rsnod)),
                                  "nmd_neglog2": float(neglog2(mean_nmd))}
        for d, r, n in zip(ids, values["rsnod"].tolist(), values["nmd"].tolist()):
            per_dialogue[d][f"{key}.rsnod"], per_dialogue[d][f"{key}.nmd"] = r, n
    if nugget and (len(run.customer.turn) or len(run.helpdesk.turn)):
        def gold_rows(rows):
            return np.array([turns.counts.get((run.dialogues[d], t)) for d, t in zip(rows.dialogue, rows.turn)],
                            dtype=float).reshape(len(rows.turn), -1)

        values = nugget_dialogue_scores(run.customer.p, gold_rows(run.customer), run.customer.dialogue,
                                        run.helpdesk.p, gold_rows(run.helpdesk), run.helpdesk.dialogue,
                                        len(run.dialogues), alpha)
        scored = ~np.isnan(values["rnss"])
        mean_rnss, mean_jsd = _mean(values["rnss"][scored]), _mean(values["jsd"][scored])
        scores["nugget"] = {"rnss": mean_rnss, "jsd": mean_jsd, "rnss_neglog2": float(neglog2(mean_rnss)),
                            "jsd_neglog2": float(neglog2(mean_jsd))}
        for i in np.nonzero(scored)[0]:
            per_dialogue[run.dialogues[i]].update(nugget_rnss=float(values["rnss"][i]),
                                                  nugget_jsd=float(values["jsd"][i]))
    return scores, per_dialogue


def score_dbdc(project: Project, files: list[tuple[str, bytes]], *, strict: bool):
    external = external_ids(project)
    data = criteria_by_unit(project)[Unit.SYSTEM_TURN][0]
    counts = data.counts()
    turn_index = {(external[d], p): (p if t is None else t) for d, p, t in
                  Post.objects.filter(dialogue__project=project).values_list("dialogue_id", "position",
                                                                             "source_turn_index")}
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
    scores = {"breakdown": pool_breakdown(per_turn), "n_dialogues": len(set(run.dialogue)),
              "n_turns": len(run.dialogue)}
    dialogue_array = np.array(run.dialogue, dtype=object)
    per_dialogue = {d: pool_breakdown(per_turn, dialogue_array == d) for d in dict.fromkeys(run.dialogue)}
    return scores, per_dialogue


def run_score(*, project: Project, path: Path, name: str | None = None, alpha: float = 0.5,
              strict: bool = False) -> Run:
    """Read, validate and score a run file (or folder/zip) and save it with its scores.

    Raises ``RunFileError`` (naming file, dialogue and field) and saves nothing on bad input.
    Scoring the same name again replaces the earlier scores.
    """
    files = run_files(path)
    if not files:
        raise RunFileError(str(path), "contains no JSON files")
    if project.preset in BREAKDOWN_PRESETS:
        kind = RunKind.DBDC
        scores, per_dialogue = score_dbdc(project, files, strict=strict)
    else:
        kind = RunKind.STC3
        scores, per_dialogue = score_stc3(project, files, alpha=alpha, strict=strict)
    with transaction.atomic():
        run, _ = Run.objects.update_or_create(
            project=project, name=name or Path(path).stem,
            defaults={"kind": kind, "source_name": str(path), "options": {"alpha": alpha, "strict": strict},
                      "scores": scores, "per_dialogue": per_dialogue, "scored_at": timezone.now()},
        )
    return run
