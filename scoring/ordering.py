"""Dialogue coherence by information ordering (Gandhe & Traum 2008).

An *order* lists the original positions of the turns in the order they are shown or were
reconstructed: ``[8, 9, 0, 1, ...]`` means the original turns 8 and 9 come first. Measures compare
it with the original order ``[0, 1, ..., n-1]``.

Permutations are constrained as in the paper's experiments: the first speaker stays first and
speakers strictly alternate, so each speaker's turns are shuffled among that speaker's slots
(5! x 5! = 14,400 orders for ten turns).

References
----------
Gandhe, S., Traum, D. (2008). Evaluation understudy for dialogue coherence models. SIGdial
(``gandhe2008_dialogue_coherence_ordering.txt``): Kendall's tau, b_n, (b2 + b3)/2, Table 1,
the random baselines (tau 0.02, (b2 + b3)/2 0.11 over the 14,400 orders of ten turns).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations

import numpy as np


def _orders(order) -> np.ndarray:
    """Validate one order (n,) or many (k, n): each row a permutation of 0..n-1."""
    x = np.asarray(order)
    if x.ndim not in (1, 2) or x.shape[-1] < 2:
        raise ValueError(f"an order needs at least two turns, got shape {x.shape}")
    if not np.issubdtype(x.dtype, np.integer):
        raise ValueError("an order lists original positions as integers")
    expected = np.arange(x.shape[-1])
    if not (np.sort(x, axis=-1) == expected).all():
        raise ValueError(f"not a permutation of 0..{x.shape[-1] - 1}: {x.tolist()}")
    return x


def kendall_tau(order) -> np.ndarray | float:
    """tau = (concordant - discordant) / (n (n - 1) / 2) against the original order.

    Vectorised over rows of a (k, n) array.

    Parameters
    ----------
    order : array-like of int, shape (n,) or (k, n)
        One order or k of them: each row lists the original positions of the turns as shown.

    Examples
    --------
    >>> round(kendall_tau([8, 9, 0, 1, 2, 3, 4, 5, 6, 7]), 4)  # Gandhe & Traum, Table 1: 0.29
    0.2889
    """
    x = _orders(order)
    n = x.shape[-1]
    i, j = np.triu_indices(n, 1)
    signs = np.sign(x[..., j] - x[..., i])
    tau = signs.sum(axis=-1) / (n * (n - 1) / 2)
    return float(tau) if x.ndim == 1 else tau


def ngram_preservation(order, n: int) -> np.ndarray | float:
    """b_n = share of the original's n-grams of consecutive turns still consecutive, in order.

    Parameters
    ----------
    order : array-like of int, shape (n,) or (k, n)
        One order or k of them: each row lists the original positions of the turns as shown.
    n : int
        The n-gram length.

    Examples
    --------
    >>> ngram_preservation([8, 9, 0, 1, 2, 3, 4, 5, 6, 7], 2), ngram_preservation([8, 9, 0, 1, 2, 3, 4, 5, 6, 7], 3)
    (0.8888888888888888, 0.75)
    """
    x = _orders(order)
    length = x.shape[-1]
    if not 2 <= n <= length:
        raise ValueError(f"n must be between 2 and the number of turns ({length}), got {n}")
    # a window of n shown turns preserves an original n-gram iff it counts up by one at each step
    steps = np.diff(x, axis=-1) == 1
    windows = np.lib.stride_tricks.sliding_window_view(steps, n - 1, axis=-1).all(axis=-1)
    share = windows.sum(axis=-1) / (length - n + 1)
    return float(share) if x.ndim == 1 else share


def coherence_b23(order) -> np.ndarray | float:
    """(b2 + b3) / 2, the measure that correlates best with human coherence ratings.

    Parameters
    ----------
    order : array-like of int, shape (n,) or (k, n)
        One order or k of them: each row lists the original positions of the turns as shown.

    Examples
    --------
    >>> coherence_b23(list(range(10)))
    1.0
    """
    x = _orders(order)
    if x.shape[-1] < 3:
        return ngram_preservation(x, 2)
    return (ngram_preservation(x, 2) + ngram_preservation(x, 3)) / 2


def _slots(speakers: Sequence[str]) -> list[np.ndarray]:
    """Original positions of each speaker's turns, first speaker first; checks alternation is possible."""
    speakers = list(speakers)
    if len(speakers) < 2:
        raise ValueError("a dialogue needs at least two turns to be reordered")
    first = speakers[0]
    others = sorted(set(speakers) - {first})
    if len(others) != 1:
        raise ValueError(f"strict alternation needs exactly two speakers, got {[first] + others}")
    a = np.array([i for i, s in enumerate(speakers) if s == first])
    b = np.array([i for i, s in enumerate(speakers) if s != first])
    if len(a) != (len(speakers) + 1) // 2:
        raise ValueError(
            f"{first} has {len(a)} of {len(speakers)} turns; strict alternation starting with "
            f"{first} needs {(len(speakers) + 1) // 2}"
        )
    return [a, b]


def count_constrained(speakers: Sequence[str]) -> int:
    """Number of orders with the first speaker first and strictly alternating speakers.

    Parameters
    ----------
    speakers : sequence of str, length n
        The speaker of each turn in the original order.

    Examples
    --------
    >>> count_constrained("ABABABABAB")
    14400
    """
    a, b = _slots(speakers)
    return math.factorial(len(a)) * math.factorial(len(b))


def _assemble(a_perms: np.ndarray, b_perms: np.ndarray, n: int) -> np.ndarray:
    out = np.empty((len(a_perms), n), dtype=np.int64)
    out[:, 0::2] = a_perms
    out[:, 1::2] = b_perms
    return out


def enumerate_constrained(speakers: Sequence[str], limit: int = 1_000_000) -> np.ndarray:
    """Every constrained order (count x n), the original first; refuses more than ``limit``.

    Parameters
    ----------
    speakers : sequence of str, length n
        The speaker of each turn in the original order.
    limit : int
        The most orders returned; more raise ``ValueError``.

    Returns
    -------
    ndarray of int, shape (count_constrained(speakers), n)

    Examples
    --------
    >>> enumerate_constrained("ABAB").tolist()
    [[0, 1, 2, 3], [0, 3, 2, 1], [2, 1, 0, 3], [2, 3, 0, 1]]
    """
    a, b = _slots(speakers)
    total = count_constrained(speakers)
    if total > limit:
        raise ValueError(f"{total} orders is more than limit={limit}; sample them instead")
    pa = np.array(list(permutations(a)), dtype=np.int64).reshape(-1, len(a))
    pb = np.array(list(permutations(b)), dtype=np.int64).reshape(-1, len(b))
    return _assemble(np.repeat(pa, len(pb), axis=0), np.tile(pb, (len(pa), 1)), len(speakers))


def sample_constrained(speakers: Sequence[str], size: int, seed: int | np.random.Generator | None = None) -> np.ndarray:
    """``size`` constrained orders drawn uniformly (with replacement), size x n.

    Parameters
    ----------
    speakers : sequence of str, length n
        The speaker of each turn in the original order.
    size : int
    seed : int, numpy.random.Generator or None

    Returns
    -------
    ndarray of int, shape (size, n)

    Examples
    --------
    >>> sample_constrained("ABAB", 3, seed=0).shape
    (3, 4)
    """
    a, b = _slots(speakers)
    rng = np.random.default_rng(seed)
    pa = rng.permuted(np.broadcast_to(a, (size, len(a))), axis=1)
    pb = rng.permuted(np.broadcast_to(b, (size, len(b))), axis=1)
    return _assemble(pa, pb, len(speakers))


@dataclass(frozen=True)
class RandomBaseline:
    """Expected scores of a uniformly random constrained order."""

    tau: float
    b2: float
    b3: float
    b23: float
    method: str
    standard_error: float = 0.0


def _exact_expectations(speakers: Sequence[str]) -> RandomBaseline:
    """Exact expectations by linearity over position pairs and windows (any length).

    A slot of speaker s holds each of s's N_s turns with probability 1/N_s; two slots of the same
    speaker hold an ordered pair of distinct turns with probability 1/(N_s (N_s - 1)); slots of
    different speakers are independent. So E[tau] averages, over slot pairs p < q, P(shown[p] <
    shown[q]) - P(shown[p] > shown[q]); E[b_n] averages, over windows of n slots and original
    n-grams, the probability that the window holds exactly that n-gram.
    """
    a, b = _slots(speakers)
    n = len(speakers)
    groups = {0: a, 1: b}
    slot_group = np.arange(n) % 2
    total_sign = 0.0
    for p in range(n):
        for q in range(p + 1, n):
            gp, gq = groups[slot_group[p]], groups[slot_group[q]]
            if slot_group[p] == slot_group[q]:
                total_sign += 0.0  # a random ordered pair of distinct turns: both orders equally likely
            else:
                diff = np.sign(gq[None, :] - gp[:, None])
                total_sign += diff.mean()
    tau = total_sign / (n * (n - 1) / 2)
    speaker_of = np.empty(n, dtype=np.int64)
    speaker_of[a], speaker_of[b] = 0, 1
    sizes = [len(a), len(b)]

    def expected_bn(k: int) -> float:
        if k > n:
            return float("nan")
        total = 0.0
        for start in range(n - k + 1):  # original n-gram start..start+k-1
            gram = speaker_of[start : start + k]
            for slot in range(n - k + 1):  # where it could be shown
                if not (slot_group[slot : slot + k] == gram).all():
                    continue
                prob = 1.0
                for s in (0, 1):
                    m = int((gram == s).sum())
                    prob /= math.perm(sizes[s], m)
                total += prob
        return total / (n - k + 1)

    b2, b3 = expected_bn(2), expected_bn(3)
    b23 = b2 if n < 3 else (b2 + b3) / 2
    return RandomBaseline(float(tau), b2, b3, float(b23), "exact")


def random_baseline(
    speakers: Sequence[str], *, method: str = "auto", samples: int = 100_000, seed: int | None = 0
) -> RandomBaseline:
    """Expected tau, b2, b3 and (b2 + b3)/2 of a random constrained order of a dialogue.

    ``method``: "enumerate" averages over every order (up to 12 turns); "monte_carlo" samples
    ``samples`` orders and reports the standard error of (b2 + b3)/2; "exact" uses the closed
    form by linearity of expectation (any length); "auto" enumerates up to 12 turns and uses the
    closed form beyond (the two agree exactly; see the tests).

    Parameters
    ----------
    speakers : sequence of str, length n
        The speaker of each turn in the original order.
    method : {"auto", "enumerate", "monte_carlo", "exact"}
    samples : int
        Orders drawn by "monte_carlo".
    seed : int or None
        The random generator's seed ("monte_carlo").

    Examples
    --------
    >>> r = random_baseline("ABABABABAB")  # Gandhe & Traum: tau 0.02, (b2+b3)/2 0.11
    >>> round(r.tau, 2), round(r.b23, 2), r.method
    (0.02, 0.11, 'enumerate')
    """
    n = len(speakers)
    if method == "auto":
        method = "enumerate" if n <= 12 else "exact"
    if method == "exact":
        return _exact_expectations(speakers)
    if method == "enumerate":
        orders = enumerate_constrained(speakers, limit=10**7)
    elif method == "monte_carlo":
        orders = sample_constrained(speakers, samples, seed)
    else:
        raise ValueError(f"method must be auto, enumerate, exact or monte_carlo, got {method!r}")
    tau = np.asarray(kendall_tau(orders))  # orders is (k, n): arrays of k values
    b2 = np.asarray(ngram_preservation(orders, 2))
    b3 = np.asarray(ngram_preservation(orders, 3)) if n >= 3 else np.full(len(orders), np.nan)
    b23 = b2 if n < 3 else (b2 + b3) / 2
    se = float(b23.std(ddof=1) / math.sqrt(len(b23))) if method == "monte_carlo" else 0.0
    return RandomBaseline(float(tau.mean()), float(b2.mean()), float(b3.mean()), float(b23.mean()), method, se)


def balanced_permutation_sets(
    speakers_per_dialogue: Sequence[Sequence[str]], m: int = 3, *, candidates: int = 200, seed: int | None = 0
) -> list[list[tuple[int, np.ndarray]]]:
    """m constrained permutations per dialogue spread over m sets, balanced by Kendall's tau.

    Following Gandhe & Traum's setup ("we ensured that not all permutations in a given set are
    particularly very good or very bad. We used Kendall's tau to balance the permutations across
    the given set as well as across the given dialogue"): for each dialogue draw ``candidates``
    distinct non-original orders, keep m whose taus sit at evenly spaced quantiles (a good, a
    middling and a bad one for m = 3), and give the k-th best of dialogue d to set (k + d) mod m, a
    Latin-square rotation so every set mixes good and bad orders and the sets' mean taus are close.

    Parameters
    ----------
    speakers_per_dialogue : sequence of sequences of str, length n_dialogues
        The speaker of each turn of each dialogue, in the original order.
    m : int
        Permutations per dialogue, and sets.
    candidates : int
        Distinct non-original orders drawn per dialogue to choose from.
    seed : int or None

    Returns
    -------
    list of m lists of (int, ndarray of int, shape (n_turns,))
        ``sets[s]`` = list of (dialogue index, order).

    Examples
    --------
    >>> sets = balanced_permutation_sets(["ABABAB", "ABABAB"], m=2, candidates=20)
    >>> [[d for d, _order in s] for s in sets]
    [[0, 1], [0, 1]]
    """
    if m < 1:
        raise ValueError("m must be at least 1")
    rng = np.random.default_rng(seed)
    sets: list[list[tuple[int, np.ndarray]]] = [[] for _ in range(m)]
    for d, speakers in enumerate(speakers_per_dialogue):
        total = count_constrained(speakers)
        if total - 1 < m:
            raise ValueError(f"dialogue {d} has only {total - 1} non-original orders, fewer than m = {m}")
        if total <= 5000:
            pool = enumerate_constrained(speakers)[1:]  # the first is the original order
        else:
            pool = np.unique(sample_constrained(speakers, candidates, rng), axis=0)
            pool = pool[(pool != np.arange(len(speakers))).any(axis=1)]
        taus = kendall_tau(pool)
        ranked = pool[np.argsort(-taus, kind="stable")]
        picks = np.unique(np.round(np.linspace(0, len(ranked) - 1, m)).astype(int))
        while len(picks) < m:  # tiny pools: fill with the nearest unused ranks
            picks = np.unique(
                np.concatenate([picks, [i for i in range(len(ranked)) if i not in picks][: m - len(picks)]])
            )
        for k, index in enumerate(sorted(picks)):
            sets[(k + d) % m].append((d, ranked[index]))
    return sets
