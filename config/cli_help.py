"""``manage.py help`` (and ``manage.py`` alone): the platform's own commands first, grouped by what they are for,
then Django's listing by app. docs/cli.md describes each group."""

from __future__ import annotations

from django.core.management import ManagementUtility, get_commands

GROUPS = {
    "Projects and data": ["create_project", "import_dialogues", "assign", "export_gold", "demo"],
    "Lead actions (the manage pages' operations, for scripted set-ups)": [
        "lead_members", "lead_exclusions", "lead_adjudication", "lead_quality", "lead_imports", "lead_studies",
        "lead_runs",
    ],
    "Scoring and statistics": ["stats", "score_run", "compare_runs"],
    "Project archives": ["export_project", "import_project"],
}  # fmt: skip


def grouped_help() -> str:
    """The groups with each command's one-line help; a group lists only commands that exist."""
    from django.core.management import load_command_class

    known = get_commands()
    lines = ["The platform's commands (manage.py <command> --help for each; docs/cli.md):", ""]
    for title, names in GROUPS.items():
        lines.append(f"[{title}]")
        for name in names:
            if name in known:
                summary = (load_command_class(known[name], name).help or "").split("\n")[0]
                lines.append(f"    {name:<20} {summary}")
        lines.append("")
    return "\n".join(lines)


class Utility(ManagementUtility):
    """Django's ``ManagementUtility`` whose main help starts with the platform's groups."""

    def main_help_text(self, commands_only: bool = False) -> str:
        django_text = super().main_help_text(commands_only)
        if commands_only:
            return django_text
        return f"{grouped_help()}\n{django_text}"
