"""Saving an annotator's work: ``save`` (drafts, the submission, reopening), its ``checks``, the ``rows`` it
locks and writes, and the ``errors`` a refused save raises."""

from annotator.services.judgements.checks import reordering_problems
from annotator.services.judgements.errors import Conflict, ConflictError, Given, ItemClosed, SubmissionError
from annotator.services.judgements.save import assignment_reopen, judgements_save

__all__ = [
    "Conflict",
    "ConflictError",
    "Given",
    "ItemClosed",
    "SubmissionError",
    "assignment_reopen",
    "judgements_save",
    "reordering_problems",
]
