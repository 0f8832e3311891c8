"""The likelihood machinery shared by the Bradley-Terry fits: design rows, per-row derivatives, a batched Newton.

A vote between systems a and b with extra features f (style covariates) has the linear predictor
d = s_a - s_b + gamma . f, i.e. d = x . beta with x = (e_a - e_b, f). Two models of the outcome:

* ``"half"``: a tie counts as half a win and half a loss, log L = y log sigma(d) + (1 - y) log sigma(-d)
  with y in {1, 0.5, 0} (Chatbot Arena's treatment of ties, Chiang et al. 2024);
* ``"davidson"``: Davidson (1970), P(a) = e^{d/2} / D, P(b) = e^{-d/2} / D, P(tie) = nu / D with
  D = e^{d/2} + e^{-d/2} + nu, and theta = log nu a further parameter.

``newton`` maximises sum_v w_v log L_v - ridge/2 |beta|^2 for a batch of weight vectors at once (one per
bootstrap resample), with step halving. The scores are only identified up to a constant; the Newton
system adds u u' (u = the unit vector along the systems' scores) to the information matrix, which
keeps every step, and so the scores, centred to mean 0.

Votes that differ only in which system won carry the same information, so without covariates the
votes are first compressed into cells (pair, outcome class) with counts: a bootstrap resample of
the votes is then a multinomial draw of the cell counts, and every fit costs O(cells), not O(votes).

>>> rows = design(np.array([0]), np.array([1]), 2)
>>> rows.tolist()
[[1.0, -1.0]]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TIES = ("half", "davidson")
THETA_FLOOR = -30.0  # log nu when a (resampled) batch has no ties: nu's maximum likelihood is 0
CHUNK = 4_000_000  # numbers per batched array (bounds memory)


def check_ties(ties: str) -> str:
    if ties not in TIES:
        raise ValueError(f"ties must be 'half' or 'davidson', got {ties!r}")
    return ties


def design(a: np.ndarray, b: np.ndarray, n_systems: int, features: np.ndarray | None = None) -> np.ndarray:
    """Rows x = (e_a - e_b, f): shape (n, n_systems + k)."""
    n = len(a)
    x = np.zeros((n, n_systems + (0 if features is None else features.shape[1])))
    rows = np.arange(n)
    x[rows, a] = 1.0
    x[rows, b] = -1.0
    if features is not None:
        x[:, n_systems:] = features
    return x


@dataclass(frozen=True)
class Cells:
    """Votes grouped by (lower system index, higher, outcome from the lower's side)."""

    low: np.ndarray
    high: np.ndarray
    y: np.ndarray  # 1 = low won, 0.5 tie, 0 = high won
    count: np.ndarray
    of_vote: np.ndarray  # each vote's cell


def cells(a: np.ndarray, b: np.ndarray, outcome: np.ndarray, n_systems: int) -> Cells:
    low, high = np.minimum(a, b), np.maximum(a, b)
    y = np.where(a < b, outcome, 1.0 - outcome)
    key = (low * n_systems + high) * 3 + np.rint(y * 2).astype(np.int64)
    unique, of_vote, count = np.unique(key, return_inverse=True, return_counts=True)
    klass = unique % 3
    pair = unique // 3
    return Cells(pair // n_systems, pair % n_systems, klass / 2.0, count.astype(float), of_vote)


def row_terms(d: np.ndarray, y: np.ndarray, ties: str, theta: np.ndarray | float | None = None):
    """Per-row log-likelihood and its derivatives in d (and theta).

    Returns ``(ll, g_d, h_dd, g_t, h_tt, h_dt)``: g are first derivatives of log L, h the negated second
    derivatives (so h_dd >= 0); the theta terms are None for ``"half"``.
    """
    if ties == "half":
        ll = y * d - np.logaddexp(0.0, d)
        p = 0.5 * (1.0 + np.tanh(0.5 * d))  # sigma(d) without overflow
        return ll, y - p, p * (1.0 - p), None, None, None
    if theta is None:
        raise ValueError("Davidson's ties need theta (log nu)")
    c = np.where(y == 1.0, 1.0, np.where(y == 0.0, -1.0, 0.0))
    tie = (y == 0.5).astype(float)
    th = np.asarray(theta)[..., None] if np.ndim(theta) == np.ndim(d) - 1 and np.ndim(d) > 1 else theta
    log_d = np.logaddexp(np.logaddexp(0.5 * d, -0.5 * d), th)
    ll = 0.5 * c * d + tie * th - log_d
    pa, pb, pt = np.exp(0.5 * d - log_d), np.exp(-0.5 * d - log_d), np.exp(th - log_d)
    m = 0.5 * (pa - pb)
    return ll, 0.5 * c - m, 0.25 * (pa + pb) - m * m, tie - pt, pt - pt * pt, -m * pt


@dataclass(frozen=True)
class Solution:
    beta: np.ndarray  # (B, p)
    theta: np.ndarray | None  # (B,) log nu for Davidson
    log_likelihood: np.ndarray  # (B,)
    converged: np.ndarray  # (B,) bool
    iterations: int


def newton(
    x: np.ndarray,
    y: np.ndarray,
    weights: np.ndarray,
    n_systems: int,
    ties: str,
    ridge: float = 0.0,
    max_iter: int = 100,
    tol: float = 1e-10,
) -> Solution:
    """Maximum likelihood for every row of ``weights`` (B, n) at once; x is (n, p), y (n,)."""
    weights = np.atleast_2d(weights)
    n_batch, p = weights.shape[0], x.shape[1]
    davidson = ties == "davidson"
    q = p + davidson
    u = np.zeros(q)
    u[:n_systems] = 1.0 / np.sqrt(n_systems)
    ridge_mask = np.full(p, float(ridge))
    beta = np.zeros((n_batch, p))
    theta: np.ndarray | None = None
    has_ties = np.zeros(n_batch, dtype=bool)
    if davidson:
        tie_weight = weights @ (y == 0.5)
        total = weights.sum(axis=1)
        has_ties = tie_weight > 0
        share = np.where(has_ties, tie_weight / np.maximum(total, 1e-300), 0.5)
        theta = np.where(has_ties, np.log(2 * share / np.maximum(1 - share, 1e-12)), THETA_FLOOR)

    def objective(beta, theta):
        ll = row_terms(beta @ x.T, y, ties, theta)[0]
        return (weights * ll).sum(axis=1) - 0.5 * (ridge_mask * beta * beta).sum(axis=1)

    current = objective(beta, theta)
    converged = np.zeros(n_batch, dtype=bool)
    iterations = 0
    while iterations < max_iter:
        iterations += 1
        _, g_d, h_dd, g_t, h_tt, h_dt = row_terms(beta @ x.T, y, ties, theta)
        grad = np.zeros((n_batch, q))
        info = np.zeros((n_batch, q, q))
        grad[:, :p] = (weights * g_d) @ x - ridge_mask * beta
        info[:, :p, :p] = _weighted_gram(x, weights * h_dd) + np.diag(ridge_mask)
        if davidson:
            grad[:, p] = np.where(has_ties, (weights * g_t).sum(axis=1), 0.0)
            cross = np.where(has_ties[:, None], (weights * h_dt) @ x, 0.0)
            info[:, :p, p] = cross
            info[:, p, :p] = cross
            info[:, p, p] = np.where(has_ties, (weights * h_tt).sum(axis=1), 1.0)
        info += np.outer(u, u)
        step = _solve(info, grad)
        step[converged] = 0.0
        # step halving until the objective does not fall
        scale = np.ones(n_batch)
        for _ in range(40):
            new_beta = beta + scale[:, None] * step[:, :p]
            new_theta = theta + scale * step[:, p] if davidson else None
            value = objective(new_beta, new_theta)
            worse = ~(value >= current - 1e-12 * np.abs(current)) & ~converged
            if not worse.any():
                break
            scale = np.where(worse, scale / 2, scale)
        beta, theta, current = new_beta, new_theta, value
        converged |= np.abs(scale[:, None] * step).max(axis=1) < tol
        if converged.all():
            break
    beta[:, :n_systems] -= beta[:, :n_systems].mean(axis=1, keepdims=True)
    return Solution(beta, theta, current, converged, iterations)


def _solve(info: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """Newton steps info^-1 grad for a batch; a singular system (collinear style features) gets the
    minimum-norm step."""
    try:
        return np.linalg.solve(info, grad[..., None])[..., 0]
    except np.linalg.LinAlgError:
        return (np.linalg.pinv(info, hermitian=True) @ grad[..., None])[..., 0]


def _weighted_gram(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """sum_v w[b, v] x_v x_v' for every b: (B, p, p), in chunks of B."""
    n_batch, n = w.shape
    p = x.shape[1]
    out = np.empty((n_batch, p, p))
    step = max(1, CHUNK // max(1, n * p))
    for start in range(0, n_batch, step):
        wb = w[start : start + step]
        out[start : start + step] = np.matmul((wb[:, :, None] * x[None]).transpose(0, 2, 1), x)
    return out


def sandwich(
    x: np.ndarray,
    y: np.ndarray,
    weights: np.ndarray,
    beta: np.ndarray,
    theta: float | None,
    n_systems: int,
    ties: str,
) -> tuple[np.ndarray, np.ndarray]:
    """Model-based and robust (sandwich) covariance of (beta, theta) at a fit, for one weight vector.

    Robust: J^-1 (sum_v w_v g_v g_v') J^-1 with J the observed information and g_v the votes' scores,
    both restricted to centred scores (Huber 1967; White 1980; Chiang et al. 2024 section 4).
    """
    davidson = ties == "davidson" and theta is not None and np.isfinite(theta) and theta > THETA_FLOOR
    p = x.shape[1]
    q = p + davidson
    _, g_d, h_dd, g_t, h_tt, h_dt = row_terms(x @ beta, y, ties, theta)
    scores = np.zeros((len(y), q))
    scores[:, :p] = g_d[:, None] * x
    info = np.zeros((q, q))
    info[:p, :p] = (x * (weights * h_dd)[:, None]).T @ x
    if davidson:
        scores[:, p] = g_t
        info[:p, p] = info[p, :p] = (weights * h_dt) @ x
        info[p, p] = (weights * h_tt).sum()
    u = np.zeros(q)
    u[:n_systems] = 1.0 / np.sqrt(n_systems)
    inverse = np.linalg.pinv(info + np.outer(u, u), hermitian=True)
    centre = np.eye(q) - np.outer(u, u)
    model = centre @ inverse @ centre
    meat = (scores * weights[:, None]).T @ scores
    robust = centre @ inverse @ meat @ inverse @ centre
    return model, robust
