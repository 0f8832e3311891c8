"""Utterance blocks: maximal runs of consecutive posts by one speaker (Zeng et al. 2017, sec. 3.1)."""

from __future__ import annotations

from collections.abc import Sequence


def utterance_blocks(speakers: Sequence[str]) -> list[int]:
    """The block index of every post.

    >>> utterance_blocks(["customer", "customer", "helpdesk", "customer"])
    [0, 0, 1, 2]
    """
    blocks: list[int] = []
    for i, speaker in enumerate(speakers):
        if i == 0:
            blocks.append(0)
        else:
            blocks.append(blocks[-1] + (speaker != speakers[i - 1]))
    return blocks
