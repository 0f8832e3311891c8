"""Handing items out, the whole mechanism in one folder: who gets which item, in bulk or one at a time, and when
a project needs no more answers.

- ``models``: ``AdaptiveBudget`` (fixed K or an adaptive budget per item; re-exported by ``annotator.models``, like
  every model of the app, so its app label stays ``annotator``)
- ``services/``: ``bulk`` (the lead's assignment run: K annotators per item with balanced loads, or a coherence
  project's balanced permutation sets), ``one_at_a_time`` (``hand_out_one``: one item under the project's lock),
  ``next_item`` (what the annotator's pages call: the right chooser for the project), ``adaptive`` (the budget's
  settings, and the items an annotator or a study participant gets)
- ``selectors/``: ``adaptive`` (where an adaptive project stands, item by item, and the priority of one more label),
  ``stopped`` (whether a project that hands items out one at a time needs no more answers, and why)
- ``views``, ``urls``: the lead's assignment run and budget form (parts of the project's page)
- ``adaptive_replay.json``: what each gold saves on the seeds' real collections (``bench/adaptive_replay.py``)

Elsewhere, where Django or the import contracts want them: the REST endpoint of the budget in ``api.handout``; the
budget's part of the statistics and the dashboard in ``evaluation.handout``; the templates in
``templates/annotator/handout/`` and ``templates/evaluation/handout/``; the ``assign`` and ``lead_adaptive``
commands in ``annotator/management/commands/``. The choosers of the other features stay with them and use
``one_at_a_time``: the comparisons' active pairs (``annotator.pairwise.services.active_pairs``), a study's set
given on arrival (``annotator.studies.services``), the control and training items mixed into the queues
(``annotator.services.quality_items``).
"""
