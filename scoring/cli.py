"""Scoring a run against gold files without the platform: ``python -m scoring stc3|dbdc RUN GOLD``.

The drop-in for DialEval-1's ``eval.py RUN GOLD [--alpha A] [--strict]``: the run is read and checked by the
platform's reader (``scoring.run_files.read_stc3_run``), the gold counts come from the official STC-3 file
(``scoring.run_files.stc3_gold``), and the scores are those of ``manage.py score_run`` (``scoring.runs``), printed
as text or, with ``--json``, as the same JSON. Bad input exits with status 2 and a message on standard error that
names the file, the dialogue and the field; nothing is printed on standard output then.

The process stays light: no Django, no scipy, the cyclic garbage collector off (the parsed files are
hundreds of thousands of acyclic objects, ``scoring.memory``), so that scoring STC-3 Chinese takes a fraction of a
second where ``eval.py`` takes seconds.

``python -m scoring dbdc LABELS LOGS [-t T]`` does the same for DBDC: the labels files read by
``scoring.run_files.read_dbdc_run`` against the logs' annotated system turns (``read_dbdc_gold``), scored by
``scoring.runs.dbdc_run_scores`` as ``score_run`` scores a breakdown project's runs.
"""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path

from scoring.errors import InputError
from scoring.file_cache import cache_folder, cached
from scoring.json_values import json_finite

EXIT_BAD_INPUT = 2  # as argparse's for a bad command line


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m scoring",
        description="Score a run against gold files, with the platform's readers and measures but without the "
        "platform (no Django, database or project). Bad input exits with status 2, naming the file, the dialogue "
        "and the field.",
    )
    formats = parser.add_subparsers(dest="format", required=True, metavar="FORMAT")
    stc3 = formats.add_parser(
        "stc3",
        help="an STC-3/DialEval submission against the official gold file (as DialEval-1's eval.py)",
        description="Score an STC-3/DialEval submission (dialogue quality and nugget detection) against the "
        "gold of an STC-3 file with annotations (e.g. train_data_cn.json).",
    )
    stc3.add_argument("run", type=Path, help="the submission: a JSON list of dialogues with estimates")
    stc3.add_argument("gold", type=Path, help="the STC-3 file with the annotators' labels")
    stc3.add_argument("--alpha", type=_alpha, default=0.5, help="weight of customer turns in nugget scores (0.5)")
    stc3.add_argument("--strict", action="store_true", help="every gold dialogue must be in the run")
    stc3.add_argument("--json", action="store_true", help="print the scores as manage.py score_run --json does")
    stc3.add_argument(
        "--no-cache",
        action="store_true",
        help="read the gold file's counts from the file itself, not from what an earlier run kept in the cache "
        "folder ($XDG_CACHE_HOME or ~/.cache, dialeval-studio/) until the file changes",
    )
    dbdc = formats.add_parser(
        "dbdc",
        help="DBDC <dialogue-id>.labels.json files against DBDC *.log.json files (as the DBDC3 evaluation script)",
        description="Score DBDC breakdown labels (a labels file, a folder or a zip of them) against the annotated "
        "system turns of DBDC logs (a *.log.json file, a folder or a zip of them): the 22 metrics of Tsunomori et "
        "al. (2020), Table 1, with the DBDC3 evaluation script's accuracy, precision, recall, F-measures, JS "
        "divergences and mean squared errors among them.",
    )
    dbdc.add_argument("run", type=Path, help="the labels: a .labels.json file, a folder or a zip")
    dbdc.add_argument("gold", type=Path, help="the annotated logs: a .log.json file, a folder or a zip")
    dbdc.add_argument(
        "-t",
        "--threshold",
        type=_share,
        default=0.0,
        help="the DBDC3 script's -t: a turn's gold label is its most frequent one if that label's share of the "
        "annotators is at least T, otherwise NB (default 0: the plain majority)",
    )
    dbdc.add_argument("--strict", action="store_true", help="every annotated dialogue must have a labels file")
    dbdc.add_argument("--json", action="store_true", help="print the scores as manage.py score_run --json does")
    return parser


def _share(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {text}")
    return value


def _alpha(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {text}")
    return value


def _unreadable(path: Path, exc: OSError) -> InputError:
    return InputError(str(path), f"cannot be read ({exc.strerror or exc})")


def stc3_scores(
    run_path: Path, gold_path: Path, *, alpha: float = 0.5, strict: bool = False, cache: Path | None = None
) -> dict:
    """The scores of the run at ``run_path`` against the STC-3 file at ``gold_path`` (``manage.py score_run``'s).

    ``cache``: the folder where the gold file's counts are kept between calls (``scoring.file_cache``); None reads
    the gold file every time.
    """
    from scoring.run_files.stc3 import read_stc3_run
    from scoring.run_files.stc3_gold import NUGGET_LABELS, QUALITY_SCALE, STC3Gold, read_stc3_gold
    from scoring.runs import stc3_run_scores

    def read_gold(raw: bytes) -> STC3Gold:
        return read_stc3_gold(raw, source=str(gold_path))

    try:
        gold = cached(gold_path, "stc3-gold", read_gold, STC3Gold.to_bytes, STC3Gold.from_bytes, folder=cache)
    except OSError as exc:
        raise _unreadable(gold_path, exc) from None
    try:
        raw = run_path.read_bytes()
    except OSError as exc:
        raise _unreadable(run_path, exc) from None
    run = read_stc3_run(
        raw,
        source=str(run_path),
        gold_turns=gold.speakers,
        quality_scale=QUALITY_SCALE,
        quality_keys=list(gold.quality),
        customer_labels=NUGGET_LABELS["customer"],
        helpdesk_labels=NUGGET_LABELS["helpdesk"],
        strict=strict,
    )
    nugget_gold = (
        gold.nugget_counts(run.dialogues, run.customer, "customer"),
        gold.nugget_counts(run.dialogues, run.helpdesk, "helpdesk"),
    )
    gold_dialogues = set(gold.speakers).union(*(counts.keys() for counts in gold.quality.values()))
    scores, _per_dialogue = stc3_run_scores(
        run,
        source=str(run_path),
        quality_gold=gold.quality,
        nugget_gold=nugget_gold,
        alpha=alpha,
        gold_dialogues=gold_dialogues,
    )
    return scores


def dbdc_scores(run_path: Path, gold_path: Path, *, threshold: float = 0.0, strict: bool = False) -> dict:
    """The scores of the DBDC labels at ``run_path`` against the logs at ``gold_path`` (``manage.py score_run``'s).

    Every ``.json`` file of the run (a file, a folder or a zip, as ``score_run`` reads it) and every ``.log.json``
    file of the gold.
    """
    from scoring.files import walk_path
    from scoring.run_files import read_dbdc_gold, read_dbdc_run
    from scoring.runs import dbdc_run_scores

    try:
        logs = [(f.display, f.content) for f in walk_path(gold_path) if f.relative.endswith(".log.json")]
        labels = [(f.display, f.content) for f in walk_path(run_path) if f.relative.endswith(".json")]
    except OSError as exc:
        raise _unreadable(Path(exc.filename or gold_path), exc) from None
    if not logs:
        raise InputError(str(gold_path), "contains no .log.json files")
    if not labels:
        raise InputError(str(run_path), "contains no JSON files")
    gold = read_dbdc_gold(logs)
    run = read_dbdc_run(labels, gold_turns=gold.turns, dialogue_turns=gold.dialogue_turns, strict=strict)
    scores, _per_dialogue = dbdc_run_scores(run, gold, threshold)
    return scores


def text_lines(scores: dict, title: str) -> list[str]:
    """The scores as ``manage.py score_run`` prints them: a title, then one line per metric.

    >>> text_lines({"n_dialogues": 2, "quality": {"A": {"rsnod": 0.25}}, "notes": ["one run file"]}, "run x")
    ['run x', '  note: one run file', '  quality.A: rsnod 0.2500']
    """
    lines = [title] + [f"  note: {note}" for note in scores.get("notes", [])]
    coverage = scores.get("coverage")
    if coverage and not coverage["complete"]:
        lines.append(
            f"  note: scored on {coverage['dialogues']} of the gold's {coverage['gold_dialogues']} dialogues"
            + (f" (missing: {', '.join(coverage['missing'][:5])}{', ...' if coverage['n_missing'] > 5 else ''})"
               if coverage["n_missing"] else f", {coverage.get('turns')} of its {coverage.get('gold_turns')} turns")
        )  # fmt: skip
    for group, metrics in scores.items():
        if not isinstance(metrics, dict) or group in ("per_assignment", "coverage"):
            continue
        for metric, value in metrics.items():
            if isinstance(value, dict):
                lines.append(f"  {group}.{metric}: " + ", ".join(f"{k} {v:.4f}" for k, v in value.items()))
            else:
                lines.append(f"  {group}.{metric}: {value:.4f}")
    return lines


def main(argv: list[str] | None = None) -> int:
    gc.disable()  # a short process building many acyclic objects (scoring.memory)
    args = _parser().parse_args(argv)
    try:
        if args.format == "dbdc":
            scores = dbdc_scores(args.run, args.gold, threshold=args.threshold, strict=args.strict)
        else:
            cache = None if args.no_cache else cache_folder()
            scores = stc3_scores(args.run, args.gold, alpha=args.alpha, strict=args.strict, cache=cache)
    except InputError as exc:
        print(f"python -m scoring: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.json:
        import json

        print(json.dumps(json_finite(scores), indent=1))
    else:
        turns = f", {scores['n_turns']} turns" if "n_turns" in scores else ""
        title = f"{args.run} against {args.gold}: {scores['n_dialogues']} dialogues{turns}"
        print("\n".join(text_lines(scores, title)))
    return 0
