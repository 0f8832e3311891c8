"""``manage.py score_run`` as a whole process on STC-3 Chinese, beside the official DialEval-1 script.

Imports the STC-3 Chinese training set (3,700 dialogues, 503,500 judgements) into a throwaway
PostgreSQL, writes a seeded random submission, then times complete processes (interpreter start,
Django set-up, reading the gold, validating and scoring the run, saving it):
- ``manage.py check`` beside a bare ``python -c "import django"``, before the import (start-up: the issue's target
  is at most 0.4 s between the two);
- ``manage.py score_run`` the first time (the gold cache is built from the judgements) and then
  warm (the cache is read: the judgements are unchanged);
- ``python -m scoring stc3 RUN GOLD`` (``scoring.cli``, the platform-free scorer of the same two files): once with
  the gold counts kept in its cache folder (a throwaway one here; the first call builds it) and once with
  ``--no-cache`` (the gold file parsed and counted in the process);
- with ``--official PATH``, the DialEval-1 ``eval.py`` on the same run and gold file, the programs
  alternating (paired runs), and the ratios of the medians (target >= 30x).

    .venv/bin/python bench/score_run_process.py [--official PATH] [--repeat 5] [--profile FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _setup import ROOT, django_on_postgres, extract

WALL: dict[str, list[float]] = {}  # per program, the wall seconds of each timed process
CPU: dict[str, list[float]] = {}  # and its CPU seconds (less sensitive to a busy machine)


def timed(name: str, command: list[str], env: dict[str, str]) -> str:
    """Run ``command`` to the end, record its wall and CPU seconds under ``name``; its standard output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    WALL.setdefault(name, []).append(time.perf_counter() - started)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.setdefault(name, []).append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout


def wall(name: str) -> float:
    return statistics.median(WALL[name])


def cpu(name: str) -> float:
    return statistics.median(CPU[name])


def line(label: str, name: str) -> str:
    n = len(WALL[name])
    times = ", ".join(f"{t:.2f}" for t in WALL[name])
    return f"{label:<32}{wall(name):.3f} s median of {n} ({times}), CPU {cpu(name):.3f} s"


def ratio(label: str, theirs: str, ours: str) -> str:
    return f"{label:<32}{wall(theirs) / wall(ours):.1f}x wall, {cpu(theirs) / cpu(ours):.1f}x CPU   (target >= 30x)"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--official", type=Path, help="path to DialEval-1's eval.py, timed beside ours")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--profile", type=Path, help="also write a cProfile of one warm score_run here")
    args = parser.parse_args()

    django_on_postgres()
    from annotator.services.imports import dialogues_import
    from annotator.services.projects import project_create
    from tests.reference_scoring import random_stc3_run

    # Bytecode as a deployment has it: compiled once, not on every start (as PYTHONDONTWRITEBYTECODE would force).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "annotator", "api", "evaluation", "scoring", "config"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    # Start-up first, on a quiet database: after the import PostgreSQL's autovacuum analyses half a million rows
    # for a minute on this machine's other core.
    for _ in range(args.repeat):  # alternating
        timed("bare", [sys.executable, "-c", "import django"], env)
        timed("check", [sys.executable, "manage.py", "check"], env)
    with tempfile.TemporaryDirectory() as tmp:
        gold_path = extract("stc3.zip", "stc3/train_data_cn.json", Path(tmp))
        dialogues = json.loads(gold_path.read_text(encoding="utf-8"))
        run_path = Path(tmp) / "run.json"
        run_path.write_text(json.dumps(random_stc3_run(dialogues, seed=7)), encoding="utf-8")
        project = project_create(slug="stc3-cn", preset="stc3")
        started = time.perf_counter()
        report = dialogues_import(project=project, paths=[gold_path])
        print(
            f"import                          {report.dialogues} dialogues, {report.judgements} judgements, "
            f"{time.perf_counter() - started:.1f} s"
        )

        python = sys.executable
        ours_command = [python, "manage.py", "score_run", "stc3-cn", str(run_path), "--name", "bench", "--json"]
        ours_scores = json.loads(timed("score_run cold", ours_command, env))
        cli_env = dict(env, XDG_CACHE_HOME=str(Path(tmp) / "cache"))  # the CLI's gold cache, thrown away after
        cli_command = [python, "-m", "scoring", "stc3", str(run_path), str(gold_path), "--json"]
        cli_scores = json.loads(timed("cli cold", cli_command, cli_env))  # builds the gold cache
        if cli_scores != ours_scores:
            sys.exit("python -m scoring stc3 and manage.py score_run disagree")
        official_command = [python, str(args.official), str(run_path), str(gold_path)] if args.official else None
        for _ in range(args.repeat):  # paired: the programs alternate
            timed("score_run", ours_command, env)
            timed("cli", cli_command, cli_env)
            timed("cli --no-cache", [*cli_command, "--no-cache"], cli_env)
            if official_command:
                timed("official", official_command, env)
        if args.profile:
            subprocess.run(
                [python, "-m", "cProfile", "-o", str(args.profile), *ours_command[1:]],
                cwd=ROOT,
                env=env,
                check=True,
                capture_output=True,
            )

    n = args.repeat
    above = wall("check") - wall("bare")
    print(f"python -c 'import django'       {wall('bare'):.3f} s median of {n}, CPU {cpu('bare'):.3f} s")
    print(
        f"manage.py check                 {wall('check'):.3f} s median of {n}, CPU {cpu('check'):.3f} s; "
        f"above import django {above:.3f} s, CPU {cpu('check') - cpu('bare'):.3f} s   (target <= 0.4 s)"
    )
    print(f"score_run, gold cache built     {WALL['score_run cold'][0]:.3f} s, CPU {CPU['score_run cold'][0]:.3f} s")
    print(line("score_run, gold cache read", "score_run"))
    print(
        f"  A RSNOD {ours_scores['quality']['A']['rsnod']:.4f}, nugget JSD -log2 "
        f"{ours_scores['nugget']['jsd_neglog2']:.4f} (python -m scoring stc3: the same scores)"
    )
    print(f"python -m scoring stc3, cache built {WALL['cli cold'][0]:.3f} s, CPU {CPU['cli cold'][0]:.3f} s")
    print(line("python -m scoring stc3", "cli"))
    print(line("  ... --no-cache", "cli --no-cache"))
    if official_command:
        print(line("official DialEval-1 eval.py", "official"))
        print(ratio("ratio (official / score_run)", "official", "score_run"))
        print(ratio("ratio (official / scoring stc3)", "official", "cli"))
        print(ratio("  ... --no-cache", "official", "cli --no-cache"))
    print(f"load average                    {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
