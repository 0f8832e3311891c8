from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    """What the platform derives from the judgements: statistics, runs, judges, reports, the archive.

    The app keeps the label ``scoring`` (and so its tables and migration history) from when it lived
    inside the numeric library's folder; the library, ``scoring/``, has no Django in it.
    """

    name = "evaluation"
    label = "scoring"
    verbose_name = "Evaluation"

    def ready(self) -> None:
        from annotator import events

        from .services.listener import EvaluationListener

        events.listener_install(EvaluationListener())
