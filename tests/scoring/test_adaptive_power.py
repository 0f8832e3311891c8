"""Power analysis by simulation from a pilot, on synthetic pilots whose answers are known."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from scoring.adaptive import power_analysis


def pilot(rng, n_items=80, per_item=6, agreement=0.7):
    """Items with a true category each; annotators give it with probability ``agreement``, else any other."""
    truth = rng.integers(0, 3, n_items)
    item = np.repeat(np.arange(n_items), per_item)
    other = (truth[item] + rng.integers(1, 3, len(item))) % 3
    value = np.where(rng.random(len(item)) < agreement, truth[item], other)
    return item, value


def test_alpha_interval_narrows_with_more_annotators_and_finds_the_k():
    item, value = pilot(np.random.default_rng(0))
    rows = power_analysis(item, value, target="alpha_width", width=0.2, ks=[2, 3, 5, 10, 20], n_sim=150)
    widths = [row["width"] for row in rows]
    assert [row["k"] for row in rows] == [2, 3, 5, 10, 20]
    assert all(a > b for a, b in itertools.pairwise(widths))
    alphas = np.array([row["alpha"] for row in rows])
    assert np.ptp(alphas) < 0.1 and 0.2 < alphas.mean() < 0.8  # alpha is a property of the items, not of K
    meets = [row["meets"] for row in rows]
    assert meets == sorted(meets) and meets[-1] and not meets[0]  # once met, met with more


def test_more_items_narrow_the_interval_too():
    item, value = pilot(np.random.default_rng(1))
    few = power_analysis(item, value, ks=[5], n_sim=150)[0]["width"]
    many = power_analysis(item, value, ks=[5], n_items=640, n_sim=150)[0]["width"]
    assert many < 0.6 * few  # about 1 / sqrt(8) of it


def test_power_grows_with_k_and_a_null_difference_is_rarely_separated():
    rng = np.random.default_rng(2)
    item = np.repeat(np.arange(60), 5)
    system = np.where(item < 30, "a", "b")
    # system a's items are rated around 3.4, b's around 3.0, on a 1-5 scale with much disagreement
    centre = np.where(system == "a", 3.4, 3.0)
    value = np.clip(np.rint(centre + rng.normal(0, 1.2, len(item))), 1, 5)
    rows = power_analysis(item, value, target="system_difference", system=system, ks=[2, 5, 20], n_items=15, n_sim=200)
    power = [row["power"] for row in rows]
    assert power[0] < power[1] < power[2]
    assert rows[-1]["difference"] == pytest.approx(0.4, abs=0.25)
    null = power_analysis(
        item, value, target="system_difference", system=system, effect=0.0, ks=[5], n_items=15, n_sim=400
    )[0]
    assert null["power"] < 0.1  # a false separation about 5 % of the time
    assert abs(null["difference"]) < 0.05


def test_power_analysis_refuses_what_it_cannot_simulate():
    item, value = pilot(np.random.default_rng(3), n_items=5)
    with pytest.raises(ValueError, match="unknown target"):
        power_analysis(item, value, target="accuracy")
    with pytest.raises(ValueError, match="2 or more"):
        power_analysis(item, value, ks=[1, 2])
    with pytest.raises(ValueError, match="each label's system"):
        power_analysis(item, value, target="system_difference")
    with pytest.raises(ValueError, match="exactly two systems"):
        power_analysis(item, value, target="system_difference", system=np.zeros(len(item)))
