"""Bradley-Terry maximum likelihood against independent implementations.

- without ties: choix's maximum likelihood (``opt_pairwise`` with alpha=0, no regularisation), centred scores,
  to 1e-6 (choix is test-only, requirements-test.txt);
- ties as half wins: the same estimate as plain Bradley-Terry on the duplicated votes (every decisive vote
  twice, every tie as one win each way), again through choix;
- Davidson (1970): a direct scipy.optimize maximisation of Davidson's likelihood written out from the paper.
"""

from __future__ import annotations

import numpy as np
import pytest

from scoring.pairwise import PairwiseVotes, bradley_terry, to_elo, win_matrix


def simulate(n_systems, n_votes, seed, tie_share=0.0, spread=1.0):
    rng = np.random.default_rng(seed)
    strength = rng.normal(size=n_systems) * spread
    a = rng.integers(0, n_systems, n_votes)
    b = (a + rng.integers(1, n_systems, n_votes)) % n_systems
    p_a = (1 - tie_share) / (1 + np.exp(strength[b] - strength[a]))
    u = rng.random(n_votes)
    outcome = np.where(u < p_a, 1.0, np.where(u < p_a + tie_share, 0.5, 0.0))
    names = tuple(f"system-{i}" for i in range(n_systems))
    return PairwiseVotes(names, a, b, outcome, None, rng.random(n_votes) < 0.5, None, None), strength


def choix_scores(n_systems, pairs):
    import choix

    fitted = choix.opt_pairwise(n_systems, pairs, alpha=0.0, tol=1e-12)
    return fitted - fitted.mean()


@pytest.mark.parametrize(("n_systems", "n_votes", "seed"), [(2, 50, 0), (5, 400, 1), (8, 3000, 2), (20, 6000, 3)])
def test_scores_equal_choix_maximum_likelihood_without_ties(n_systems, n_votes, seed):
    votes, _ = simulate(n_systems, n_votes, seed)
    pairs = [(int(a), int(b)) if y == 1 else (int(b), int(a)) for a, b, y in zip(votes.a, votes.b, votes.outcome)]
    fit = bradley_terry(votes, ridge=0.0)
    assert fit.converged
    np.testing.assert_allclose(fit.scores, choix_scores(n_systems, pairs), atol=1e-6, rtol=0)
    assert abs(fit.scores.mean()) < 1e-12
    # the default tiny ridge (which keeps undefeated systems finite) is invisible at this precision
    np.testing.assert_allclose(bradley_terry(votes).scores, fit.scores, atol=1e-5, rtol=0)
    np.testing.assert_allclose(fit.elo, 400 / np.log(10) * fit.scores + 1000)


def test_ties_as_half_wins_equal_the_duplicated_votes():
    votes, _ = simulate(6, 1500, 4, tie_share=0.25)
    assert (votes.outcome == 0.5).sum() > 200
    pairs = []
    for a, b, y in zip(votes.a.tolist(), votes.b.tolist(), votes.outcome.tolist(), strict=True):
        if y == 0.5:
            pairs += [(a, b), (b, a)]
        else:
            pairs += [(a, b), (a, b)] if y == 1 else [(b, a), (b, a)]
    fit = bradley_terry(votes, ties="half", ridge=0.0)
    np.testing.assert_allclose(fit.scores, choix_scores(6, pairs), atol=1e-6, rtol=0)
    assert fit.tie_parameter is None


def davidson_by_scipy(votes: PairwiseVotes):
    """Davidson's likelihood as printed (pi = exp(s)): P(i) = pi_i / D, P(tie) = nu sqrt(pi_i pi_j) / D."""
    from scipy.optimize import minimize

    s_count = len(votes.systems)

    def negative_log_likelihood(params):
        s = np.concatenate([[0.0], params[: s_count - 1]])
        nu = np.exp(params[-1])
        pi_a, pi_b = np.exp(s[votes.a]), np.exp(s[votes.b])
        d = pi_a + pi_b + nu * np.sqrt(pi_a * pi_b)
        p = np.where(votes.outcome == 1, pi_a, np.where(votes.outcome == 0, pi_b, nu * np.sqrt(pi_a * pi_b))) / d
        return -np.log(p).sum()

    result = minimize(negative_log_likelihood, np.zeros(s_count), method="BFGS", options={"gtol": 1e-10})
    s = np.concatenate([[0.0], result.x[: s_count - 1]])
    return s - s.mean(), float(np.exp(result.x[-1])), -result.fun


def test_davidson_equals_a_direct_maximisation_of_its_likelihood():
    votes, _ = simulate(5, 2000, 5, tie_share=0.3)
    fit = bradley_terry(votes, ties="davidson", ridge=0.0)
    scores, nu, log_likelihood = davidson_by_scipy(votes)
    np.testing.assert_allclose(fit.scores, scores, atol=1e-6, rtol=0)
    assert fit.tie_parameter == pytest.approx(nu, rel=1e-6)
    assert fit.log_likelihood == pytest.approx(log_likelihood, rel=1e-9)
    # at the optimum no direction does better: Newton's fit is at least as good as BFGS's
    assert fit.log_likelihood >= log_likelihood - 1e-9


def test_davidson_without_ties_is_bradley_terry():
    votes, _ = simulate(4, 500, 6)
    np.testing.assert_allclose(
        bradley_terry(votes, ties="davidson", ridge=0).scores, bradley_terry(votes, ridge=0).scores, atol=1e-8
    )


def test_both_bad_counts_as_a_tie():
    records = [
        {"a": "x", "b": "y", "winner": w, "shown_first": "x", "item": i} for i, w in enumerate("xxxy") if True
    ] + [{"a": "x", "b": "y", "winner": "both_bad", "item": 9}, {"a": "y", "b": "x", "winner": "tie", "item": 9}]
    votes = PairwiseVotes.from_records(records)
    assert votes.both_bad.tolist() == [False] * 4 + [True, False]
    assert votes.outcome.tolist() == [1, 1, 1, 0, 0.5, 0.5]
    wins, ties = win_matrix(votes)
    assert wins.tolist() == [[0, 3], [1, 0]] and ties.tolist() == [[0, 2], [2, 0]]
    fit = bradley_terry(votes, ridge=0)
    # 3 + 1 points of 6 for x: sigma(d) = 4/6, d = ln 2
    assert fit.scores[0] - fit.scores[1] == pytest.approx(np.log(2), abs=1e-9)


def test_an_undefeated_system_stays_finite_and_first():
    votes = PairwiseVotes(("x", "y", "z"), [0, 0, 1, 1], [1, 2, 2, 2], [1, 1, 1, 0], None, None, None, None)
    fit = bradley_terry(votes)
    assert np.isfinite(fit.scores).all() and fit.ranking() == ["x", "y", "z"]


def test_a_system_without_votes_has_no_score():
    votes = PairwiseVotes(("x", "y", "unused"), [0, 1], [1, 0], [1, 1], None, None, None, None)
    fit = bradley_terry(votes, ridge=0)
    assert np.isnan(fit.scores[2]) and fit.scores[:2].tolist() == [0.0, 0.0]
    assert fit.ranking() == ["x", "y"]


def test_elo_scale():
    assert to_elo([0.0, np.log(10)]).tolist() == pytest.approx([1000.0, 1400.0])


def test_from_records_rejects_what_it_cannot_read():
    with pytest.raises(ValueError, match="winner"):
        PairwiseVotes.from_records([{"a": "x", "b": "y", "winner": "z"}])
    with pytest.raises(ValueError, match="itself"):
        PairwiseVotes(("x",), [0], [0], [1], None, None, None, None)
    with pytest.raises(ValueError, match="shown_first"):
        PairwiseVotes.from_records([{"a": "x", "b": "y", "winner": "x", "shown_first": "q"}])
    with pytest.raises(ValueError, match="ties"):
        bradley_terry(PairwiseVotes.from_records([{"a": "x", "b": "y", "winner": "x"}]), ties="rao-kupper")


def test_from_records_numbers_items_and_reads_lengths_and_covariates():
    votes = PairwiseVotes.from_records(
        [
            {"a": "x", "b": "y", "winner": "y", "shown_first": "y", "item": "c7", "len_a": 12, "len_b": 4,
             "covariates": {"markdown": 1.0}},
            {"a": "y", "b": "x", "winner": "tie", "item": "c7", "len_a": 4, "len_b": 12,
             "covariates": {"markdown": -1.0}},
            {"a": "x", "b": "y", "winner": "x", "item": "c8", "covariates": {"markdown": 0.0}},
        ]
    )  # fmt: skip
    assert votes.item.tolist() == [0, 0, 1]
    assert votes.length_diff.tolist() == [8, -8, 0] and votes.length_total.tolist() == [16, 16, 0]
    assert votes.a_shown_first.tolist() == [False, True, True]
    assert votes.covariate_names == ("markdown",) and votes.covariates[:, 0].tolist() == [1, -1, 0]
    assert votes.subset(np.array([False, True, True])).n == 2
