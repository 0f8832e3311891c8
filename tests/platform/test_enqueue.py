"""Work is sent to the workers by task name (config.enqueue): every name the code sends is a registered task."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SENT = re.compile(r'task_send\(\s*"([\w.]+)"')


def sent_names() -> set[str]:
    return {
        name
        for package in ("annotator", "api", "config", "evaluation", "scoring")
        for path in (ROOT / package).rglob("*.py")
        for name in SENT.findall(path.read_text())
    }


def test_the_code_sends_the_tasks_it_names():
    assert sent_names() >= {
        "annotator.tasks.run_import_batch",
        "evaluation.tasks.recompute_statistics",
        "evaluation.tasks.estimate_model_reliability",
        "evaluation.tasks.score_uploaded_run",
        "evaluation.tasks.refresh_run_comparisons",
    }


def test_every_sent_name_is_a_registered_task_in_a_fresh_process():
    """In a process that has imported no tasks module (a web process), the first send finds each task."""
    names = sorted(sent_names())
    code = (
        "import django; django.setup()\n"
        "import sys; assert 'annotator.tasks' not in sys.modules and 'evaluation.tasks' not in sys.modules\n"
        "from config.enqueue import registered\n"
        f"print(' '.join(registered(name).name for name in {names!r}))\n"
    )
    env = {"DJANGO_SETTINGS_MODULE": "config.settings.test", "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == names
