"""Generated comparison data for the pairwise tests: items between systems of known strengths, with votes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

SYSTEMS = ["alpha", "bravo", "charlie", "delta"]
STRENGTHS = {"alpha": 1.2, "bravo": 0.4, "charlie": -0.3, "delta": -1.3}


def pairwise_items(n: int, *, votes: int = 0, seed: int = 0, systems=SYSTEMS, prefix: str = "c") -> list[dict]:
    """``n`` comparison items cycling over the system pairs; with ``votes``, that many annotations each, drawn
    from a Bradley-Terry model with ``STRENGTHS`` (and a tie now and then), the shown order alternating."""
    rng = np.random.default_rng(seed)
    pairs = [(a, b) for i, a in enumerate(systems) for b in systems[i + 1 :]]
    items = []
    for i in range(n):
        a, b = pairs[i % len(pairs)]
        if i % 2:
            a, b = b, a
        item = {
            "id": f"{prefix}{i + 1}",
            "context": [
                {"speaker": "user", "text": f"Question number {i + 1}: what should I cook tonight?"},
                {"speaker": "assistant", "text": "Do you have any ingredients in mind?"},
                {"speaker": "user", "text": "Rice and some vegetables."},
            ],
            "candidates": [
                {"system": a, "text": f"{a}: a vegetable fried rice" + " with garlic" * int(rng.integers(0, 4))},
                {"system": b, "text": f"{b}: rice bowl" + " and a fried egg" * int(rng.integers(0, 4))},
            ],
        }
        if votes:
            p_a = 1 / (1 + np.exp(STRENGTHS[b] - STRENGTHS[a]))
            annotations = []
            for k in range(votes):
                u = rng.random()
                winner = "tie" if u < 0.1 else (a if rng.random() < p_a else b)
                annotations.append({"annotator": f"src{k + 1}", "winner": winner, "shown_first": (a, b)[k % 2]})
            item["annotations"] = annotations
        items.append(item)
    return items


def write_lines(path: Path, items: list[dict]) -> Path:
    path.write_text("".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items), encoding="utf-8")
    return path


def read_lines(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]
