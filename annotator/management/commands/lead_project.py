from pathlib import Path

from annotator.management.lead import LeadCommand
from annotator.models import AnnotatorsAre
from annotator.services.projects import project_settings_update, project_wording_save
from annotator.wording import WORDING_LANGUAGES


def _text(text: str | None, path: str | None) -> str | None:
    return Path(path).read_text(encoding="utf-8") if path else text


class Command(LeadCommand):
    help = "Lead: a project's guidelines, K and who annotated, and their wording in Japanese and Chinese."

    def add_subcommands(self, sub):
        p = sub.add_parser("settings", help="Show the guidelines, K and who annotated; the options given change them.")
        p.add_argument("slug")
        p.add_argument("--guidelines", help="The guidelines' text (English).")
        p.add_argument("--guidelines-file", help="A UTF-8 file holding the guidelines.")
        p.add_argument("--annotators-per-dialogue", type=int, dest="k")
        p.add_argument(
            "--annotators-are",
            choices=[v or "not-stated" for v in AnnotatorsAre.values],
            help="Who the annotators are (the judges' alternative annotator test takes its margin from it).",
        )
        p = sub.add_parser("wording", help="The guidelines and questions in a language (empty: the scheme's).")
        p.add_argument("slug")
        p.add_argument("language", choices=WORDING_LANGUAGES)
        p.add_argument("--guidelines", default=None)
        p.add_argument("--guidelines-file")
        p.add_argument("--question", action="append", default=[], metavar="KEY=TEXT")

    def do_settings(self, project, *, guidelines, guidelines_file, k, annotators_are, **options):
        text = _text(guidelines, guidelines_file)
        if text is not None or k is not None or annotators_are is not None:
            project_settings_update(
                project=project,
                guidelines=project.guidelines if text is None else text,
                annotators_per_dialogue=project.annotators_per_dialogue if k is None else k,
                annotators_are=None if annotators_are is None else annotators_are.replace("not-stated", ""),
            )
        self.say(f"annotators_per_dialogue\t{project.annotators_per_dialogue}")
        self.say(f"annotators_are\t{project.annotators_are or 'not-stated'}")
        self.say(f"guidelines\t{project.guidelines}")

    def do_wording(self, project, *, language, guidelines, guidelines_file, question, **options):
        questions = {}
        for entry in question:
            key, sep, text = entry.partition("=")
            if not sep:
                raise ValueError(f"--question takes KEY=TEXT, got {entry!r}")
            questions[key] = text
        own = (project.wordings or {}).get(language, {})
        text = _text(guidelines, guidelines_file)
        project_wording_save(
            project=project,
            language=language,
            guidelines=own.get("guidelines", "") if text is None else text,
            questions={**own.get("questions", {}), **questions},
        )
        self.say(f"saved the {language} wording of {project.slug}")
