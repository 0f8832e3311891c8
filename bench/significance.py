"""Randomised Tukey HSD with B = 10,000 for 20 runs x 2,000 items, against a straightforward loop.

The loop version (scoring.significance.tukey_hsd_loop) runs on a smaller B; its time is scaled
to B = 10,000 for the ratio. Target: the vectorised test under 20 s. Also times the paired
bootstrap and ranking stability at the same size.

    .venv/bin/python bench/significance.py
"""

from __future__ import annotations

import time

import _setup  # noqa: F401  (puts the project on sys.path)
import numpy as np


def main() -> None:
    from scoring.significance import (
        discriminative_power,
        paired_bootstrap,
        ranking_stability,
        tukey_hsd,
        tukey_hsd_loop,
    )

    rng = np.random.default_rng(0)
    items, runs, trials, loop_trials = 2000, 20, 10_000, 200
    scores = rng.normal(size=(items, runs)) * 0.2 + np.linspace(0.4, 0.6, runs)
    started = time.perf_counter()
    p = tukey_hsd(scores, trials, seed=1)
    fast = time.perf_counter() - started
    started = time.perf_counter()
    tukey_hsd_loop(scores, loop_trials, seed=1)
    slow = (time.perf_counter() - started) * trials / loop_trials
    started = time.perf_counter()
    boot = paired_bootstrap(scores, trials, seed=1)
    bootstrap_time = time.perf_counter() - started
    started = time.perf_counter()
    stability = ranking_stability(scores, 0.2, 500, seed=1)
    stability_time = time.perf_counter() - started
    print(f"items x runs                      {items} x {runs}")
    print(f"randomised Tukey HSD, B={trials}   {fast:.2f} s   (target < 20 s)")
    print(f"loop version (B={loop_trials}, scaled) {slow:.1f} s  -> {slow / fast:.0f}x")
    print(f"paired bootstrap, B={trials}       {bootstrap_time:.2f} s")
    print(f"ranking stability, 500 trials     {stability_time:.2f} s (mean tau {stability.mean_tau:.3f})")
    print(
        f"discriminative power              Tukey {discriminative_power(p):.3f}, "
        f"bootstrap {discriminative_power(boot):.3f}"
    )


if __name__ == "__main__":
    main()
