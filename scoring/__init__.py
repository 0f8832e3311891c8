"""Scoring library for dialogue evaluation data.

The modules directly in this folder (``measures``, ``gold``, ``agreement``, ``ordering``,
``significance``, ``uch``, ``nlpcc``, ``breakdown``, ``runs``, ``run_files`` ...) are plain
numpy/scipy and import nothing from Django, so they can be used on their own. The Django side
(stored statistics and runs, tasks, pages, commands) is the ``evaluation`` package; an
import-linter contract in ``pyproject.toml`` keeps the library free of it.

``python -m scoring stc3 RUN GOLD`` and ``python -m scoring dbdc LABELS LOGS`` (``scoring.cli``) score a run
against the gold files themselves, with the platform's readers and measures but without Django.
"""

__version__ = "0.2.0"
