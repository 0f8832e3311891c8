"""A straightforward per-dialogue, pure-Python scorer for STC-3 runs, written from the formulas.

Used as the independent check of the vectorised library in tests and as the baseline of
bench/score_run.py.
"""

from __future__ import annotations

import math

QUALITY_SCALE = ["-2", "-1", "0", "1", "2"]
CUSTOMER = ["CNUG0", "CNUG", "CNUG*", "CNaN"]
HELPDESK = ["HNUG", "HNUG*", "HNaN"]


def normalise(xs):
    total = sum(xs)
    return [x / total for x in xs]


def rnss(p, q):
    return math.sqrt(sum((a - b) ** 2 for a, b in zip(p, q)) / 2)


def jsd(p, q):
    m = [(a + b) / 2 for a, b in zip(p, q)]
    kl = lambda x: sum(a * math.log2(a / c) for a, c in zip(x, m) if a > 0)
    return (kl(p) + kl(q)) / 2


def od(p, q):
    support = [i for i, x in enumerate(q) if x > 0]
    return sum(sum(abs(i - j) * (p[j] - q[j]) ** 2 for j in range(len(p))) for i in support) / len(support)


def rsnod(p, q):
    return math.sqrt((od(p, q) + od(q, p)) / 2 / (len(p) - 1))


def nmd(p, q):
    cp = cq = total = 0.0
    for a, b in zip(p, q):
        cp += a
        cq += b
        total += abs(cp - cq)
    return total / (len(p) - 1)


def gold_of(dialogues: list[dict]) -> dict[str, dict]:
    """Per dialogue id: quality label counts per criterion and (sender, label counts) per turn."""
    gold = {}
    for d in dialogues:
        quality = {k: [[str(a["quality"][k]) for a in d["annotations"]].count(v) for v in QUALITY_SCALE] for k in "ASE"}
        turns = []
        for t, turn in enumerate(d["turns"]):
            scale = CUSTOMER if turn["sender"] == "customer" else HELPDESK
            labels = [a["nugget"][t] for a in d["annotations"]]
            turns.append((turn["sender"], [labels.count(v) for v in scale]))
        gold[d["id"]] = {"quality": quality, "turns": turns}
    return gold


def score_stc3(run: list[dict], gold: dict[str, dict], alpha: float = 0.5) -> dict:
    """Score ``run`` dialogue by dialogue; ``gold`` comes from ``gold_of``."""
    quality = {k: {"rsnod": [], "nmd": []} for k in "ASE"}
    nugget = {"rnss": [], "jsd": []}
    for record in run:
        d = gold[record["id"]]
        for key, estimate in record.get("quality", {}).items():
            q = normalise(d["quality"][key])
            p = normalise([estimate.get(v, 0.0) for v in QUALITY_SCALE])
            quality[key]["rsnod"].append(rsnod(p, q))
            quality[key]["nmd"].append(nmd(p, q))
        if "nugget" in record:
            per = {"rnss": {"customer": [], "helpdesk": []}, "jsd": {"customer": [], "helpdesk": []}}
            for (sender, counts), estimate in zip(d["turns"], record["nugget"]):
                scale = CUSTOMER if sender == "customer" else HELPDESK
                q = normalise(counts)
                p = normalise([estimate.get(v, 0.0) for v in scale])
                per["rnss"][sender].append(rnss(p, q))
                per["jsd"][sender].append(jsd(p, q))
            for name in ("rnss", "jsd"):
                c, h = per[name]["customer"], per[name]["helpdesk"]
                if c and h:
                    nugget[name].append(alpha * sum(c) / len(c) + (1 - alpha) * sum(h) / len(h))
                else:
                    side = c or h
                    nugget[name].append(sum(side) / len(side))
    mean = lambda xs: sum(xs) / len(xs)
    return {
        "quality": {k: {m: mean(v) for m, v in ms.items()} for k, ms in quality.items() if ms["rsnod"]},
        "nugget": {k: mean(v) for k, v in nugget.items()},
    }


def random_stc3_run(dialogues: list[dict], seed: int = 0) -> list[dict]:
    import random

    rng = random.Random(seed)

    def distribution(labels) -> dict:
        """Random probabilities over ``labels`` that sum to 1, as a run file must give them."""
        weights = {v: rng.random() for v in labels}
        total = sum(weights.values())
        return {v: w / total for v, w in weights.items()}

    run = []
    for d in dialogues:
        record = {
            "id": d["id"],
            "quality": {k: distribution(QUALITY_SCALE) for k in "ASE"},
            "nugget": [distribution(CUSTOMER if t["sender"] == "customer" else HELPDESK) for t in d["turns"]],
        }
        run.append(record)
    return run
