"""UCH: a nugget-based measure of customer-helpdesk dialogues (Zeng et al. 2017).

A nugget is a maximal run of consecutive posts by one speaker that one annotator gave the same
nugget label (not NaN). Its position ``pos`` is the offset, in characters, from the start of
the dialogue to the end of the nugget; the decay is D(pos) = max(0, 1 - pos / L) with the
patience L (by default the length of the longest dialogue of the collection). Non-goal nuggets
(CNUG0, CNUG, HNUG) gain 1; a goal nugget (CNUG*, HNUG*) gains 1 + the sum of the gains of that
speaker's non-goal nuggets.

    UC  = sum over customer nuggets c of g(c) D(pos(c))
    UH  = sum over helpdesk nuggets h of g(h) D(pos(h))
    UCH = (1 - a) UC + a UH            (a weights the helpdesk; default 0.5)

References
----------
Zeng, Z., Luo, C., Shang, L., Li, H., Sakai, T. (2017). Test collections and measures for
evaluating customer-helpdesk dialogues. EVIA 2017 (``zeng2017_dch1_uch.txt``), Eqs. 1-4.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

GOAL_LABELS = frozenset({"CNUG*", "HNUG*"})
NOT_NUGGET = frozenset({"NaN", "CNaN", "HNaN", "", None})
CUSTOMER, HELPDESK = "customer", "helpdesk"


@dataclass(frozen=True)
class Nugget:
    speaker: str
    label: str
    first_post: int
    last_post: int
    pos: int


def nuggets(speakers: Sequence[str], labels: Sequence[str | None], lengths: Sequence[int]) -> list[Nugget]:
    """One annotator's nuggets: maximal runs of posts by one speaker with one non-NaN label.

    Parameters
    ----------
    speakers : sequence of str, length n_posts
        The speaker of each post, in dialogue order.
    labels : sequence of str or None, length n_posts
        The annotator's label of each post ("NaN", "", None: not a nugget).
    lengths : sequence of int, length n_posts
        Each post's length in characters (a nugget's ``pos`` is where its last post ends).

    Examples
    --------
    >>> found = nuggets("cchh", ["CNUG0", "CNUG0", "NaN", "HNUG*"], [3, 2, 4, 5])
    >>> [(n.label, n.first_post, n.last_post, n.pos) for n in found]
    [('CNUG0', 0, 1, 5), ('HNUG*', 3, 3, 14)]
    """
    if not len(speakers) == len(labels) == len(lengths):
        raise ValueError(f"{len(speakers)} speakers, {len(labels)} labels and {len(lengths)} lengths must match")
    ends = np.cumsum(lengths)
    out: list[Nugget] = []
    start = None
    for i, (speaker, label) in enumerate(zip(speakers, labels)):
        if label is None or label in NOT_NUGGET:
            start = None
            continue
        if start is not None and speakers[start] == speaker and labels[start] == label:
            out[-1] = Nugget(speaker, label, start, i, int(ends[i]))
        else:
            start = i
            out.append(Nugget(speaker, label, i, i, int(ends[i])))
    return out


@dataclass(frozen=True)
class UCHScore:
    uc: float
    uh: float
    uch: float


def uch(found: Sequence[Nugget], patience: float, helpdesk_weight: float = 0.5) -> UCHScore:
    """UC, UH and UCH of one annotator's nuggets (Zeng et al. 2017, Eqs. 1-4).

    Parameters
    ----------
    found : sequence of Nugget
        One annotator's nuggets of one dialogue (``nuggets``).
    patience : float
        L, the characters after which a nugget is worth nothing.
    helpdesk_weight : float
        The weight of UH in UCH = (1 - w) UC + w UH, in [0, 1].

    Examples
    --------
    >>> speakers = ["customer", "customer", "helpdesk", "helpdesk"]
    >>> s = uch(nuggets(speakers, ["CNUG0", "CNUG0", "NaN", "HNUG*"], [3, 2, 4, 5]), patience=20)
    >>> round(s.uc, 4), round(s.uh, 4), round(s.uch, 4)
    (0.75, 0.3, 0.525)
    """
    if patience <= 0:
        raise ValueError("the patience L must be positive")
    if not 0 <= helpdesk_weight <= 1:
        raise ValueError("the helpdesk weight must be in [0, 1]")
    unknown = {n.speaker for n in found} - {CUSTOMER, HELPDESK}
    if unknown:
        raise ValueError(f"UCH needs customer and helpdesk nuggets, got speakers {sorted(unknown)}")
    totals = {}
    for side in (CUSTOMER, HELPDESK):
        mine = [n for n in found if n.speaker == side]
        regular = sum(1 for n in mine if n.label not in GOAL_LABELS)
        totals[side] = sum(
            (1 + regular if n.label in GOAL_LABELS else 1) * max(0.0, 1 - n.pos / patience) for n in mine
        )
    score = (1 - helpdesk_weight) * totals[CUSTOMER] + helpdesk_weight * totals[HELPDESK]
    return UCHScore(totals[CUSTOMER], totals[HELPDESK], score)


def auch(speakers, labels_per_annotator, lengths, patience: float, helpdesk_weight: float = 0.5) -> float:
    """Average UCH: UCH per annotator, averaged over annotators.

    Parameters
    ----------
    speakers : sequence of str, length n_posts
    labels_per_annotator : sequence of sequences of str or None, shape (n_annotators, n_posts)
        Each annotator's label of each post.
    lengths : sequence of int, length n_posts
    patience : float
    helpdesk_weight : float
        As in ``uch``.

    Examples
    --------
    >>> speakers = ["customer", "customer", "helpdesk", "helpdesk"]
    >>> labels = [["CNUG0", "CNUG0", "NaN", "HNUG*"], ["NaN", "NaN", "NaN", "NaN"]]
    >>> round(auch(speakers, labels, [3, 2, 4, 5], patience=20), 4)  # uch()'s example and 0, averaged
    0.2625
    """
    scores = [uch(nuggets(speakers, labels, lengths), patience, helpdesk_weight).uch for labels in labels_per_annotator]
    if not scores:
        raise ValueError("AUCH needs at least one annotator")
    return float(np.mean(scores))


def consolidated_labels(labels_per_annotator: Sequence[Sequence[str | None]]) -> list[str | None]:
    """Merge annotators' per-post labels: each post takes the label most annotators gave it.

    A nugget label beats "not a nugget" only with a strict plurality; ties between nugget labels
    go to the goal label, then to the label first given. The merged labels then form nuggets as
    for one annotator. This is how CUCH consolidates here (Zeng et al. name CUCH but do not
    specify the merge).

    Parameters
    ----------
    labels_per_annotator : sequence of sequences of str or None, shape (n_annotators, n_posts)
        Each annotator's label of each post.

    Examples
    --------
    >>> consolidated_labels([["CNUG0", "HNUG"], ["CNUG0", "NaN"], ["CNUG", "NaN"]])
    ['CNUG0', 'NaN']
    """
    merged = []
    for post_labels in zip(*labels_per_annotator):
        counts = Counter(post_labels)
        best = max(counts.items(), key=lambda kv: (kv[1], kv[0] not in NOT_NUGGET, kv[0] in GOAL_LABELS))
        merged.append(best[0])
    return merged


def cuch(speakers, labels_per_annotator, lengths, patience: float, helpdesk_weight: float = 0.5) -> float:
    """Consolidated UCH: UCH of the annotators' merged labels (see ``consolidated_labels``).

    Parameters
    ----------
    speakers : sequence of str, length n_posts
    labels_per_annotator : sequence of sequences of str or None, shape (n_annotators, n_posts)
    lengths : sequence of int, length n_posts
    patience : float
    helpdesk_weight : float
        As in ``uch``.

    Examples
    --------
    >>> speakers = ["customer", "customer", "helpdesk", "helpdesk"]
    >>> labels = [["CNUG0", "CNUG0", "NaN", "HNUG*"]] * 2 + [["NaN", "NaN", "NaN", "NaN"]]
    >>> round(cuch(speakers, labels, [3, 2, 4, 5], patience=20), 4)  # the majority's labels: uch()'s example
    0.525
    """
    merged = consolidated_labels(labels_per_annotator)
    return uch(nuggets(speakers, merged, lengths), patience, helpdesk_weight).uch


def uch_of_sequences(
    sequence: np.ndarray,
    speaker: np.ndarray,
    label: np.ndarray,
    ends: np.ndarray,
    *,
    speakers: Sequence[str],
    labels: Sequence[str],
    patience: float,
    helpdesk_weight: float = 0.5,
) -> np.ndarray:
    """UCH of many label sequences at once: ``uch(nuggets(...))`` of each, vectorised over all their posts.

    The posts of every sequence (one annotator's labels of one dialogue) are consecutive and in
    dialogue order: post ``i`` belongs to sequence ``sequence[i]`` (0, 1, ... non-decreasing), was
    written by ``speakers[speaker[i]]``, got ``labels[label[i]]`` (``label[i] = -1``: no label) and
    ends ``ends[i]`` characters into its dialogue. A nugget ends at a nuggety post whose successor
    does not continue it (same sequence, speaker and label); it gains 1, or for a goal label 1 plus
    the number of that speaker's regular nuggets in the sequence, decayed by max(0, 1 - pos / L)
    (Zeng et al. 2017, Eqs. 1-4). Returns one UCH per sequence. Three whole-array passes replace a
    Python loop per sequence: ten times STC-3 has 700,000 of them.

    Parameters
    ----------
    sequence, speaker, label : ndarray of int, shape (n_posts,)
        Per post: its sequence, its speaker's index in ``speakers``, its label's index in ``labels`` (-1: none).
    ends : ndarray of int, shape (n_posts,)
        Per post: where it ends, in characters from the start of its dialogue.
    speakers : sequence of str
        "customer" and "helpdesk", in the order ``speaker`` indexes them.
    labels : sequence of str
        The label names ``label`` indexes.
    patience : float
    helpdesk_weight : float
        As in ``uch``.

    Returns
    -------
    ndarray, shape (n_sequences,)

    Examples
    --------
    >>> C, H = 0, 1
    >>> s = uch_of_sequences(
    ...     np.array([0, 0, 0, 0, 1, 1]), np.array([C, C, H, H, C, H]), np.array([0, 0, -1, 1, 0, 1]),
    ...     np.array([3, 5, 9, 14, 10, 20]), speakers=["customer", "helpdesk"], labels=["CNUG0", "HNUG*"],
    ...     patience=20)
    >>> [round(float(x), 4) for x in s]  # the first is uch()'s example; the second: UC 1 - 10/20, UH 1 - 20/20
    [0.525, 0.25]
    """
    if patience <= 0:
        raise ValueError("the patience L must be positive")
    if not 0 <= helpdesk_weight <= 1:
        raise ValueError("the helpdesk weight must be in [0, 1]")
    sequence, speaker, label = (np.asarray(a, dtype=np.int64) for a in (sequence, speaker, label))
    n_sequences = int(sequence[-1]) + 1 if len(sequence) else 0
    nuggety = np.array([name not in NOT_NUGGET for name in labels] + [False])[label]  # label -1 -> the False
    goal = np.array([name in GOAL_LABELS for name in labels] + [False])[label]
    side_of = np.array([{CUSTOMER: 0, HELPDESK: 1}.get(name, -1) for name in speakers], dtype=np.int64)
    side = side_of[speaker] if len(speaker) else speaker
    if np.any(nuggety & (side < 0)):
        unknown = sorted({speakers[s] for s in np.unique(speaker[nuggety & (side < 0)])})
        raise ValueError(f"UCH needs customer and helpdesk nuggets, got speakers {unknown}")
    # post i continues the nugget of post i - 1: same sequence, speaker and label, both nuggety
    continues = np.zeros(len(label), dtype=bool)
    continues[1:] = (
        nuggety[1:]
        & nuggety[:-1]
        & (sequence[1:] == sequence[:-1])
        & (speaker[1:] == speaker[:-1])
        & (label[1:] == label[:-1])
    )
    last = nuggety & ~np.append(continues[1:], False)  # the post a nugget ends at
    where = sequence[last] * 2 + side[last]  # (sequence, side) of each nugget
    regular = np.bincount(where[~goal[last]], minlength=2 * n_sequences)
    gain = np.where(goal[last], 1 + regular[where], 1)
    decay = np.maximum(0.0, 1 - ends[last] / patience)
    totals = np.bincount(where, weights=gain * decay, minlength=2 * n_sequences).reshape(n_sequences, 2)
    return (1 - helpdesk_weight) * totals[:, 0] + helpdesk_weight * totals[:, 1]
