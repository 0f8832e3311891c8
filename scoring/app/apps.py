from django.apps import AppConfig


class ScoringConfig(AppConfig):
    """The Django side of scoring: stored statistics and runs, the tasks, the pages.

    The app keeps the label ``scoring`` (and so its tables and migration history) while the
    numeric library lives one folder up, in ``scoring/`` itself.
    """

    name = "scoring.app"
    label = "scoring"
    verbose_name = "Scoring"
