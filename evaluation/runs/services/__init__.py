"""Submitted runs: ``upload`` keeps a run and hands it to the workers, ``scoring`` scores it by the
project's run scheme with one reader per format (``stc3``, ``dbdc``, ``reorderings``); ``events``, ``freshness``
and ``compare``."""
