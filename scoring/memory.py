"""Pausing Python's cyclic garbage collector while many acyclic objects are built.

Parsing a run file of thousands of dialogues and building its scores per dialogue create a few
hundred thousand small objects (dicts, lists, floats) in a burst. Each burst triggers the cyclic
collector's generations in turn, and a full collection walks every object the process holds (in a
Django process, the whole framework): on STC-3 Chinese that is up to 80 ms of a 60 ms parse. These
objects hold no reference cycles, so reference counting frees them all the same; the collector is
paused for the burst and resumes (as it was) afterwards.

>>> import gc
>>> with gc_paused():
...     gc.isenabled()
False
>>> gc.isenabled()
True
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
