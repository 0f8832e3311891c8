"""``manage.py score_run`` as a whole process on STC-3 Chinese, beside the official DialEval-1 script.

Imports the STC-3 Chinese training set (3,700 dialogues, 503,500 judgements) into a throwaway
PostgreSQL, writes a seeded random submission, then times complete processes (interpreter start,
Django set-up, reading the gold, validating and scoring the run, saving it):
- ``manage.py check`` beside a bare ``python -c "import django"`` (start-up: the issue's target is at most
  0.4 s between the two);
- ``manage.py score_run`` the first time (the gold cache is built from the judgements) and then
  warm (the cache is read: the judgements are unchanged);
- with ``--official PATH``, the DialEval-1 ``eval.py`` on the same run and gold file, the two
  programs alternating (paired runs), and the ratio of the medians (target >= 30x).

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

CPU: list[float] = []  # CPU seconds of each timed process, in order (less sensitive to a busy machine)


def timed(command: list[str], env: dict[str, str]) -> tuple[float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    took = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}")
    return took, result.stdout


def cpu_of(n: int, start: int, step: int = 1) -> float:
    """Median CPU seconds of ``n`` timed processes, from position ``start`` every ``step``."""
    return statistics.median(CPU[start : start + n * step : step])


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
        [sys.executable, "-m", "compileall", "-q", "annotator", "api", "scoring", "config"],
        cwd=ROOT,
        env=env,
        check=True,
    )
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
        bare, startup = [], []
        for _ in range(args.repeat):  # alternating: CPU positions 0, 2, 4... bare; 1, 3, 5... check
            bare.append(timed([python, "-c", "import django"], env)[0])
            startup.append(timed([python, "manage.py", "check"], env)[0])
        ours_command = [python, "manage.py", "score_run", "stc3-cn", str(run_path), "--name", "bench", "--json"]
        cold, output = timed(ours_command, env)
        ours_scores = json.loads(output)
        ours, official = [], []
        for _ in range(args.repeat):
            ours.append(timed(ours_command, env)[0])
            if args.official:
                official.append(timed([python, str(args.official), str(run_path), str(gold_path)], env)[0])
        if args.profile:
            subprocess.run(
                [python, "-m", "cProfile", "-o", str(args.profile), *ours_command[1:]],
                cwd=ROOT,
                env=env,
                check=True,
                capture_output=True,
            )

    step = 2 if official else 1
    n = args.repeat
    above = statistics.median(startup) - statistics.median(bare)
    print(f"python -c 'import django'       {statistics.median(bare):.3f} s median of {n}, CPU {cpu_of(n, 0, 2):.3f} s")
    print(
        f"manage.py check                 {statistics.median(startup):.3f} s median of {n}, "
        f"CPU {cpu_of(n, 1, 2):.3f} s; above import django {above:.3f} s, "
        f"CPU {cpu_of(n, 1, 2) - cpu_of(n, 0, 2):.3f} s   (target <= 0.4 s)"
    )
    print(f"score_run, gold cache built     {cold:.3f} s, CPU {CPU[2 * n]:.3f} s")
    print(
        f"score_run, gold cache read      {statistics.median(ours):.3f} s median of {n} "
        f"({', '.join(f'{t:.2f}' for t in ours)}), CPU {cpu_of(n, 2 * n + 1, step):.3f} s"
    )
    print(
        f"  A RSNOD {ours_scores['quality']['A']['rsnod']:.4f}, nugget JSD -log2 "
        f"{ours_scores['nugget']['jsd_neglog2']:.4f}"
    )
    if official:
        print(
            f"official DialEval-1 eval.py     {statistics.median(official):.3f} s median of {n} "
            f"({', '.join(f'{t:.2f}' for t in official)}), CPU {cpu_of(n, 2 * n + 2, 2):.3f} s"
        )
        print(
            f"ratio (official / ours)         {statistics.median(official) / statistics.median(ours):.1f}x wall, "
            f"{cpu_of(n, 2 * n + 2, 2) / cpu_of(n, 2 * n + 1, 2):.1f}x CPU   (target >= 30x)"
        )
    print(f"load average                    {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
