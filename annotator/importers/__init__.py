"""Readers for the collection formats users already have.

Each reader turns a source file into ``ParsedDialogue`` records and raises ``InputError``
naming the file, the record (dialogue id) and the field on bad input. Readers check the
shape of their format; ``annotator.services.imports`` checks the values against the
project's criteria and writes everything in one transaction.
"""

from .base import InputError, ParsedCandidate, ParsedDialogue, ParsedGoldCount, ParsedJudgement, ParsedPost
from .detect import FORMATS, detect_format, read_sources

__all__ = [
    "FORMATS",
    "InputError",
    "ParsedCandidate",
    "ParsedDialogue",
    "ParsedGoldCount",
    "ParsedJudgement",
    "ParsedPost",
    "detect_format",
    "read_sources",
]
