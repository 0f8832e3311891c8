"""The Django side of scoring: models, services, selectors, tasks, pages and commands.

It reads annotator's tables through ``annotator.selectors.judgement_arrays`` and calls the
numeric library in ``scoring/``; the library never imports anything from here.
"""
