"""Pairwise comparisons, the annotator side in one folder: items that show two systems' responses to the same
context, and the annotators' votes between them.

- ``models``: ``Candidate`` (a comparison item's response, from a named system) and ``PairwiseSettings``
  (re-exported by ``annotator.models``, like every model of the app, so their app label stays ``annotator``)
- ``services/``: ``settings`` (the lead's settings and comparison criteria), ``pair_order`` (which candidate each
  annotator sees first, balanced), ``active_pairs`` (the next comparison chosen where it narrows the ranking most)
- ``selectors``: the votes per criterion in system terms, and whether the collection should go on (the stop rule)
- ``views``, ``urls``: the lead's settings form (part of the project's page)

Elsewhere, where Django or the import contracts want them: the ranking on the dashboard in ``evaluation.pairwise``;
the templates in ``templates/annotator/pairwise/`` and ``templates/evaluation/pairwise/``; the ``lead_pairwise``
command in ``annotator/management/commands/``; the collection's reader and writer beside the other formats'
(``annotator/importers/pairwise.py``, ``annotator/exporters/pairwise.py``); the hand-out that asks ``active_pairs``
(``annotator/handout/services/next_item.py``); the judge report's pairwise part
(``evaluation.judges.services.pairwise``).
"""
