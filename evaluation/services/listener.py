"""What this app does when annotator tells it something changed (``annotator.events``).

Installed by ``EvaluationConfig.ready``; each method calls the one service that owns the work. The services
are imported when an event first arrives, not at start-up: a process that never saves (``manage.py
score_run``, ``check``) does not load the statistics.
"""

from __future__ import annotations


class EvaluationListener:
    def judgements_counted(self, *, assignment, sign):
        from evaluation.services.incremental import live_state_change

        live_state_change(assignment=assignment, sign=sign)

    def population_changed(self, *, project_id, reason):
        from evaluation.models import LiveState

        if not LiveState.objects.filter(project_id=project_id).exists():
            return  # no live figures to mark stale (a new project's import: the statistics' modules stay unloaded)
        from evaluation.services.incremental import live_state_stale

        live_state_stale(project_id=project_id, reason=reason)

    def statistics_due(self, *, project_id):
        from evaluation.services.schedule import statistics_request_on_commit

        statistics_request_on_commit(project_id=project_id)

    def live_unit_counts(self, *, project, criteria):
        from evaluation.selectors.live_counts import live_unit_counts

        return live_unit_counts(project, criteria)

    def live_counts_wanted(self, *, project):
        from evaluation.services.incremental import live_state_read

        live_state_read(project)
