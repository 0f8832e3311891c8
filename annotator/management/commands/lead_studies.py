from annotator.management.lead import LeadCommand
from annotator.models import Study
from annotator.services.studies import study_create, study_set_open


class Command(LeadCommand):
    help = "Lead: crowdsourced studies - create, list, open, close."

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
