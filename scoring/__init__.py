"""Scoring library for dialogue evaluation data.

The modules named after measures (``measures``, ``gold``, ``agreement``, ...) are plain
numpy/scipy and import nothing from Django, so they can be used on their own. ``data``,
``tasks``, ``models`` and ``management`` are the thin Django adapters around them.
"""

__version__ = "0.1.0"
