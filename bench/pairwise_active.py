"""Votes needed to separate a ranking: active choice of pairs against uniform choice.

Three strategies: scoring.pairwise.next_pairs with rule="intervals" (the default: expected narrowing of the
overlapping adjacent intervals), with rule="chiang" (Chiang et al. 2024, section 5, as published), and
uniformly random pairs. Systems with known strengths (log-odds, evenly spaced by --gap) are compared in
batches of --batch votes, or --growth (5 %) of the votes so far if more (so the stopping point is
known to within that share);
after each batch the Bradley-Terry sandwich intervals are refitted and collection stops when every two
adjacent systems' intervals are apart (scoring.pairwise.collection_state "separated") or the budget is
spent. Each strategy runs --replays times on the same seeds; the bench prints JSON lines: one per
strategy (median votes to separation, the share of replays that separated, the share whose separated
ranking was the true one), one comparing them, and one timing our Bradley-Terry fit against choix's
(if installed) on the same votes.

    .venv/bin/python bench/pairwise_active.py
    .venv/bin/python bench/pairwise_active.py --systems 5 --replays 3 --budget 4000   # the suite's slice
"""

from __future__ import annotations

import argparse
import json
import time

import _setup  # noqa: F401  (puts the project on sys.path)
import numpy as np


def simulate_votes(rng, strength, pairs):

    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    swap = rng.random(len(pairs)) < 0.5  # which system is candidate a: random, as in a real collection
    a = np.where(swap, pairs[:, 1], pairs[:, 0])
    b = np.where(swap, pairs[:, 0], pairs[:, 1])
    outcome = (rng.random(len(pairs)) < 1 / (1 + np.exp(strength[b] - strength[a]))).astype(float)
    return a, b, outcome


def strengths(n_systems, gap, spacing):
    """Centred log-strengths, best first: adjacent gaps all ``gap`` or alternately gap/2 and 2 gap."""
    gaps = (
        np.full(n_systems - 1, gap) if spacing == "even" else np.where(np.arange(n_systems - 1) % 2, 2 * gap, gap / 2)
    )
    strength = -np.concatenate([[0.0], np.cumsum(gaps)])
    return strength - strength.mean()


def collect(strategy, strength, seed, batch, budget, level, growth=0.05):
    """Votes until separation (or the budget); returns (votes used, separated, ranking correct)."""
    from scoring.pairwise import PairwiseVotes, collection_state, next_pairs, sandwich_intervals

    rng = np.random.default_rng(seed)
    s = len(strength)
    names = tuple(f"s{i}" for i in range(s))
    a = np.zeros(0, dtype=np.int64)
    b = np.zeros(0, dtype=np.int64)
    y = np.zeros(0)
    all_pairs = np.column_stack(np.triu_indices(s, 1))
    while True:
        votes = PairwiseVotes(names, a, b, y, None, None, None, None)
        size = min(max(batch, int(growth * votes.n)), budget - votes.n)
        if strategy != "uniform":
            pairs = next_pairs(votes, s, k=size, level=level, rule=strategy)
        else:
            pairs = all_pairs[rng.integers(0, len(all_pairs), size)]
        na, nb, ny = simulate_votes(rng, strength, pairs)
        a, b, y = np.concatenate([a, na]), np.concatenate([b, nb]), np.concatenate([y, ny])
        votes = PairwiseVotes(names, a, b, y, None, None, None, None)
        if len(np.unique(np.concatenate([a, b]))) < s:
            continue
        intervals = sandwich_intervals(votes, level=level)
        state = collection_state(intervals, votes.n, budget, votes=votes)
        if state["state"] != "collecting":
            correct = bool((np.argsort(-intervals.scores) == np.argsort(-strength)).all())
            return votes.n, state["state"] == "separated", correct


def time_fits(strength, n_votes, seed):
    from scoring.pairwise import PairwiseVotes, bradley_terry

    rng = np.random.default_rng(seed)
    s = len(strength)
    pairs = np.column_stack([rng.integers(0, s, n_votes), rng.integers(0, s, n_votes)])
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    a, b, y = simulate_votes(rng, strength, pairs)
    votes = PairwiseVotes(tuple(map(str, range(s))), a, b, y, None, None, None, None)
    started = time.perf_counter()
    ours = bradley_terry(votes, ridge=0.0).scores
    ours_time = time.perf_counter() - started
    line = {"bench": "bt_fit_time", "systems": s, "votes": votes.n, "ours_s": round(ours_time, 4)}
    try:
        import choix
    except ImportError:
        return line
    data = [(int(p), int(q)) if v == 1 else (int(q), int(p)) for p, q, v in zip(a, b, y, strict=True)]
    started = time.perf_counter()
    theirs = choix.opt_pairwise(s, data, alpha=0.0, tol=1e-12)
    choix_time = time.perf_counter() - started
    line.update(
        choix_opt_pairwise_s=round(choix_time, 4),
        speedup=round(choix_time / max(ours_time, 1e-9), 1),
        max_abs_diff=float(np.abs(ours - (theirs - theirs.mean())).max()),
    )
    return line


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=8)
    parser.add_argument("--gap", type=float, default=0.3, help="log-odds between adjacent systems")
    parser.add_argument(
        "--spacing",
        choices=("uneven", "even"),
        default="uneven",
        help="adjacent gaps alternate gap/2 and 2 gap (uneven: some pairs are easy, some hard) or all equal gap",
    )
    parser.add_argument("--replays", type=int, default=15)
    parser.add_argument("--batch", type=int, default=20, help="votes between refits")
    parser.add_argument("--growth", type=float, default=0.05, help="batch as a share of the votes so far")
    parser.add_argument("--budget", type=int, default=40_000)
    parser.add_argument("--level", type=float, default=0.95)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fit-votes", type=int, default=20_000, help="votes in the fit-time comparison")
    args = parser.parse_args(argv)
    strength = strengths(args.systems, args.gap, args.spacing)
    lines = []
    medians = {}
    for strategy in ("intervals", "chiang", "uniform"):
        started = time.perf_counter()
        runs = [
            collect(strategy, strength, args.seed + r, args.batch, args.budget, args.level, args.growth)
            for r in range(args.replays)
        ]
        used = np.array([r[0] for r in runs])
        medians[strategy] = float(np.median(used))
        lines.append(
            {
                "bench": "pairwise_active",
                "strategy": strategy,
                "systems": args.systems,
                "gap": args.gap,
                "spacing": args.spacing,
                "replays": args.replays,
                "batch": args.batch,
                "budget": args.budget,
                "median_votes": medians[strategy],
                "votes": used.tolist(),
                "separated_share": float(np.mean([r[1] for r in runs])),
                "correct_ranking_share": float(np.mean([r[2] for r in runs])),
                "seconds": round(time.perf_counter() - started, 2),
            }
        )
    lines.append(
        {
            "bench": "pairwise_active_vs_uniform",
            "intervals_median_votes": medians["intervals"],
            "chiang_median_votes": medians["chiang"],
            "uniform_median_votes": medians["uniform"],
            "intervals_votes_saved_share": round(1 - medians["intervals"] / medians["uniform"], 3),
            "chiang_votes_saved_share": round(1 - medians["chiang"] / medians["uniform"], 3),
        }
    )
    lines.append(time_fits(strength, args.fit_votes, args.seed))
    for line in lines:
        print(json.dumps(line), flush=True)
    return lines


if __name__ == "__main__":
    main()
