"""What pytest's ``--doctest-modules`` (pytest.ini) leaves out of the product packages, and why.

Every other module of scoring, annotator, api and config is imported and its docstring examples run.
"""

collect_ignore_glob = [
    # generated schema changes: no examples, and importing one out of the migration runner proves nothing
    "*/migrations/*",
    # settings modules read the environment on import; production refuses to import without its secrets
    "config/settings/*",
    # builds the WSGI application (django.setup() with the default settings module) on import
    "config/wsgi.py",
]
