"""Django-side services of the scoring app.

They load arrays through ``annotator.selectors.judgement_arrays``, call the library and store the results.
"""
