"""Submitted runs, the whole feature in one folder: a dialogue system's output uploaded, scored against the
project's gold by a worker, ranked on the leaderboard and compared.

- ``services/``: ``upload`` (a run kept as a zip of its files, queued, scored again, removed), ``scoring`` (read,
  validated and scored by the project's run scheme, one reader per format: ``stc3``, ``dbdc``, ``reorderings``),
  ``events`` (the ``run.scored`` and ``run.failed`` webhooks), ``freshness`` (runs scored against an earlier gold
  scored again in the background), ``compare`` (stability, discriminative power and pairwise p-values on one metric)
- ``selectors/``: ``leaderboard`` (every run with the preset's metrics, sorted and grouped, and the stored
  comparisons), ``freshness`` (whether a run's scores are current, and why not), ``scores_csv`` (a run's
  per-dialogue scores streamed as CSV)
- ``views``, ``urls``: the leaderboard with the upload form, a run's per-dialogue scores, scoring again, removal,
  the comparisons and the annotators' reorderings scored as a run

Elsewhere, where Django or the import contracts want them: the models ``Run`` and ``RunComparison`` in
``evaluation.models`` (one module for the app's tables); the run schemes, one object per scheme asked in one place, in
``annotator.presets.spec`` (``RunScheme``, ``RUN_SCHEMES``; ``project_scheme(project)``), beside the presets that name
them; the numbers in the library (``scoring.runs``, ``scoring.run_files``); the REST endpoints in ``api.runs``; the
template ``templates/evaluation/runs/leaderboard.html``; the tasks ``score_uploaded_run``, ``refresh_run_comparisons``,
``rescore_stale_runs`` and ``requeue_unqueued_runs`` in ``evaluation/tasks.py``; the commands ``score_run``,
``compare_runs`` and ``lead_runs``; a run registered as a judge in ``evaluation.judges.services.from_runs``.
"""
