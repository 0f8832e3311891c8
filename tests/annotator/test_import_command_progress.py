"""``import_dialogues`` shows progress bars on a terminal, and none when its output is not one."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios

import pytest

from annotator.models import ImportBatch
from tests.conftest import ROOT, database_url
from tests.fixtures.collections import stc3_dialogues, write_json

pytestmark = pytest.mark.django_db(transaction=True)


def test_import_dialogues_shows_a_progress_bar_on_a_terminal(make_project, tmp_path):
    # given a project and a file of 300 dialogues
    make_project("stc3", slug="bars")
    data = [dict(stc3_dialogues()[0], id=f"t{i}") for i in range(300)]
    path = write_json(tmp_path / "many.json", data)
    env = dict(os.environ, DATABASE_URL=database_url(), DJANGO_SETTINGS_MODULE="config.settings.test")
    # when the command runs with its error stream on a terminal
    primary, secondary = pty.openpty()
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))  # a 120-column terminal
    process = subprocess.Popen(
        [sys.executable, "manage.py", "import_dialogues", "bars", str(path)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=secondary,
        text=True,
    )
    os.close(secondary)
    terminal = b""
    while True:
        try:
            chunk = os.read(primary, 4096)
        except OSError:  # the command exited and closed the terminal
            break
        if not chunk:
            break
        terminal += chunk
    os.close(primary)
    stdout = process.stdout.read()
    assert process.wait(timeout=120) == 0, terminal.decode(errors="replace")
    # then the terminal showed both phases, the writing one reaching 300 of 300
    shown = terminal.decode(errors="replace")
    assert "checking: 300 dialogues" in shown.replace("  ", " ")
    assert "writing: 100%" in shown and "300/300" in shown and "rows=5700" in shown
    assert stdout.startswith("imported 300 dialogues")
    assert ImportBatch.objects.get(project__slug="bars").status == "done"


def test_no_bar_when_the_output_is_not_a_terminal(manage, make_project, tmp_path):
    make_project("stc3", slug="plain")
    result = manage("import_dialogues", "plain", str(write_json(tmp_path / "s.json", stc3_dialogues())), check=True)
    assert result.stderr == "" and "imported 2 dialogues" in result.stdout
