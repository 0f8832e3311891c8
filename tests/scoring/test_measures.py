"""Distribution measures: the papers' worked examples, properties, and degenerate inputs."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from scoring.measures import MEASURES, jsd, mse, nmd, nod, rnss, rsnod, simpson_index, snod, variational_distance

UNIFORM5 = [0.2] * 5
X = [0.3, 0.3, 0.2, 0.1, 0.1]
Y = [0.4, 0.2, 0.2, 0.1, 0.1]


def test_sakai_figure1_rnss_and_jsd():
    # Sakai (2017) section 3.2.1 and design.md: RNSS 0.1414 (X), 0.1732 (Y); JSD 0.0390 (X), 0.0490 (Y)
    assert rnss(X, UNIFORM5) == pytest.approx(0.1414, abs=5e-5)
    assert rnss(Y, UNIFORM5) == pytest.approx(0.1732, abs=5e-5)
    assert jsd(X, UNIFORM5) == pytest.approx(0.0390, abs=5e-5)
    assert jsd(Y, UNIFORM5) == pytest.approx(0.0490, abs=5e-5)


# Sakai (2017) Figure 2: gold (1, 0, 0); (estimate, NOD, SNOD, NOD with p and p* swapped, RNSS).
# The RNSS values are from section 3.2.2: "(a) and (d) (RNSS=1, JSD=1), ... (b) with (c) (RNSS=0.8819, JSD=1)".
FIGURE2 = [
    ([0, 0, 1], 1.0, 1.0, 1.0, 1.0),
    ([0, 1 / 3, 2 / 3], 0.5, 0.6944, 0.8889, 0.8819),
    ([0, 2 / 3, 1 / 3], 0.3333, 0.6111, 0.8889, 0.8819),
    ([0, 1, 0], 0.5, 0.5, 0.5, 1.0),
]


@pytest.mark.parametrize("estimate, nod_value, snod_value, swapped, rnss_value", FIGURE2)
def test_sakai_figure2_order_aware_divergences(estimate, nod_value, snod_value, swapped, rnss_value):
    gold = [1, 0, 0]
    assert nod(estimate, gold) == pytest.approx(nod_value, abs=5e-5)
    assert snod(estimate, gold) == pytest.approx(snod_value, abs=5e-5)
    assert nod(gold, estimate) == pytest.approx(swapped, abs=5e-5)
    # RNSS and JSD cannot tell (a) from (d), nor (b) from (c): the paper's point for SNOD
    assert jsd(estimate, gold) == pytest.approx(1.0)
    assert rnss(estimate, gold) == pytest.approx(rnss_value, abs=5e-5)


def test_sakai_figure3_uniform_gold():
    gold = [1 / 3] * 3
    # (I): RNSS 0.5774, JSD 0.4591, NOD 0.3148, SNOD 0.2407, swapped NOD 0.1667
    assert (rnss([1, 0, 0], gold), jsd([1, 0, 0], gold)) == (
        pytest.approx(0.5774, abs=5e-5),
        pytest.approx(0.4591, abs=5e-5),
    )
    assert nod([1, 0, 0], gold) == pytest.approx(0.3148, abs=5e-5)
    assert snod([1, 0, 0], gold) == pytest.approx(0.2407, abs=5e-5)
    # (III) (2/3, 1/3, 0): RNSS 0.3333, JSD 0.2075, NOD = SNOD = 0.1111
    assert rnss([2 / 3, 1 / 3, 0], gold) == pytest.approx(0.3333, abs=5e-5)
    assert jsd([2 / 3, 1 / 3, 0], gold) == pytest.approx(0.2075, abs=5e-5)
    assert snod([2 / 3, 1 / 3, 0], gold) == pytest.approx(0.1111, abs=5e-5)
    # (IV) (1/3, 2/3, 0): NOD 0.0926, SNOD 0.1019, swapped 0.1111
    assert nod([1 / 3, 2 / 3, 0], gold) == pytest.approx(0.0926, abs=5e-5)
    assert snod([1 / 3, 2 / 3, 0], gold) == pytest.approx(0.1019, abs=5e-5)
    # (II)'s estimate cannot be read off the text of the figure, so it is not checked here.


def test_sakai_figure4_follows_equations_not_the_figure():
    # Figure 4 prints SNOD 0.0227 (X) and 0.0380 (Y) for L = 5. Those are 4/3 of what Eqs. 7-10
    # give (OD / (L - 1) with L - 1 = 4): the figure divides by 3. We follow the equations.
    assert snod(X, UNIFORM5) * 4 / 3 == pytest.approx(0.0227, abs=5e-5)
    assert snod(Y, UNIFORM5) * 4 / 3 == pytest.approx(0.0380, abs=5e-5)
    # B* = B here, so NOD is symmetric as the paper notes
    assert nod(X, UNIFORM5) == pytest.approx(nod(UNIFORM5, X))


def test_od_averages_over_nonzero_gold_bins_not_all_bins():
    # design.md: the 2018 STC-3 script averaged over all L bins; the paper (and DialEval-1) over B*.
    estimate, gold = np.array([0, 0.5, 0.5]), np.array([1.0, 0, 0])
    per_bin = [sum(abs(i - j) * (estimate[j] - gold[j]) ** 2 for j in range(3)) for i in range(3)]
    assert nod(estimate, gold) == pytest.approx(per_bin[0] / 2)
    assert nod(estimate, gold) != pytest.approx(np.mean(per_bin) / 2)


def test_against_scipy():
    from scipy.spatial.distance import jensenshannon
    from scipy.stats import entropy, wasserstein_distance

    rng = np.random.default_rng(0)
    p, q = rng.dirichlet(np.ones(5), 200), rng.dirichlet(np.ones(5), 200)
    # scipy's jensenshannon is the square root of the divergence
    assert np.allclose(jsd(p, q), jensenshannon(p, q, axis=1, base=2) ** 2, atol=1e-12)
    # and JSD = H(m) - (H(p) + H(p*)) / 2 with scipy's entropy
    m = (p + q) / 2
    expected = entropy(m, base=2, axis=1) - (entropy(p, base=2, axis=1) + entropy(q, base=2, axis=1)) / 2
    assert np.allclose(jsd(p, q), expected, atol=1e-12)
    # NMD is the 1-D earth mover's distance over bin positions 0..L-1, divided by L-1
    emd = [wasserstein_distance(np.arange(5), np.arange(5), a, b) for a, b in zip(p, q)]
    assert np.allclose(nmd(p, q), np.array(emd) / 4, atol=1e-12)


def test_inputs_are_normalised_and_bad_rows_named():
    assert rnss([3, 3, 2, 1, 1], [1] * 5) == pytest.approx(rnss(X, UNIFORM5))
    with pytest.raises(ValueError, match=r"p row 1 is not a distribution"):
        rnss([[0.5, 0.5], [-0.1, 1.1]], [[0.5, 0.5], [0.5, 0.5]])
    with pytest.raises(ValueError, match=r"q row 0 is not a distribution"):
        jsd([[1, 0]], [[0, 0]])
    with pytest.raises(ValueError, match="bins"):
        mse([1, 0], [1, 0, 0])


def test_broadcasting_over_leading_axes():
    gold = np.array([0.2, 0.3, 0.5])
    batch = np.random.default_rng(1).dirichlet(np.ones(3), (4, 6))
    for name, (fn, _sym, _ordered) in MEASURES.items():
        out = fn(batch, gold)
        assert out.shape == (4, 6), name
        assert out[2, 3] == pytest.approx(fn(batch[2, 3], gold)), name


distributions = (
    st.integers(2, 7)
    .flatmap(
        lambda n: st.tuples(arrays(float, n, elements=st.floats(0, 10)), arrays(float, n, elements=st.floats(0, 10)))
    )
    .filter(lambda pq: pq[0].sum() > 1e-3 and pq[1].sum() > 1e-3)
)


@settings(max_examples=200, deadline=None)
@given(distributions)
def test_properties_of_every_measure(pq):
    p, q = pq
    for name, (fn, symmetric, _ordered) in MEASURES.items():
        value = float(fn(p, q))
        assert value >= -1e-12, name
        assert float(fn(q, q)) == pytest.approx(0, abs=1e-9), name  # identity gives the perfect score
        if symmetric:
            assert value == pytest.approx(float(fn(q, p)), abs=1e-9), name
        upper = 2 if name == "variational_distance" else 1
        assert value <= upper + 1e-9, name
    # Lin (1991), Sakai Eq. 6: JSD is bounded by half the variational distance
    assert float(jsd(p, q)) <= float(variational_distance(p, q)) / 2 + 1e-9
    assert float(rsnod(p, q)) ** 2 == pytest.approx(float(snod(p, q)), abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(distributions)
def test_nominal_measures_ignore_bin_order(pq):
    p, q = pq
    order = np.arange(len(p))[::-1]
    for name, (fn, _sym, ordered) in MEASURES.items():
        if not ordered:
            assert float(fn(p[order], q[order])) == pytest.approx(float(fn(p, q)), abs=1e-12), name


def test_simpson_index_examples_of_tsunomori():
    # Tsunomori et al. (2020), after Eq. 1: (0.33, 0.33, 0.33) gives 0.33; (0, 0, 1) gives 1.0
    assert simpson_index([1 / 3] * 3) == pytest.approx(1 / 3)
    assert simpson_index([0, 0, 1]) == 1.0
