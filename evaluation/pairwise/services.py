"""The statistics payload's ``bradley_terry`` part for comparison projects: per criterion, the systems ranked
by Bradley-Terry with bootstrap and sandwich intervals, the style-controlled ranking, position bias,
intransitive triads, the win matrix and the vote-dropping figure (``scoring.pairwise.pairwise_summary``),
and the collection's state under the stop rule (``annotator.pairwise.selectors.collection_status``)."""

from __future__ import annotations

from annotator.models import Project
from annotator.pairwise.selectors import collection_status, comparison_vote_records, pairwise_settings
from scoring.pairwise import PairwiseVotes, pairwise_summary

BOOTSTRAP_RESAMPLES = 1000
SEED = 0  # the same votes give the same intervals


def bradley_terry_summary(project: Project) -> dict:
    """criterion key -> ``pairwise_summary`` with ``"collection"`` (the stop rule's state), for the criteria
    with votes on at least two systems."""
    ties = pairwise_settings(project).ties
    result = {}
    records = comparison_vote_records(project)
    first = next(iter(records), None)
    for key, rows in records.items():
        systems = {r[side] for r in rows for side in ("a", "b")}
        if len(systems) < 2:
            continue
        summary = pairwise_summary(
            PairwiseVotes.from_records(rows), ties=ties, n_resamples=BOOTSTRAP_RESAMPLES, seed=SEED
        )
        if key == first:
            summary["collection"] = collection_status(project, rows)
        result[key] = summary
    return result
