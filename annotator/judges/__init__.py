"""Automatic judges, the annotator side in one folder: raters (a model, a script, a run) whose labels sit beside
the humans' judgements, never inside them.

- ``models``: ``Judge``, ``JudgeLabel``, ``EndpointAnswer`` (re-exported by ``annotator.models``, like every model
  of the app, so their app label stays ``annotator``)
- ``labels_file``: the reader of a judge's JSON lines of labels, for any preset
- ``services/``: ``labels`` (a judge's labels imported from a file, checked against the criteria; a judge removed)
  and ``endpoint`` (an endpoint judge: its settings, its prompts, asking the endpoint about every unit)
- ``chat_endpoint``: one OpenAI-compatible chat completions request through the platform's outgoing client
- ``selectors``: a project's judges and their labels as arrays

Elsewhere, where Django or the import contracts want them: what is derived from the labels (the judge's report
against the humans, a run registered as a judge), its pages and routes in ``evaluation.judges``; the REST
endpoints in ``api.judges``; the templates in ``templates/evaluation/judges/``; the task ``run_endpoint_judge`` in
``annotator/tasks.py``; the commands ``lead_judges`` (``annotator``), ``import_judge``, ``judge_report`` and
``remove_judge`` (``evaluation``); the template filters ``evaluation/templatetags/judge_figures.py``; the judges'
part of the project archive in ``evaluation.archive.parts.judges``.
"""
