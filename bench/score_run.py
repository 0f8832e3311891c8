"""Score one run against the STC-3 Chinese training set (3,700 dialogues) and compute all its agreement statistics.

The run is a random submission over every dialogue (seeded). Both the vectorised library and a
straightforward per-dialogue pure-Python scorer (tests/reference_scoring.py) score it in this
process; the script checks they agree and prints both times and their ratio. Targets: library
scoring < 0.2 s and >= 30x faster; all agreement statistics < 0.5 s. No database is involved.

    .venv/bin/python bench/score_run.py
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import numpy as np
from _setup import extract


def best_of(fn, repeat: int = 5) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - started)
    return best, result


def main() -> None:
    from scoring.agreement import (
        agreement_shares,
        annotator_z_scores,
        fleiss_kappa,
        krippendorff_alpha_from_counts,
        pearson_inter_rater,
        randolph_kappa,
    )
    from scoring.run_files import read_stc3_run
    from scoring.runs import neglog2, nugget_dialogue_scores, quality_scores
    from tests.reference_scoring import CUSTOMER, HELPDESK, QUALITY_SCALE, gold_of, random_stc3_run, score_stc3

    with tempfile.TemporaryDirectory() as tmp:
        path = extract("stc3.zip", "stc3/train_data_cn.json", Path(tmp))
        dialogues = json.loads(path.read_text(encoding="utf-8"))
    run = random_stc3_run(dialogues, seed=7)
    gold = gold_of(dialogues)
    ids = [d["id"] for d in dialogues]

    # Gold arrays (what annotator.selectors.judgement_arrays gives the library from the database).
    quality_counts = {k: np.array([gold[i]["quality"][k] for i in ids]) for k in "ASE"}
    customer_gold = np.array([c for i in ids for s, c in gold[i]["turns"] if s == "customer"])
    helpdesk_gold = np.array([c for i in ids for s, c in gold[i]["turns"] if s == "helpdesk"])
    gold_turns = {i: [s for s, _c in gold[i]["turns"]] for i in ids}

    raw = json.dumps(run)
    parse_time, parsed = best_of(
        lambda: read_stc3_run(
            raw,
            source="run.json",
            gold_turns=gold_turns,
            quality_scale=QUALITY_SCALE,
            quality_keys=list("ASE"),
            customer_labels=CUSTOMER,
            helpdesk_labels=HELPDESK,
        ),
        repeat=3,
    )

    def library():
        out = {}
        for key in "ASE":
            positions, estimates = parsed.quality[key]
            scores = quality_scores(estimates, quality_counts[key][positions])
            out[key] = {m: float(v.mean()) for m, v in scores.items()}
        nug = nugget_dialogue_scores(
            parsed.customer.p,
            customer_gold,
            parsed.customer.dialogue,
            parsed.helpdesk.p,
            helpdesk_gold,
            parsed.helpdesk.dialogue,
            len(parsed.dialogues),
        )
        out["nugget"] = {m: float(v.mean()) for m, v in nug.items()}
        out["neglog2"] = {m: float(neglog2(v)) for m, v in out["nugget"].items()}
        return out

    library_time, ours = best_of(library)
    reference_time, theirs = best_of(lambda: score_stc3(run, gold), repeat=1)
    for key in "ASE":
        for m in ("rsnod", "nmd"):
            assert abs(ours[key][m] - theirs["quality"][key][m]) < 1e-9, (key, m)
    for m in ("rnss", "jsd"):
        assert abs(ours["nugget"][m] - theirs["nugget"][m]) < 1e-9, m

    # Agreement: reliability data of 19 annotators (annotation positions) x units.
    ratings = {
        k: np.array([[d["annotations"][a]["quality"][k] for d in dialogues] for a in range(19)], dtype=float)
        for k in "ASE"
    }

    def agreement():
        out = {}
        for key, counts in list(quality_counts.items()) + [("customer", customer_gold), ("helpdesk", helpdesk_gold)]:
            shares = agreement_shares(counts)
            out[key] = {
                "fleiss": fleiss_kappa(counts),
                "randolph": randolph_kappa(counts),
                "alpha": {
                    lvl: krippendorff_alpha_from_counts(
                        counts, lvl, values=None if key in ("customer", "helpdesk") else [-2, -1, 0, 1, 2]
                    )
                    for lvl in (("nominal",) if key in ("customer", "helpdesk") else ("nominal", "ordinal", "interval"))
                },
                "agree_2plus": shares.agree_2plus,
                "agree_all": shares.agree_all,
            }
            if key in ratings:
                r = pearson_inter_rater(ratings[key])
                out[key]["pearson"] = (r.mean, r.std)
                out[key]["z"] = annotator_z_scores(ratings[key])
        nugget_all = np.zeros((len(customer_gold) + len(helpdesk_gold), 7))
        nugget_all[: len(customer_gold), :4] = customer_gold
        nugget_all[len(customer_gold) :, 4:] = helpdesk_gold
        out["nugget"] = {"fleiss": fleiss_kappa(nugget_all), "alpha": krippendorff_alpha_from_counts(nugget_all)}
        return out

    agreement_time, stats = best_of(agreement)
    print(f"dialogues                       {len(dialogues)}")
    print(f"turns (customer + helpdesk)     {len(customer_gold)} + {len(helpdesk_gold)}")
    print(f"run file parse + validate       {parse_time:.3f} s")
    print(f"library scoring                 {library_time * 1000:.1f} ms   (target < 200 ms)")
    print(f"straightforward per-dialogue    {reference_time * 1000:.1f} ms")
    print(f"speed-up                        {reference_time / library_time:.0f}x   (target >= 30x)")
    print(f"all agreement statistics        {agreement_time * 1000:.1f} ms   (target < 500 ms)")
    print(
        f"scores agree with the reference to 1e-9; e.g. A RSNOD {ours['A']['rsnod']:.4f}, "
        f"nugget RNSS {ours['nugget']['rnss']:.4f}; A Fleiss {stats['A']['fleiss']:.4f}"
    )


if __name__ == "__main__":
    main()
