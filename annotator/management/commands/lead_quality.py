from annotator.management.lead import LeadCommand
from annotator.services.quality_items import (
    quality_assignments_create,
    quality_item_remove,
    quality_settings_get,
    quality_settings_update,
)


class Command(LeadCommand):
    help = "Lead: quality control - show or change the settings, remove a control/training item, mix items in."

    def add_subcommands(self, sub):
        p = sub.add_parser("settings", help="Show the settings; the options given change them.")
        p.add_argument("slug")
        p.add_argument("--control-rate", type=float)
        p.add_argument("--default-tolerance", type=int)
        p.add_argument("--pass-mark", type=float)
        p.add_argument("--too-fast-seconds", type=int)
        p.add_argument("--source", choices=["all", "imported", "own"])
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

    def do_remove_item(self, project, *, dialogue, **options):
        n = quality_item_remove(project=project, dialogue_id=project.dialogues.get(external_id=dialogue).pk)
        self.say(f"removed {n} quality item(s)")

    def do_mix(self, project, *, seed, **options):
        report = quality_assignments_create(project=project, seed=seed)
        self.say(str(report))
