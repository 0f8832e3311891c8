"""Import the STC-3 Chinese training set (3,700 dialogues x 19 annotators) into PostgreSQL.

Prints dialogues/s, judgements/s, wall time and peak memory (maximum resident set size of
this process, which includes reading the 18 MB JSON). Target: < 60 s, < 1 GiB.

    .venv/bin/python bench/import_stc3.py
"""

from __future__ import annotations

import resource
import tempfile
import time
from pathlib import Path

from _setup import django_on_postgres, extract


def main() -> None:
    django_on_postgres()
    from annotator.services.imports import dialogues_import
    from annotator.services.projects import project_create

    with tempfile.TemporaryDirectory() as tmp:
        path = extract("stc3.zip", "stc3/train_data_cn.json", Path(tmp))
        project = project_create(slug=f"bench-stc3-{int(time.time())}", preset="stc3")
        started = time.perf_counter()
        report = dialogues_import(project=project, paths=[path])
        wall = time.perf_counter() - started
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"dialogues        {report.dialogues}")
    print(f"posts            {report.posts}")
    print(f"judgements       {report.judgements}")
    print(f"wall time        {wall:.1f} s")
    print(f"dialogues/s      {report.dialogues / wall:.0f}")
    print(f"judgements/s     {report.judgements / wall:.0f}")
    print(f"peak memory      {peak_mib:.0f} MiB (max RSS of the process)")


if __name__ == "__main__":
    main()
