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

For label gold (``scoring.adaptive.label_gold``) ``label_power`` says what the stop rule will spend: from
the pilot's per-unit counts it fits the Dirichlet prior over label shares the rule itself uses, draws
units from it (shares p ~ Dirichlet(alpha), then K_max labels from p: the model under which the rule's
guarantee holds) and runs the rule on them at each delta.
"""

from __future__ import annotations

import numpy as np

from scoring.adaptive.label_gold import fit_dirichlet_prior, label_change_probability, majority_labels
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


def label_power(
    counts,
    *,
    max_k: int,
    deltas=(0.01, 0.02, 0.05, 0.1),
    min_k: int = 3,
    threshold: float = 0.0,
    units_per_item: int = 1,
    n_units: int = 2000,
    alpha=None,
    seed: int = 0,
) -> list[dict]:
    """One row per delta: ``{"delta", "labels_per_unit", "labels_per_item", "saving", "error_rate",
    "expected_error"}``, what label gold's stop rule spends and how often it errs, by simulation.

    Parameters
    ----------
    counts : array-like, shape (units, labels)
        The pilot: each unit's label counts so far (the prior is fitted to them, ``fit_dirichlet_prior``,
        unless ``alpha`` is given).
    max_k, min_k, threshold
        The rule's K_max, minimum and majority threshold (``LabelStopRule``).
    units_per_item : int
        Units an annotator labels together (the turns of a dialogue): an item takes labels until its last
        unit stops, so ``labels_per_item`` is the mean over items of their units' largest stop.
    n_units : int
        Units simulated (rounded down to whole items).

    Returns
    -------
    list of dict
        ``labels_per_unit``: labels a unit takes on average; ``labels_per_item``: labels (annotators) an item
        takes; ``saving``: 1 - labels_per_item / max_k, the judgements saved against K_max on every item;
        ``error_rate``: the share of simulated units whose stopped label differs from their label at K_max;
        ``expected_error``: the rule's own figure for it, the mean of e(c) at the stops.

    Examples
    --------
    A pilot where units split evenly or agree: the larger delta, the fewer labels and the more errors, never
    above delta by more than the simulation's noise:

    >>> import numpy as np
    >>> pilot = np.array([[3, 0, 0], [0, 3, 0], [1, 1, 1], [2, 1, 0], [0, 1, 2]] * 10)
    >>> rows = label_power(pilot, max_k=15, deltas=[0.02, 0.1], n_units=500)
    >>> [(row["delta"], row["labels_per_unit"] < 15, row["error_rate"] <= row["delta"] + 0.03) for row in rows]
    [(0.02, True, True), (0.1, True, True)]
    >>> rows[0]["labels_per_unit"] > rows[1]["labels_per_unit"]
    True
    """
    counts = np.asarray(counts, dtype=float)
    max_k, min_k, units_per_item = int(max_k), int(min_k), int(units_per_item)
    if max_k < 1 or not 0 <= min_k <= max_k:
        raise ValueError(f"need 0 <= min_k <= max_k and max_k >= 1, got min_k={min_k}, max_k={max_k}")
    if units_per_item < 1 or n_units < units_per_item:
        raise ValueError(f"need 1 <= units_per_item <= n_units, got {units_per_item} and {n_units}")
    deltas = [float(d) for d in deltas]
    if not deltas or not all(0 < d < 1 for d in deltas):
        raise ValueError(f"every delta must be between 0 and 1, got {deltas}")
    alpha = fit_dirichlet_prior(counts) if alpha is None else np.asarray(alpha, dtype=float)
    rng = np.random.default_rng(seed)
    n_units = n_units // units_per_item * units_per_item
    shares = rng.dirichlet(alpha, size=n_units)
    draws = (rng.random((n_units, max_k, 1)) > np.cumsum(shares, axis=1)[:, None, :]).sum(axis=2)
    one_hot = draws[:, :, None] == np.arange(len(alpha))[None, None, :]
    cumulative = np.concatenate([np.zeros((n_units, 1, len(alpha))), np.cumsum(one_hot, axis=1)], axis=1)
    ns = np.arange(min_k, max_k + 1)
    states = cumulative[:, ns].reshape(-1, len(alpha))  # every unit after n labels, n from min_k
    change = label_change_probability(states, alpha, max_k, threshold).reshape(n_units, len(ns))
    labels = majority_labels(states, threshold).reshape(n_units, len(ns))
    final = labels[:, -1]
    rows = []
    for delta in deltas:
        first = np.argmax(change <= delta, axis=1)  # at n = max_k change is 0: every unit stops somewhere
        taken = ns[first]
        at_stop = np.arange(n_units), first
        per_item = taken.reshape(-1, units_per_item).max(axis=1)
        rows.append(
            {
                "delta": delta,
                "labels_per_unit": float(taken.mean()),
                "labels_per_item": float(per_item.mean()),
                "saving": float(1 - per_item.mean() / max_k),
                "error_rate": float((labels[at_stop] != final).mean()),
                "expected_error": float(change[at_stop].mean()),
            }
        )
    return rows
