"""Pairwise comparisons as JSON lines: one item per line, a context and two systems' candidate responses.

``{"id", "context": [{"speaker", "text"}], "candidates": [{"system", "text"}, {"system", "text"}],
"annotations": [{"annotator", "winner": <system> | "tie" | "both_bad", "shown_first": <system>}]}``

``annotations`` (optional) are votes already collected; each may name its ``criterion`` (default
``overall``), and its other fields are kept for the export. Optional per item: ``language`` and ``meta``
(any object, kept). A winner is stored in system terms: ``a`` for the first candidate's system, ``b`` for
the second's, whatever order an annotator saw them in (``shown_first``, also stored as ``a``/``b``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from annotator.presets import A_BETTER, B_BETTER, BOTH_BAD, TIE
from scoring.errors import N_
from scoring.input import Record, read_json_lines

from .base import ParsedCandidate, ParsedDialogue, ParsedJudgement, ParsedPost

DEFAULT_CRITERION = "overall"
OUTCOME_WORDS = (TIE, BOTH_BAD)  # winners that are not a system
ANNOTATION_KEYS = ("annotator", "winner", "shown_first", "criterion")


def read_pairwise(path: Path, *, display: str, language: str) -> Iterator[ParsedDialogue]:
    with open(path, "rb") as fh:
        for line, record in read_json_lines(fh, display):
            yield parse_pairwise_item(line, record, language=language)


def is_pairwise_record(record) -> bool:
    """Whether a JSON lines record is a comparison (it has candidates), not a plain dialogue."""
    return isinstance(record, dict) and "candidates" in record


def _candidates(at: Record, record: dict) -> list[ParsedCandidate]:
    listed = at.field(record, "candidates", list)
    if len(listed) != 2:
        raise at.error(N_("has %(n)s candidates; a comparison has exactly two"), "candidates", n=len(listed))
    candidates = []
    for c, candidate in enumerate(listed):
        where = f"candidates[{c}]"
        system = at.text(candidate, "system", where, non_empty=True)
        if system in OUTCOME_WORDS:
            raise at.error(
                N_("%(system)s cannot name a system: it is a winner of its own (a tie or both bad)"),
                f"{where}.system",
                system=repr(system),
            )
        candidates.append(ParsedCandidate(system=system, text=at.text(candidate, "text", where)))
    if candidates[0].system == candidates[1].system:
        raise at.error(
            N_("both candidates are by system %(system)s; a comparison is of two systems"),
            "candidates[1].system",
            system=repr(candidates[0].system),
        )
    return candidates


def _annotations(at: Record, record: dict, candidates: list[ParsedCandidate]) -> list[ParsedJudgement]:
    slot_of = {candidates[0].system: A_BETTER, candidates[1].system: B_BETTER}
    systems = ", ".join(repr(c.system) for c in candidates)
    judgements = []
    for k, annotation in enumerate(at.field(record, "annotations", list, optional=True) or []):
        where = f"annotations[{k}]"
        annotator = at.text(annotation, "annotator", where, non_empty=True)
        winner = at.field(annotation, "winner", str, where)
        value = slot_of.get(winner, winner if winner in OUTCOME_WORDS else None)
        if value is None:
            raise at.error(
                N_("%(winner)s is neither a candidate's system (%(systems)s) nor tie or both_bad"),
                f"{where}.winner",
                winner=repr(winner[:40]),
                systems=systems,
            )
        shown = at.field(annotation, "shown_first", str, where, optional=True)
        if shown is not None and shown not in slot_of:
            raise at.error(
                N_("%(shown)s is not a candidate's system (%(systems)s)"),
                f"{where}.shown_first",
                shown=repr(shown[:40]),
                systems=systems,
            )
        criterion = at.field(annotation, "criterion", str, where, optional=True)
        extra = {key: v for key, v in annotation.items() if key not in ANNOTATION_KEYS}
        judgements.append(
            ParsedJudgement(
                annotator=annotator,
                criterion=DEFAULT_CRITERION if criterion is None else criterion,
                unit=0,
                value=value,
                field=f"{where}.winner",
                extra={"fields": extra, "criterion_given": criterion is not None} if extra or criterion else None,
                shown_first=slot_of[shown] if shown is not None else "",
            )
        )
    return judgements


def parse_pairwise_item(line: Record, record, *, language: str) -> ParsedDialogue:
    """One line's comparison; errors name the line until the item's id is read, then the item and its line."""
    item_id = line.field(record, "id", (str, int))
    at = line.at(f"{item_id} ({line.id})")
    context = at.field(record, "context", list)
    if not context:
        raise at.error(N_("has no turns: a comparison needs the conversation its responses answer"), "context")
    posts = []
    for t, turn in enumerate(context):
        speaker = at.text(turn, "speaker", f"context[{t}]", non_empty=True)
        posts.append(ParsedPost(speaker=speaker, text=at.text(turn, "text", f"context[{t}]"), source_turn_index=t))
    candidates = _candidates(at, record)
    meta = {"format": "pairwise", "id_type": type(item_id).__name__}
    if "meta" in record:
        meta["meta"] = at.field(record, "meta", dict)
    if "language" in record:
        meta["language_given"] = True
    return ParsedDialogue(
        file=line.file,
        external_id=str(item_id),
        posts=posts,
        language=at.field(record, "language", str) if "language" in record else language,
        source_meta=meta,
        judgements=_annotations(at, record, candidates),
        candidates=candidates,
    )
