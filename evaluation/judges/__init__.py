"""Automatic judges, the evaluation side in one folder: what is derived from a judge's labels, and its pages.

- ``services/``: ``report`` (a judge against the humans: agreement, alt-test, calibration, PPI, with ``margin``,
  ``ppi``, ``pairwise`` and ``verdicts``), ``cached`` (the stored report and its freshness), ``wording`` (the
  report's sentences), ``from_runs`` (a submitted run registered as a judge)
- ``views/``: ``pages`` (the lead's judges page), ``report`` (one judge's report) with ``plots`` (its SVG geometry)
- ``urls``: their routes, included by ``evaluation.urls``

The judges themselves, their labels and endpoint judges are ``annotator.judges``.
"""
