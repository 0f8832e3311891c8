from annotator.exporters.tables import table_chunks
from annotator.management.lead import LeadCommand
from annotator.management.output import chunks_write
from annotator.models import Study
from annotator.studies.selectors import participants_table
from annotator.studies.services import SETTINGS_FIELDS, study_create, study_set_open, study_update

# the settings' types on the command line (``SETTINGS_FIELDS``)
SETTING_TYPES = {"items_per_participant": int, "time_limit_minutes": int}


class Command(LeadCommand):
    help = "Lead: crowdsourced studies - create, list, settings, open, close, the participants' CSV."

    def add_subcommands(self, sub):
        p = sub.add_parser("list", help="Studies: id, open or closed, name, link token.")
        p.add_argument("slug")
        p = sub.add_parser("create", help="Create a study (closed until opened) with the default settings.")
        p.add_argument("slug")
        p.add_argument("name")
        for name, text in (("open", "Open a study to new participants."), ("close", "Close it to new participants.")):
            p = sub.add_parser(name, help=text)
            p.add_argument("slug")
            p.add_argument("study", type=int)
        p = sub.add_parser("settings", help="Show a study's settings; the options given change them.")
        p.add_argument("slug")
        p.add_argument("study", type=int)
        for name in SETTINGS_FIELDS:
            p.add_argument(f"--{name.replace('_', '-')}", type=SETTING_TYPES.get(name, str), dest=name)
        p.add_argument("--confirm-time-limit", action="store_true", help="Move the deadline of participants at work.")
        p = sub.add_parser("participants", help="The participants as CSV (or JSON), for approving payments.")
        p.add_argument("slug")
        p.add_argument("study", type=int)
        p.add_argument("--format", choices=["csv", "json"], default="csv", dest="fmt")
        p.add_argument("--output", "-o", default="-")

    def do_list(self, project, **options):
        for s in Study.objects.filter(project=project).order_by("pk"):
            self.say(f"{s.pk}\t{'open' if s.is_open else 'closed'}\t{s.name}\t/study/{s.token}/")

    def do_create(self, project, *, name, **options):
        """Created closed, as the docs say: a lead reviews the settings on the page, then opens it."""
        study = study_create(project=project, name=name)
        study = study_set_open(study=study, is_open=False)
        self.say(f"created study {study.pk} ({name}), {'open' if study.is_open else 'closed'}: /study/{study.token}/")

    def _set(self, project, study, is_open):
        found = study_set_open(study=Study.objects.get(project=project, pk=study), is_open=is_open)
        self.say(f"study {found.pk} is {'open' if is_open else 'closed'}")

    def do_open(self, project, *, study, **options):
        self._set(project, study, True)

    def do_close(self, project, *, study, **options):
        self._set(project, study, False)

    def do_settings(self, project, *, study, confirm_time_limit, **options):
        found = Study.objects.get(project=project, pk=study)
        given = {name: options[name] for name in SETTINGS_FIELDS if options.get(name) is not None}
        if given:
            found = study_update(study=found, confirm_time_limit=confirm_time_limit, **given)
        for name in SETTINGS_FIELDS:
            self.say(f"{name}\t{getattr(found, name)}")

    def do_participants(self, project, *, study, fmt, output, **options):
        table = participants_table(study=Study.objects.get(project=project, pk=study))
        chunks_write(self, table_chunks(table, fmt), output)
