"""Power analysis from a pilot: how many annotators per item a project needs, by simulation.

The pilot is the labels collected so far, one row per label (its item, its value and, to compare
systems, the system whose output the item shows). For each K the collection is simulated ``n_sim``
times: the items are drawn with replacement from the pilot's items (``n_items`` of them: the size of
the full project), and each gets K labels drawn from its pilot labels (the item's share of each
value, a multinomial draw: annotators resampled per item). Two targets:

* ``"alpha_width"``: the central ``level`` range of Krippendorff's alpha over the simulated collections,
  the interval a collection with K per item would give; K meets the target when it is at most ``width``;
* ``"system_difference"``: the share of simulated collections in which Welch's t-test on the items' mean
  scores separates the two systems at ``1 - level`` (the power); K meets the target when it reaches
  ``power``. With ``effect`` the second system's scores are shifted so the true difference (first minus
  second) is ``effect`` rather than the pilot's.

The simulation keeps the pilot's items, so it cannot see values the pilot never gave an item; a pilot of
a few labels per item on a good share of the items is what it needs.
"""

from __future__ import annotations

import numpy as np

from scoring.agreement.alpha import krippendorff_alpha_from_counts

TARGETS = ("alpha_width", "system_difference")


def _pilot_shares(item, value):
    """Item keys, the value set and each item's share of each value."""
    item = np.asarray(item)
    value = np.asarray(value)
    if item.shape != value.shape or item.ndim != 1 or len(item) == 0:
        raise ValueError("the pilot needs one item and one value per label")
    items, item_index = np.unique(item, return_inverse=True)
    values, value_index = np.unique(value, return_inverse=True)
    counts = np.zeros((len(items), len(values)))
    np.add.at(counts, (item_index, value_index), 1)
    return items, item_index, values, counts / counts.sum(axis=1, keepdims=True)


def _draw(rng, shares, k):
    return rng.multinomial(k, shares)


def power_analysis(
    item,
    value,
    *,
    target: str = "alpha_width",
    width: float = 0.1,
    system=None,
    effect: float | None = None,
    power: float = 0.8,
    ks=range(2, 21),
    n_items: int | None = None,
    n_sim: int = 200,
    level: float = 0.95,
    alpha_level: str = "nominal",
    seed: int = 0,
) -> list[dict]:
    """One row per K: ``{"k", "alpha", "width", "meets"}`` or ``{"k", "difference", "power", "meets"}``.

    See the module docstring for the simulation. ``item``, ``value`` (and ``system``) have one entry per
    pilot label; values are numbers for ordinal/interval alpha and for system scores, any labels for nominal
    alpha. ``n_items`` is the items per simulated collection (default: the pilot's; for systems, per system).

    Examples
    --------
    A pilot of 20 items with 3 labels each; alpha's interval narrows as K grows:

    >>> import numpy as np
    >>> pilot_items = np.arange(60) // 3
    >>> pilot_values = ["a", "a", "b", "b", "b", "b", "a", "a", "a", "a", "b", "b"] * 5
    >>> rows = power_analysis(pilot_items, pilot_values, ks=[2, 10], n_sim=50)
    >>> [(row["k"], round(row["width"], 1)) for row in rows]
    [(2, 0.7), (10, 0.5)]
    """
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}; one of {', '.join(TARGETS)}")
    ks = [int(k) for k in ks]
    if not ks or min(ks) < 2:
        raise ValueError("every K must be 2 or more")
    rng = np.random.default_rng(seed)
    items, item_index, values, shares = _pilot_shares(item, value)
    if target == "alpha_width":
        return _alpha_width(rng, values, shares, ks, n_items or len(items), n_sim, level, alpha_level, width)
    if system is None:
        raise ValueError("a system difference needs each label's system")
    system = np.asarray(system)
    item_system = np.empty(len(items), dtype=system.dtype)
    item_system[item_index] = system
    systems = np.unique(item_system)
    if len(systems) != 2:
        raise ValueError(f"a system difference needs exactly two systems, the pilot has {len(systems)}")
    return _system_difference(rng, values, shares, item_system == systems[0], ks, n_items, n_sim, level, effect, power)


def _alpha_width(rng, values, shares, ks, n_items, n_sim, level, alpha_level, width):
    numeric = alpha_level != "nominal"
    rows = []
    for k in ks:
        alphas = np.empty(n_sim)
        for s in range(n_sim):
            counts = _draw(rng, shares[rng.integers(0, len(shares), n_items)], k)
            alphas[s] = krippendorff_alpha_from_counts(
                counts, alpha_level, values.astype(float) if numeric else None, on_undefined="nan"
            )
        alphas = alphas[np.isfinite(alphas)]
        tail = (1 - level) / 2
        low, high = np.quantile(alphas, [tail, 1 - tail]) if len(alphas) else (np.nan, np.nan)
        rows.append(
            {"k": k, "alpha": float(np.mean(alphas)), "width": float(high - low), "meets": bool(high - low <= width)}
        )
    return rows


def _system_difference(rng, values, shares, first, ks, n_items, n_sim, level, effect, power):
    scores = values.astype(float)
    true_means = shares @ scores
    pilot_difference = true_means[first].mean() - true_means[~first].mean()
    shift = 0.0 if effect is None else pilot_difference - effect  # added to the second system's scores
    groups = [shares[first], shares[~first]]
    sizes = [n_items or len(g) for g in groups]
    from scipy.stats import ttest_ind  # here, not at import: the web process starts without scipy

    direction = np.sign(pilot_difference - shift)  # 0: no true difference, any separation is a false one
    rows = []
    for k in ks:
        significant = np.zeros(n_sim, dtype=bool)
        differences = np.empty(n_sim)
        for s in range(n_sim):
            means = [
                _draw(rng, g[rng.integers(0, len(g), size)], k) @ scores / k
                for g, size in zip(groups, sizes, strict=True)
            ]
            means[1] = means[1] + shift
            differences[s] = means[0].mean() - means[1].mean()
            p = ttest_ind(means[0], means[1], equal_var=False).pvalue
            significant[s] = bool(np.isfinite(p) and p < 1 - level and direction in (0, np.sign(differences[s])))
        share = float(significant.mean())
        rows.append({"k": k, "difference": float(differences.mean()), "power": share, "meets": share >= power})
    return rows
