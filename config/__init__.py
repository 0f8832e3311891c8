"""Project settings package.

The Celery app (``config.celery``) is not imported here, so that commands and web processes that
never send a task do not pay for importing Celery; ``evaluation.tasks`` imports it, and
``celery -A config`` finds it as ``config.celery.app``.
"""
