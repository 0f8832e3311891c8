"""Pairwise comparisons, the evaluation side: ``services`` (the statistics payload's Bradley-Terry part) and the
dashboard's part, ``templates/evaluation/pairwise/_dashboard.html``. The comparisons themselves are
``annotator.pairwise``."""
