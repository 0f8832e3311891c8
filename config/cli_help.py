"""``manage.py``'s utility: the platform's own commands first in ``manage.py help`` (and ``manage.py`` alone),
grouped by what they are for, then Django's listing by app (docs/cli.md describes each group); and the garbage
collector back on when a command's own work starts."""

from __future__ import annotations

import gc

from django.core.management import ManagementUtility, get_commands

# Commands whose work is loading and inspecting the code (every view, URL, template library): the collector stays
# off to their end, as it is while any command loads (manage.py); what they make lives until the process exits.
LOADING_ONLY = {"check"}

GROUPS = {
    "Projects, schemes and data": [
        "create_project", "export_scheme", "change_scheme", "import_dialogues", "import_annotations", "assign",
        "export_gold", "demo",
    ],
    "Lead actions (the manage pages' operations, for scripted set-ups)": [
        "lead_project", "lead_members", "lead_tokens", "lead_items", "lead_exclusions", "lead_adjudication",
        "lead_quality", "lead_adaptive", "lead_pairwise", "lead_webhooks", "lead_imports", "lead_studies",
        "lead_runs", "lead_judges",
    ],
    "Scoring, statistics and reports": ["stats", "power", "report", "score_run", "compare_runs"],
    "Judges": ["import_judge", "judge_report", "remove_judge"],
    "Project archives": ["export_project", "import_project"],
    "Translations": ["makemessages"],
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
    """Django's ``ManagementUtility`` whose main help starts with the platform's groups, and which turns the
    garbage collector on (it is off while manage.py loads) when the command's ``handle`` starts, after freezing
    what was loaded so that later collections skip it."""

    def fetch_command(self, subcommand: str):
        command = super().fetch_command(subcommand)
        if subcommand not in LOADING_ONLY:
            handle = command.handle

            def handle_collected(*args, **options):
                gc.freeze()
                gc.enable()
                return handle(*args, **options)

            command.handle = handle_collected
        return command

    def main_help_text(self, commands_only: bool = False) -> str:
        django_text = super().main_help_text(commands_only)
        if commands_only:
            return django_text
        return f"{grouped_help()}\n{django_text}"
