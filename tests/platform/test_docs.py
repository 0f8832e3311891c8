"""The README stays the two commands and the demo accounts; the docs name every setting and command.

The docs' own links, anchors and docstrings are checked by the strict MkDocs build in ./scripts/lint.sh.
"""

import re
from pathlib import Path

from django.conf import settings

from annotator.services.demo import DEMO_ANNOTATORS, DEMO_LEAD, DEMO_PROJECTS

ROOT = Path(settings.BASE_DIR)
README = ROOT / "README.md"
DOCS = ROOT / "docs"


def test_readme_starts_with_the_two_commands_and_stays_short():
    text = README.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[:3] == ["# DialEval Studio", "", "```sh"]
    assert lines[3].startswith("./scripts/serve.sh ")
    assert lines[4].startswith("./scripts/test.sh ")
    assert lines[5] == "```"
    for script in ("serve.sh", "test.sh"):
        assert (ROOT / "scripts" / script).stat().st_mode & 0o111, script
    assert "./scripts/test.sh" in (ROOT / ".ci" / "run").read_text()  # CI runs the second command
    assert len(README.read_bytes()) <= 8 * 1024


def test_readme_publishes_the_demo_passwords_the_demo_creates():
    text = README.read_text(encoding="utf-8")
    lead, password = DEMO_LEAD
    assert f"| `{lead}` | `{password}` |" in text
    names = ", ".join(f"`{name}`" for name, _password in DEMO_ANNOTATORS)
    (annotator_password,) = {password for _name, password in DEMO_ANNOTATORS}
    assert f"| {names} | `{annotator_password}` |" in text
    for slug, *_rest in DEMO_PROJECTS:
        assert f"`{slug}`" in text, slug


def _variables_read_by_config() -> set[str]:
    found = set()
    for path in (ROOT / "config").rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        found |= set(re.findall(r'env_(?:str|int|bool|list)\(\s*"([A-Z0-9_]+)"', source))
        found |= set(re.findall(r'os\.environ\.get\(\s*"([A-Z0-9_]+)"', source))
    compose = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
    found |= set(re.findall(r"\$\{([A-Z0-9_]+)", compose))
    return found


def test_settings_page_names_every_environment_variable():
    # given the variables the settings, gunicorn and the compose file read
    variables = _variables_read_by_config()
    assert {"SECRET_KEY", "DATABASE_URL", "GUNICORN_TIMEOUT", "TLS_MODE"} <= variables  # the scan finds them
    # then the settings page names each one
    page = (DOCS / "settings.md").read_text(encoding="utf-8")
    missing = sorted(v for v in variables if f"`{v}`" not in page)
    assert not missing, f"docs/settings.md does not document {missing}"


def test_cli_page_names_every_management_command():
    folders = [ROOT / "annotator" / "management" / "commands", ROOT / "evaluation" / "management" / "commands"]
    commands = {p.stem for folder in folders for p in folder.glob("*.py") if p.stem != "__init__"}
    assert {"import_dialogues", "score_run"} <= commands
    headings = [line for line in (DOCS / "cli.md").read_text(encoding="utf-8").splitlines() if line.startswith("#")]
    missing = sorted(c for c in commands if not any(f"`{c}`" in heading for heading in headings))
    assert not missing, f"docs/cli.md has no section for {missing}"
