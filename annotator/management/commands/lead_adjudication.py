from annotator.management.lead import LeadCommand
from annotator.services.adjudication import adjudication_record, adjudication_remove


class Command(LeadCommand):
    help = "Lead: settle a unit's final label (adjudication) or remove it."

    def add_subcommands(self, sub):
        p = sub.add_parser("set", help="Record (or replace) the final label of one unit.")
        p.add_argument("slug")
        p.add_argument("dialogue", help="The dialogue's external id.")
        p.add_argument("criterion")
        p.add_argument("unit", type=int)
        p.add_argument("value")
        p.add_argument("--note", default="")
        p = sub.add_parser("remove", help="Remove a unit's final label.")
        p.add_argument("slug")
        p.add_argument("dialogue")
        p.add_argument("criterion")
        p.add_argument("unit", type=int)

    def _dialogue_id(self, project, external_id: str) -> int:
        return project.dialogues.get(external_id=external_id).pk

    def do_set(self, project, *, dialogue, criterion, unit, value, note, **options):
        adjudication_record(
            project=project, dialogue_id=self._dialogue_id(project, dialogue), criterion=criterion, unit=unit,
            value=value, note=note, adjudicator=None,
        )  # fmt: skip
        self.say(f"{dialogue} {criterion} unit {unit}: {value}")

    def do_remove(self, project, *, dialogue, criterion, unit, **options):
        n = adjudication_remove(
            project=project, dialogue_id=self._dialogue_id(project, dialogue), criterion=criterion, unit=unit
        )
        self.say(f"removed {n} final label(s)")
