"""Shared set-up for the benchmarks: real data from ../shared/data, Django on PostgreSQL.

Without DATABASE_URL in the environment a throwaway PostgreSQL cluster (scripts/services.py)
is started for the run and removed afterwards.
"""

from __future__ import annotations

import atexit
import os
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))


def shared_file(name: str) -> Path:
    path = SHARED_DATA / name
    if not path.exists():
        sys.exit(f"needs {path} (the real collections beside the repository)")
    return path


def extract(zip_name: str, member_prefix: str, target: Path) -> Path:
    with zipfile.ZipFile(shared_file(zip_name)) as archive:
        archive.extractall(target, [m for m in archive.namelist() if m.startswith(member_prefix)])
    return target / member_prefix


def django_on_postgres(*, with_redis: bool = False) -> dict[str, str]:
    """Start services if needed, configure Django, migrate; returns the environment used."""
    env = {}
    if not os.environ.get("DATABASE_URL"):
        from services import Services, ensure_system_packages

        ensure_system_packages()
        services = Services()
        env = services.start()
        atexit.register(services.stop)
        os.environ["DATABASE_URL"] = env["DATABASE_URL"]
        if with_redis:
            os.environ["CELERY_BROKER_URL"] = env["CELERY_BROKER_URL"]
            os.environ["CELERY_RESULT_BACKEND"] = env["CELERY_RESULT_BACKEND"]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return env


def stc3_save_body(senders: list[str], *, complete: bool, seed: int) -> dict:
    """An STC-3 annotator's save of a dialogue whose turns are by ``senders``: the three dialogue scores and a
    nugget per turn (a draft of the first two scores unless ``complete``), varied by ``seed``."""
    nuggets = [
        ("CNUG" if s == "customer" else "HNUG") if (t + seed) % 2 else ("CNaN" if s == "customer" else "HNaN")
        for t, s in enumerate(senders)
    ]
    judgements = [{"criterion": k, "unit": 0, "value": str((seed + i) % 5 - 2)} for i, k in enumerate("ASE")]
    judgements += [{"criterion": "nugget", "unit": t, "value": v} for t, v in enumerate(nuggets)]
    return {"judgements": judgements if complete else judgements[:2], "submit": False, "seconds": 3}
