"""Evaluation: what the platform derives from the judgements, and the pages that show it.

Stored statistics and the live running figures, system runs and the leaderboard, automatic judges,
the study report, the dataset export and the project archive, with their tasks, pages and commands.
It reads annotator's tables through ``annotator.selectors.judgement_arrays`` and calls the numeric
library in ``scoring/``. ``annotator`` never imports it: it tells this app what changed through
``annotator.events``, whose listener this app installs when Django starts (``apps.py``).
"""
