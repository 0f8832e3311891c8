from pathlib import Path

from django.core.files import File

from annotator.importers import FORMATS
from annotator.management.lead import LeadCommand
from annotator.models import QualityItemKind
from annotator.services.quality_items import (
    quality_assignments_create,
    quality_item_remove,
    quality_items_upload,
    quality_settings_get,
    quality_settings_update,
)


class Command(LeadCommand):
    help = (
        "Lead: quality control - show or change the settings, add control/training items from an annotated file, "
        "remove one, mix items in."
    )

    def add_subcommands(self, sub):
        p = sub.add_parser("settings", help="Show the settings; the options given change them.")
        p.add_argument("slug")
        p.add_argument("--control-rate", type=float)
        p.add_argument("--default-tolerance", type=int)
        p.add_argument("--pass-mark", type=float)
        p.add_argument("--too-fast-seconds", type=int)
        p.add_argument("--source", choices=["all", "imported", "own"])
        p = sub.add_parser("add-items", help="Import an annotated file as control or training items.")
        p.add_argument("slug")
        p.add_argument("file")
        p.add_argument("--kind", choices=QualityItemKind.values, required=True)
        p.add_argument("--format", choices=FORMATS, default="auto", dest="fmt")
        p.add_argument("--tolerance", type=int, help="For ordered criteria (default: the project's).")
        p.add_argument("--explanation", default="", help="Shown to annotators after a training item.")
        p = sub.add_parser("remove-item", help="Stop using a dialogue as a control or training item.")
        p.add_argument("slug")
        p.add_argument("dialogue", help="The dialogue's external id.")
        p = sub.add_parser("mix", help="Give the annotators their control and training items.")
        p.add_argument("slug")
        p.add_argument("--seed", type=int, default=0)

    def do_settings(self, project, **options):
        names = ("control_rate", "default_tolerance", "pass_mark", "too_fast_seconds", "source")
        given = {k: options[k] for k in names if options.get(k) is not None}
        stored = quality_settings_update(project=project, **given) if given else quality_settings_get(project=project)
        for name in names:
            self.say(f"{name}\t{getattr(stored, name)}")

    def do_add_items(self, project, *, file, kind, fmt, tolerance, explanation, **options):
        with open(file, "rb") as fh:
            items = quality_items_upload(
                project=project,
                uploaded=File(fh, name=Path(file).name),
                kind=kind,
                fmt=fmt,
                tolerance=tolerance,
                explanation=explanation,
            )
        self.say(f"added {len(items)} {kind} item(s)")

    def do_remove_item(self, project, *, dialogue, **options):
        n = quality_item_remove(project=project, dialogue_id=project.dialogues.get(external_id=dialogue).pk)
        self.say(f"removed {n} quality item(s)")

    def do_mix(self, project, *, seed, **options):
        report = quality_assignments_create(project=project, seed=seed)
        self.say(str(report))
