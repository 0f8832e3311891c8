"""NLPCC 2019 open-domain conversation evaluation scores (Shan et al. 2019).

Single turn: each reply is judged by yes/no questions, two per aspect, one point per yes (for
Syntax, one point for *no* severe error):

    Syntax                  = no severe error + not vague or ambiguous
    Content Expression      = natural (not stiff written style) + appropriate amount of information
    Emotional Expression    = subjective attitude or clear emotion + makes the reader happy or sad
    Topic Divergence        = new content or entities + can start a new round
    Contextual Association  = entities related to the context + continues the topic

An aspect's score is points / (items x 2 x annotators) x 100; the total is their sum (max 500).

Multi-turn: per turn, Logical Association (0-2) and Conversation Trigger (0-2), plus 2 points
per turn held and 2 per turn on the initial topic; at most five turns, so at most 40 per topic.

References
----------
Shan, Y., et al. (2019). Overview of the NLPCC 2019 shared task: open domain conversation
evaluation (``shan2019_nlpcc_open_domain_eval.txt``), sections 3 and 5.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

ASPECTS = ("syntax", "content_expression", "emotional_expression", "topic_divergence", "contextual_association")
SEVERE_ERROR = "severe_error"


def single_turn_scores(
    yes_counts: Mapping[str, np.ndarray], n_annotators, aspects: Mapping[str, str]
) -> dict[str, float]:
    """Aspect scores (0-100) and the total (0-500) of one system's replies.

    ``yes_counts[question]``: per reply, how many annotators answered yes; ``n_annotators``: per
    reply (or one number); ``aspects``: question key -> aspect (the severe-error question counts
    for Syntax as "no" answers).

    Parameters
    ----------
    yes_counts : mapping of str to array-like of int, shape (n_replies,)
        Per question key, how many annotators answered yes to each reply.
    n_annotators : int or array-like of int, shape (n_replies,)
        Annotators per reply.
    aspects : mapping of str to str
        Question key -> aspect.

    Examples
    --------
    >>> q = {"severe_error": [0, 1], "not_ambiguous": [3, 2]}
    >>> single_turn_scores(q, 3, {"not_ambiguous": "syntax"})["syntax"]
    83.33333333333334
    """
    n = None
    points = dict.fromkeys(ASPECTS, 0.0)
    for question, counts in yes_counts.items():
        counts = np.asarray(counts, dtype=float)
        annotators = np.broadcast_to(np.asarray(n_annotators, dtype=float), counts.shape)
        if (counts < 0).any() or (counts > annotators).any():
            raise ValueError(f"yes counts of {question!r} must lie between 0 and the number of annotators")
        n = annotators.sum()
        if question == SEVERE_ERROR:
            points["syntax"] += (annotators - counts).sum()
        elif question in aspects:
            points[aspects[question]] += counts.sum()
        else:
            raise ValueError(f"question {question!r} belongs to no aspect")
    if not n:
        raise ValueError("no judged replies")
    scores = {aspect: float(p / (n * 2) * 100) for aspect, p in points.items()}
    scores["total"] = float(sum(scores[a] for a in ASPECTS))
    return scores


def multi_turn_scores(logical_association, conversation_trigger, on_topic) -> np.ndarray:
    """Score per topic (max 40): per turn LA (0-2) + CT (0-2) + 2 for the turn + 2 if on topic.

    Arrays are topics x turns (at most 5 turns), NaN where the conversation had ended.

    Parameters
    ----------
    logical_association, conversation_trigger : array-like, shape (n_topics, n_turns)
        Per turn 0-2, NaN after the conversation ended.
    on_topic : array-like, shape (n_topics, n_turns)
        Per turn 0 or 1, NaN after the conversation ended.

    Returns
    -------
    ndarray, shape (n_topics,)

    Examples
    --------
    >>> multi_turn_scores([[2, 1, np.nan]], [[2, 0, np.nan]], [[1, 0, np.nan]]).tolist()
    [11.0]
    """
    la, ct = np.asarray(logical_association, dtype=float), np.asarray(conversation_trigger, dtype=float)
    topical = np.asarray(on_topic, dtype=float)
    if not la.shape == ct.shape == topical.shape or la.ndim != 2 or la.shape[1] > 5:
        raise ValueError("the three arrays must be topics x turns with at most 5 turns")
    held = ~np.isnan(la)
    if (np.isnan(ct) != ~held).any() or (np.isnan(topical) != ~held).any():
        raise ValueError("every turn held needs all three judgements")
    for name, x, top in (("logical association", la, 2), ("conversation trigger", ct, 2), ("on topic", topical, 1)):
        if ((x[held] < 0) | (x[held] > top)).any():
            raise ValueError(f"{name} must lie between 0 and {top}")
    return np.nansum(la, axis=1) + np.nansum(ct, axis=1) + 2 * held.sum(axis=1) + 2 * np.nansum(topical, axis=1)
