"""Pairwise votes: which of two candidate responses (from two systems) an annotator preferred.

One vote is one judgement of one comparison item on one criterion: candidates ``a`` and ``b`` (system
indices), the outcome (1 = a better, 0 = b better, 0.5 = tie), whether the tie was "both bad", which
candidate was shown first, the item, and the candidates' length difference.

"Both bad" counts as a tie in every model here, as Chatbot Arena counts its "tie (bothbad)" votes
(Chiang et al. 2024, arXiv 2403.04132, section 3); it is kept as a flag so that its share can be reported.

Examples
--------
>>> votes = PairwiseVotes.from_records([
...     {"a": "x", "b": "y", "winner": "x", "shown_first": "y", "item": "c1", "len_a": 30, "len_b": 10},
...     {"a": "y", "b": "x", "winner": "both_bad", "shown_first": "y", "item": "c1", "len_a": 10, "len_b": 30},
... ])
>>> votes.systems, votes.outcome.tolist(), votes.both_bad.tolist(), votes.a_shown_first.tolist()
(('x', 'y'), [1.0, 0.5], [False, True], [False, True])
>>> wins, ties = win_matrix(votes)
>>> wins.tolist(), ties.tolist()
([[0, 1], [0, 0]], [[0, 1], [1, 0]])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

OUTCOMES = {"tie": 0.5, "both_bad": 0.5}


@dataclass(frozen=True, eq=False)
class PairwiseVotes:
    """Votes as equal-length arrays (n votes) over the systems ``systems``.

    Parameters
    ----------
    systems : tuple of str
        The systems' names; ``a`` and ``b`` index into it.
    a, b : array-like of int, shape (n,)
        The two candidates' systems (``a != b``).
    outcome : array-like of float, shape (n,)
        1.0 = a better, 0.0 = b better, 0.5 = tie (including "both bad").
    both_bad : array-like of bool, shape (n,)
        The tie was "both bad" (a tie for the models, as in Chatbot Arena).
    a_shown_first : array-like of bool, shape (n,)
        Candidate a was shown first (left / top).
    item : array-like of int, shape (n,)
        The comparison item's index.
    length_diff : array-like of float, shape (n,)
        len(a's text) - len(b's text), in characters.
    covariates : array-like of float, shape (n, k), optional
        Lead-given per-vote covariates, each an a-minus-b difference (so that swapping a and b flips its sign).
    covariate_names : tuple of str
        The covariates' names, k of them.
    length_total : array-like of float, shape (n,), optional
        len(a's text) + len(b's text); with it the style control normalises the length difference as
        Chatbot Arena does, (len_a - len_b) / (len_a + len_b).
    """

    systems: tuple[str, ...]
    a: np.ndarray
    b: np.ndarray
    outcome: np.ndarray
    both_bad: np.ndarray
    a_shown_first: np.ndarray
    item: np.ndarray
    length_diff: np.ndarray
    covariates: np.ndarray | None = None
    covariate_names: tuple[str, ...] = field(default=())
    length_total: np.ndarray | None = None

    def __post_init__(self):
        set_ = object.__setattr__
        set_(self, "systems", tuple(str(s) for s in self.systems))
        set_(self, "a", np.asarray(self.a, dtype=np.int64).reshape(-1))
        set_(self, "b", np.asarray(self.b, dtype=np.int64).reshape(-1))
        n = len(self.a)
        set_(self, "outcome", np.asarray(self.outcome, dtype=float).reshape(-1))
        set_(self, "both_bad", _flags(self.both_bad, n))
        set_(self, "a_shown_first", _flags(self.a_shown_first, n, default=True))
        set_(self, "item", np.arange(n) if self.item is None else np.asarray(self.item, dtype=np.int64).reshape(-1))
        set_(self, "length_diff", _floats(self.length_diff, n))
        if self.length_total is not None:
            set_(self, "length_total", _floats(self.length_total, n))
        if self.covariates is not None:
            cov = np.asarray(self.covariates, dtype=float)
            cov = cov.reshape(n, -1) if cov.size or n == 0 else cov.reshape(0, 0)
            set_(self, "covariates", cov)
            names = tuple(self.covariate_names) or tuple(f"covariate_{j}" for j in range(cov.shape[1]))
            set_(self, "covariate_names", names)
        self._check(n)

    def _check(self, n: int) -> None:
        for name in ("b", "outcome", "both_bad", "a_shown_first", "item", "length_diff"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"{name} has {len(getattr(self, name))} entries, a has {n}")
        s = len(self.systems)
        if n and (min(self.a.min(), self.b.min()) < 0 or max(self.a.max(), self.b.max()) >= s):
            raise ValueError(f"system indices must be in 0..{s - 1}")
        if np.any(self.a == self.b):
            raise ValueError("a vote compares a system with itself (a == b)")
        if not np.isin(self.outcome, (0.0, 0.5, 1.0)).all():
            raise ValueError("outcome must be 1.0 (a better), 0.0 (b better) or 0.5 (tie)")
        if np.any(self.both_bad & (self.outcome != 0.5)):
            raise ValueError("a both-bad vote must have outcome 0.5 (a tie)")
        if not np.isfinite(self.length_diff).all():
            raise ValueError("length_diff must be finite")
        if self.covariates is not None:
            if self.covariates.shape[0] != n or len(self.covariate_names) != self.covariates.shape[1]:
                raise ValueError("covariates must be n x k with k names")
            if not np.isfinite(self.covariates).all():
                raise ValueError("covariates must be finite")

    def __len__(self) -> int:
        return len(self.a)

    @property
    def n(self) -> int:
        """The number of votes."""
        return len(self.a)

    def subset(self, index) -> PairwiseVotes:
        """The votes selected by a boolean mask or an index array (the systems are kept).

        Parameters
        ----------
        index : array-like of bool, shape (n,), or of int
        """

        def pick(x):
            return None if x is None else x[index]

        return PairwiseVotes(
            systems=self.systems,
            a=self.a[index],
            b=self.b[index],
            outcome=self.outcome[index],
            both_bad=self.both_bad[index],
            a_shown_first=self.a_shown_first[index],
            item=self.item[index],
            length_diff=self.length_diff[index],
            covariates=pick(self.covariates),
            covariate_names=self.covariate_names,
            length_total=pick(self.length_total),
        )

    @classmethod
    def from_records(
        cls,
        records: Iterable[Mapping],
        systems: Sequence[str] | None = None,
        covariate_names: Sequence[str] = (),
    ) -> PairwiseVotes:
        """Votes from dicts ``{"a", "b", "winner", "shown_first", "item", "len_a", "len_b"}``.

        Parameters
        ----------
        records : iterable of dict
            ``a`` and ``b`` are system names; ``winner`` is one of them, ``"tie"`` or ``"both_bad"``;
            ``shown_first`` is the name of the system shown first (missing: a); ``item`` any hashable
            id of the comparison item (numbered in order of appearance; missing: one item per vote);
            ``len_a`` / ``len_b`` the candidates' lengths in characters (missing: 0); optional
            ``covariates``, a dict ``{name: a-minus-b value}`` or a list in ``covariate_names`` order.
        systems : sequence of str, optional
            The systems in index order (default: the names seen, sorted); more may be listed than voted on.
        covariate_names : sequence of str
            The covariates' names (default: the keys of the first record's ``covariates`` dict).
        """
        records = list(records)
        names = list(systems) if systems is not None else sorted({str(r[k]) for r in records for k in ("a", "b")})
        index = {name: i for i, name in enumerate(names)}
        items: dict = {}
        a, b, outcome, both_bad, first, item, len_a, len_b, cov = ([] for _ in range(9))
        covariate_names = list(covariate_names)
        for n, r in enumerate(records):
            sa, sb, winner = str(r["a"]), str(r["b"]), str(r["winner"])
            if sa not in index or sb not in index:
                raise ValueError(f"record {n}: system {sa if sa not in index else sb!r} is not in systems")
            if winner == sa:
                value = 1.0
            elif winner == sb:
                value = 0.0
            elif winner in OUTCOMES:
                value = OUTCOMES[winner]
            else:
                raise ValueError(f"record {n}: winner {winner!r} is neither {sa!r}, {sb!r}, 'tie' nor 'both_bad'")
            a.append(index[sa])
            b.append(index[sb])
            outcome.append(value)
            both_bad.append(winner == "both_bad")
            shown = r.get("shown_first")
            if shown is not None and str(shown) not in (sa, sb):
                raise ValueError(f"record {n}: shown_first {shown!r} is neither candidate")
            first.append(shown is None or str(shown) == sa)
            key = r.get("item", ("vote", n))
            item.append(items.setdefault(key, len(items)))
            len_a.append(float(r.get("len_a") or 0))
            len_b.append(float(r.get("len_b") or 0))
            values = r.get("covariates")
            if values is not None:
                if isinstance(values, Mapping):
                    covariate_names = covariate_names or list(values)
                    values = [values[name] for name in covariate_names]
                cov.append([float(v) for v in values])
        if cov and len(cov) != len(records):
            raise ValueError("covariates must be given for every record or for none")
        la, lb = np.asarray(len_a), np.asarray(len_b)
        return cls(
            systems=tuple(names),
            a=np.asarray(a, dtype=np.int64),
            b=np.asarray(b, dtype=np.int64),
            outcome=np.asarray(outcome),
            both_bad=np.asarray(both_bad, dtype=bool),
            a_shown_first=np.asarray(first, dtype=bool),
            item=np.asarray(item, dtype=np.int64),
            length_diff=la - lb,
            covariates=np.asarray(cov, dtype=float) if cov else None,
            covariate_names=tuple(covariate_names) if cov else (),
            length_total=la + lb,
        )


def _flags(x, n: int, default: bool = False) -> np.ndarray:
    if x is None:
        return np.full(n, default)
    return np.asarray(x, dtype=bool).reshape(-1)


def _floats(x, n: int) -> np.ndarray:
    if x is None:
        return np.zeros(n)
    return np.asarray(x, dtype=float).reshape(-1)


def win_matrix(votes: PairwiseVotes) -> tuple[np.ndarray, np.ndarray]:
    """Wins and ties between every two systems.

    Parameters
    ----------
    votes : PairwiseVotes

    Returns
    -------
    wins : ndarray of int, shape (n_systems, n_systems)
        ``wins[i, j]`` = votes in which system i beat system j.
    ties : ndarray of int, shape (n_systems, n_systems)
        ``ties[i, j]`` = ``ties[j, i]`` = tied votes (both-bad included) between i and j.
    """
    s = len(votes.systems)
    winner = np.where(votes.outcome == 1.0, votes.a, votes.b)
    loser = np.where(votes.outcome == 1.0, votes.b, votes.a)
    decisive = votes.outcome != 0.5
    wins = np.bincount(winner[decisive] * s + loser[decisive], minlength=s * s).reshape(s, s)
    tied = np.bincount(votes.a[~decisive] * s + votes.b[~decisive], minlength=s * s).reshape(s, s)
    return wins, tied + tied.T
