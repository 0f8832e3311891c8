"""Bradley-Terry maximum likelihood with ties as half wins or by Davidson's model.

Bradley & Terry (1952): system i has strength pi_i = exp(s_i), and i beats j with probability

    P(i > j) = pi_i / (pi_i + pi_j) = sigma(s_i - s_j),   sigma(d) = 1 / (1 + e^{-d}).

Ties, two ways (``ties=``):

* ``"half"`` (default): a tie counts as half a win for each side, the log-likelihood of a vote is
  y log sigma(d) + (1 - y) log sigma(-d) with y = 1, 0.5, 0; this is Chatbot Arena's logistic
  regression with ties (Chiang et al. 2024, arXiv 2403.04132, section 4; "both bad" is a tie too);
* ``"davidson"``: Davidson (1970),
  P(i > j) = pi_i / D, P(tie) = nu sqrt(pi_i pi_j) / D, D = pi_i + pi_j + nu sqrt(pi_i pi_j),
  with the tie parameter nu >= 0 estimated jointly (nu = 0 is Bradley-Terry without ties).

The scores are natural-log strengths centred to mean 0; ``elo`` puts them on Chatbot Arena's scale,
400 / ln(10) * s + 1000 (a 400-point gap = 10:1 odds). The fit is Newton's method on the whole
vote arrays (votes compressed into (pair, outcome) cells), with an optional tiny ridge that keeps
a system which won or lost every vote finite.

References
----------
Bradley, R. A. & Terry, M. E. (1952). Rank analysis of incomplete block designs: I. The method of
paired comparisons. Biometrika 39, 324-345.
Davidson, R. R. (1970). On extending the Bradley-Terry model to accommodate ties in paired
comparison experiments. JASA 65, 317-328.
Chiang, W.-L. et al. (2024). Chatbot Arena: an open platform for evaluating LLMs by human
preference. ICML 2024, arXiv 2403.04132.

Examples
--------
Two systems, x beats y 3 times and loses once: s_x - s_y = ln 3.

>>> from scoring.pairwise.votes import PairwiseVotes
>>> votes = PairwiseVotes(("x", "y"), a=[0, 0, 0, 0], b=[1, 1, 1, 1], outcome=[1, 1, 1, 0],
...                       both_bad=None, a_shown_first=None, item=None, length_diff=None)
>>> fit = bradley_terry(votes, ridge=0)
>>> round(float(fit.scores[0] - fit.scores[1]), 6), round(float(np.log(3)), 6)
(1.098612, 1.098612)
>>> [round(float(e), 1) for e in fit.elo]
[1095.4, 904.6]
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from scoring.pairwise._engine import Cells, cells, check_ties, design, newton
from scoring.pairwise.votes import PairwiseVotes

ELO_SCALE = 400.0 / np.log(10.0)
ELO_BASE = 1000.0
DEFAULT_RIDGE = 1e-6


@dataclass(frozen=True, eq=False)
class BTFit:
    """A Bradley-Terry fit.

    ``scores``: natural-log strengths centred to mean 0 over the systems with votes (NaN for a system
    without any); ``elo`` = 400 / ln(10) * score + 1000; ``tie_parameter``: Davidson's nu (None for
    ties as half wins); ``coefficients``: the style covariates' coefficients (empty for the plain model).
    """

    systems: tuple[str, ...]
    scores: np.ndarray
    elo: np.ndarray
    ties: str
    tie_parameter: float | None
    log_likelihood: float
    n_votes: int
    converged: bool
    coefficients: dict[str, float] = field(default_factory=dict)

    def ranking(self) -> list[str]:
        """The systems with votes, best first."""
        order = np.argsort(-np.nan_to_num(self.scores, nan=-np.inf), kind="stable")
        return [self.systems[i] for i in order if np.isfinite(self.scores[i])]


def to_elo(scores):
    """Chatbot Arena's scale for natural-log strengths: 400 / ln(10) * s + 1000.

    Parameters
    ----------
    scores : array-like, shape (...)
        Natural-log strengths.
    """
    return ELO_SCALE * np.asarray(scores, dtype=float) + ELO_BASE


def voted_systems(votes: PairwiseVotes) -> np.ndarray:
    """Indices of the systems that appear in at least one vote (sorted).

    Parameters
    ----------
    votes : PairwiseVotes
    """
    return np.unique(np.concatenate([votes.a, votes.b]))


def voted_cells(votes: PairwiseVotes) -> tuple[np.ndarray, Cells | None]:
    """The systems with votes and the votes grouped by (pair, outcome) over them, the systems renumbered
    0 .. len(present) - 1 (``_engine.cells``); None instead of the cells when fewer than two have votes.

    Parameters
    ----------
    votes : PairwiseVotes
    """
    present = voted_systems(votes)
    if len(present) < 2:
        return present, None
    local = np.full(len(votes.systems), -1)
    local[present] = np.arange(len(present))
    return present, cells(local[votes.a], local[votes.b], votes.outcome, len(present))


def bradley_terry(votes: PairwiseVotes, ties: str = "half", ridge: float = DEFAULT_RIDGE) -> BTFit:
    """Bradley-Terry scores by maximum likelihood.

    Parameters
    ----------
    votes : PairwiseVotes
    ties : {"half", "davidson"}
        Ties (both-bad included) as half a win for each side, or Davidson's (1970) tie model.
    ridge : float
        Precision of a zero-mean Gaussian prior on the scores (penalty ridge/2 * sum s^2). The default,
        1e-6, moves well-determined scores by far less than 1e-5 and keeps a system that won (or lost)
        all its votes finite instead of diverging; 0 gives the plain maximum likelihood.

    Returns
    -------
    BTFit
    """
    check_ties(ties)
    present, c = voted_cells(votes)
    scores = np.full(len(votes.systems), np.nan)
    if c is None:
        scores[present] = 0.0
        return BTFit(votes.systems, scores, to_elo(scores), ties, None, 0.0, votes.n, True)
    solution = newton(design(c.low, c.high, len(present)), c.y, c.count, len(present), ties, ridge)
    scores[present] = solution.beta[0]
    nu = None if solution.theta is None else float(np.exp(solution.theta[0]))  # Davidson's ties only
    return BTFit(
        votes.systems,
        scores,
        to_elo(scores),
        ties,
        nu,
        float(solution.log_likelihood[0]),
        votes.n,
        bool(solution.converged[0]),
    )
