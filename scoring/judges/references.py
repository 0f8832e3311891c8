"""Reference judges for the alternative annotator test: what it says of judges that know nothing, and of a
human held out, so that a judge's verdict says whether the test can tell anything on these humans.

The alt-test (``scoring.judges.alt_test``, Calderon, Reichart & Dror, ACL 2025) asks whether a judge
represents the remaining annotators as well as the annotator it replaces. When the annotators agree little,
a judge that knows nothing can do that: on DBDC3 English (Krippendorff's alpha about 0.07), a judge that
always answers the middle label "PB" wins against 99% of the annotators under the negative RMSE, because
the middle of an ordered scale is the point nearest to any spread of labels. The paper's FAQ asks for the
humans' agreement beside every verdict for this reason ("This is essential to ensure that the annotators are
sufficiently reliable and the epsilon value is appropriate"). Here the test is run on reference judges too:

* **trivial references**: each constant answer (on a criterion whose scale depends on the speaker, one
  value per speaker's scale: every combination), and labels drawn at random from the humans' own label
  distribution (per speaker's scale), seeded so that recomputation gives the same draws;
* **a held-out human** (where one exists): the annotator with the most judgements, taken out of the pool,
  their labels tested as a judge's against the others (items that keep ``min_humans`` humans).

A judge **beats** a reference when its average advantage probability rho (the paper's measure for comparing
judges) is higher, by a one-sided paired t-test over the annotators both were tested against (the
per-annotator ``rho_f``, alpha 0.05; with fewer than two shared annotators, by the difference alone). A
verdict is ``not_informative`` when the judge does not beat the best trivial reference (the one with the
highest rho): whatever the test says of it, always answering one label or guessing from the label
distribution does as well. Otherwise it is the alt-test's own (``passed`` or ``failed``).

Which alignment the verdict uses on an ordered scale (accuracy or negative RMSE, the paper's two scoring
functions) is chosen from the references alone, never from the judge's labels (``alignment_choice``): the
one under which the held-out human's rho exceeds the best trivial reference's (answering the human's items)
by most; without a held-out human, the one under which the best trivial reference's winning rate is lowest;
on a tie, the paper's default for the scale.

Epsilon follows who annotated, as the paper recommends (its FAQ): 0.2 for experts, 0.15 for skilled
annotators, 0.1 for crowd workers (``EPSILON_BY_ANNOTATORS``).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

from scoring.agreement.kappa import _kappa_weights, cohen_kappa_of_tables
from scoring.judges.agreement import majority_labels
from scoring.judges.alt_test import (
    EPSILON,
    MIN_HUMANS,
    MIN_ITEMS,
    Q_FDR,
    AltTest,
    AltTestPool,
    _grouped_one_sided,
)

CONSTANT, RANDOM, HELD_OUT = "constant", "random", "held_out"
NOT_TESTED, NOT_INFORMATIVE, PASSED, FAILED = "not_tested", "not_informative", "passed", "failed"
EXPERTS, SKILLED, CROWD = "experts", "skilled", "crowd"
EPSILON_BY_ANNOTATORS = {EXPERTS: 0.2, SKILLED: 0.15, CROWD: 0.1}
BEAT_ALPHA = 0.05


@dataclass(frozen=True)
class Reference:
    """One reference judge and its alt-test: ``labels`` the value index per item (-1 where none); ``values``
    the constant's value index per speaker's scale, or the held-out annotator's index; ``kappa`` Cohen's kappa
    of its labels with the humans' majority label (the held-out human's: with the others' majority)."""

    kind: str
    values: tuple[int, ...]
    labels: np.ndarray
    test: AltTest
    kappa: float | None

    @property
    def trivial(self) -> bool:
        return self.kind != HELD_OUT

    def as_dict(self, value_names=None, annotator_names=None) -> dict:
        """``kind``, ``label`` (the constant's values joined by " / ", the held-out annotator's name) and the
        test's summary."""
        label: str | int | None = None
        if self.kind == CONSTANT:
            label = " / ".join(str(value_names[v]) if value_names is not None else str(v) for v in self.values)
        elif self.kind == HELD_OUT:
            label = annotator_names(self.values[0]) if annotator_names is not None else self.values[0]
        return {"kind": self.kind, "label": label, **self.test.summary(), "kappa": self.kappa}


@dataclass(frozen=True)
class Comparison:
    """Whether a judge beats a reference: the mean per-annotator difference of ``rho_f`` (judge minus
    reference) over ``n`` shared annotators, the one-sided paired test's p-value (None below two)."""

    difference: float | None
    p_value: float | None
    n: int
    beats: bool

    def as_dict(self) -> dict:
        return {"difference": self.difference, "p_value": self.p_value, "annotators": self.n, "beats": self.beats}


def rho_comparison(judge: dict, reference: dict, *, alpha: float = BEAT_ALPHA) -> Comparison:
    """Does the judge's advantage probability exceed the reference's? ``judge`` and ``reference`` map each
    tested annotator (any key, e.g. (criterion, annotator)) to its ``rho_f``; the one-sided paired t-test of
    H0: mean(rho_judge - rho_reference) <= 0 over the shared annotators, at ``alpha``.

    >>> rho_comparison({0: 0.9, 1: 0.8, 2: 0.85}, {0: 0.5, 1: 0.55, 2: 0.5}).beats
    True
    >>> rho_comparison({0: 0.5, 1: 0.5}, {0: 0.5, 1: 0.5}).beats  # the same answers: no better
    False
    """
    shared = sorted(set(judge) & set(reference), key=str)
    if not shared:
        return Comparison(None, None, 0, False)
    d = np.array([judge[k] - reference[k] for k in shared], dtype=float)
    mean = float(d.mean())
    if len(d) < 2:
        return Comparison(mean, None, 1, mean > 0)
    # H1: mean(d) > 0 is H1: mean(-d) < 0, the alt-test's one-sided form with epsilon 0
    _t, p = _grouped_one_sided(-d, np.zeros(len(d), dtype=np.int64), 1, 0.0)
    return Comparison(mean, float(p[0]), len(d), bool(p[0] < alpha) and mean > 0)


def _scales(n_items: int, n_values: int, scales) -> list[tuple[np.ndarray, list[int]]]:
    if scales is None:
        return [(np.ones(n_items, dtype=bool), list(range(n_values)))]
    return [(np.asarray(mask, dtype=bool), list(allowed)) for mask, allowed in scales]


def trivial_labels(counts, *, scales=None, seed: int = 0) -> list[tuple[str, tuple[int, ...], np.ndarray]]:
    """The trivial reference judges' labels: ``(kind, values, labels)`` for each constant answer (one value
    per scale; every combination) and for labels drawn from the humans' label distribution (per scale).

    Parameters
    ----------
    counts : (items, V) the humans' value counts per item
    scales : optional list of (items,) masks with the value indices allowed on those items (a criterion
        whose scale depends on the speaker); default one scale of every value
    seed : the random draws' seed

    Examples
    --------
    >>> [(kind, values, labels.tolist()) for kind, values, labels in trivial_labels([[2, 0], [1, 1]])][:2]
    [('constant', (0,), [0, 0]), ('constant', (1,), [1, 1])]
    """
    counts = np.asarray(counts, dtype=np.int64)
    n_items, n_values = counts.shape
    parts = _scales(n_items, n_values, scales)
    out = []
    for combination in product(*(allowed for _mask, allowed in parts)):
        labels = np.full(n_items, -1, dtype=np.int64)
        for (mask, _allowed), v in zip(parts, combination):
            labels[mask] = v
        out.append((CONSTANT, tuple(int(v) for v in combination), labels))
    rng = np.random.default_rng(seed)
    drawn = np.full(n_items, -1, dtype=np.int64)
    for mask, allowed in parts:
        shares = counts[mask][:, allowed].sum(axis=0).astype(float)
        if shares.sum() > 0:
            drawn[mask] = np.asarray(allowed)[rng.choice(len(allowed), size=int(mask.sum()), p=shares / shares.sum())]
    out.append((RANDOM, (), drawn))
    return out


def majority_kappa(counts, labels) -> float | None:
    """Cohen's kappa of ``labels`` with the humans' majority label, on the items both have (None where
    undefined, as for a constant judge against a constant majority).

    >>> majority_kappa([[2, 0], [0, 2], [2, 1]], [0, 1, 0])
    1.0
    """
    counts = np.asarray(counts)
    labels = np.asarray(labels, dtype=np.int64)
    majority = majority_labels(counts)
    both = (labels >= 0) & (majority >= 0)
    n_values = counts.shape[1]
    cells = np.bincount(labels[both] * n_values + majority[both], minlength=n_values * n_values)
    kappa = float(cohen_kappa_of_tables(cells.reshape(1, n_values, n_values), _kappa_weights(n_values, None))[0])
    return kappa if np.isfinite(kappa) else None


def held_out_annotator(unit, annotator, *, min_items: int = MIN_ITEMS, min_humans: int = MIN_HUMANS) -> int | None:
    """The annotator to hold out as a reference: the one with the most judgements on items that keep
    ``min_humans`` humans without them (ties: the lowest index), if that is ``min_items`` or more.

    >>> held_out_annotator([0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2], min_items=1)
    0
    >>> held_out_annotator([0, 0, 1, 1], [0, 1, 0, 1], min_items=1) is None  # two humans: one would remain
    True
    """
    unit, annotator = np.asarray(unit, dtype=np.int64), np.asarray(annotator, dtype=np.int64)
    if not len(unit):
        return None
    humans = np.bincount(unit)
    usable = humans[unit] - 1 >= min_humans
    per = np.bincount(annotator[usable], minlength=int(annotator.max()) + 1)
    best = int(per.argmax())
    return best if per[best] >= min_items else None


@dataclass(frozen=True)
class References:
    """The reference judges of one criterion under one alignment; ``held_out_baseline`` is the best trivial
    reference's test on the held-out human's items against the same humans (the like-for-like comparison
    of the human with what knows nothing)."""

    scoring: str
    references: list[Reference]
    held_out_baseline: AltTest | None = None

    @property
    def trivial(self) -> list[Reference]:
        return [r for r in self.references if r.trivial]

    @property
    def best_trivial(self) -> Reference | None:
        """The trivial reference with the highest rho (the first constant on a tie)."""
        tested = [r for r in self.trivial if np.isfinite(r.test.rho)]
        return max(tested, key=lambda r: r.test.rho) if tested else None

    @property
    def held_out(self) -> Reference | None:
        return next((r for r in self.references if r.kind == HELD_OUT), None)

    def held_out_comparison(self, *, alpha: float = BEAT_ALPHA) -> Comparison | None:
        """Does the held-out human beat the best trivial reference, both answering the human's items?"""
        held = self.held_out
        if held is None or self.held_out_baseline is None:
            return None
        return rho_comparison(held.test.rho_by_annotator, self.held_out_baseline.rho_by_annotator, alpha=alpha)


def reference_tests(
    unit, annotator, value, *, n_values: int, scoring: str, values=None, epsilon: float = EPSILON,
    q: float = Q_FDR, covered=None, scales=None, seed: int = 0, pool: AltTestPool | None = None,
    min_items: int = MIN_ITEMS, min_humans: int = MIN_HUMANS,
) -> References:  # fmt: skip
    """The alt-test of every reference judge on the humans' judgements (long form) under ``scoring``.

    Parameters
    ----------
    unit, annotator, value : the humans' judgements (item index, annotator index, value index)
    n_values, scoring, values, epsilon, q : as ``alt_test``
    covered : optional (items,) mask: the trivial references answer only these items (the judge's), so
        that the judge and its references are tested on the same items; default every item
    scales : as ``trivial_labels`` (a scale per speaker)
    seed : the random reference's draws
    pool : the humans' ``AltTestPool`` under ``scoring`` when the caller has it already

    Examples
    --------
    A middle label on an ordered scale whose annotators answer at random: under the negative RMSE it
    represents the others better than any of them does, and better than a held-out annotator.

    >>> rng = np.random.default_rng(0)
    >>> unit = np.repeat(np.arange(60), 5); annotator = np.tile(np.arange(5), 60)
    >>> value = rng.integers(0, 3, 300)
    >>> refs = reference_tests(unit, annotator, value, n_values=3, scoring="neg_rmse")
    >>> best = refs.best_trivial
    >>> best.kind, best.values, best.test.passed, round(best.test.rho, 2), round(refs.held_out.test.rho, 2)
    ('constant', (1,), True, 0.94, 0.72)
    """
    unit, annotator, value = (np.asarray(a, dtype=np.int64) for a in (unit, annotator, value))
    n_items = int(unit.max()) + 1 if len(unit) else 0
    counts = np.bincount(unit * n_values + value, minlength=n_items * n_values).reshape(n_items, n_values)
    if pool is None:
        pool = AltTestPool.of(
            unit, annotator, value, n_values=n_values, scoring=scoring, values=values, min_items=min_items,
            min_humans=min_humans,
        )  # fmt: skip
    mask = np.ones(n_items, dtype=bool) if covered is None else np.asarray(covered, dtype=bool)[:n_items]
    out, everywhere = [], []  # everywhere: each trivial reference's answers on every item
    for kind, chosen, labels in trivial_labels(counts, scales=scales, seed=seed):
        everywhere.append(labels)
        labels = np.where(mask, labels, -1)
        test = pool.test(labels, epsilon=epsilon, q=q)
        out.append(Reference(kind, chosen, labels, test, majority_kappa(counts, labels)))
    held = held_out_annotator(unit, annotator, min_items=min_items, min_humans=min_humans)
    if held is not None:
        mine = annotator == held
        labels = np.full(n_items, -1, dtype=np.int64)
        labels[unit[mine]] = value[mine]
        rest = ~mine
        held_pool = AltTestPool.of(
            unit[rest], annotator[rest], value[rest], n_values=n_values, scoring=scoring, values=values,
            min_items=min_items, min_humans=min_humans,
        )  # fmt: skip
        test = held_pool.test(labels, epsilon=epsilon, q=q)
        others = np.bincount(unit[rest] * n_values + value[rest], minlength=n_items * n_values)
        out.append(Reference(HELD_OUT, (held,), labels, test, majority_kappa(others.reshape(-1, n_values), labels)))
        best = References(scoring, out).best_trivial
        if best is not None:
            answers = everywhere[next(i for i, r in enumerate(out) if r is best)]
            baseline = held_pool.test(np.where(labels >= 0, answers, -1), epsilon=epsilon, q=q)
            return References(scoring, out, baseline)
    return References(scoring, out)


def alignment_choice(by_scoring: dict[str, References], default: str) -> str:
    """The alignment a verdict uses, chosen from the reference judges alone: the one under which the held-out
    human's rho exceeds the best trivial reference's by most (on the human's items, ``held_out_baseline``,
    where there is one; where every alignment has a held-out human),
    else the one under which the best trivial reference's winning rate is lowest; ``default`` on a tie.

    >>> from scoring.judges.alt_test import AltTest
    >>> def refs(scoring, trivial_rho, human_rho):
    ...     test = lambda rho: AltTest(0.1, 0.05, scoring, 0.0, False, rho, [], [])
    ...     return References(scoring, [Reference(CONSTANT, (1,), np.zeros(1), test(trivial_rho), None),
    ...                                 Reference(HELD_OUT, (0,), np.zeros(1), test(human_rho), None)])
    >>> alignment_choice({"neg_rmse": refs("neg_rmse", 0.89, 0.52), "accuracy": refs("accuracy", 0.66, 0.60)},
    ...                  "neg_rmse")
    'accuracy'
    """
    scored = {}
    for scoring, refs in by_scoring.items():
        best, held = refs.best_trivial, refs.held_out
        if best is None:
            continue
        if held is not None and np.isfinite(held.test.rho) and all(r.held_out for r in by_scoring.values()):
            baseline = refs.held_out_baseline
            scored[scoring] = held.test.rho - (baseline.rho if baseline is not None else best.test.rho)
        elif np.isfinite(best.test.winning_rate):
            scored[scoring] = -best.test.winning_rate
    if not scored:
        return default
    top = max(scored.values())
    winners = [s for s, v in scored.items() if np.isclose(v, top)]
    return default if default in winners else winners[0]


@dataclass(frozen=True)
class Verdict:
    """What the alt-test says of a judge given its references: ``state`` (``passed``, ``failed``,
    ``not_informative``, ``not_tested``), the best trivial reference and the comparison with it, and
    whether any trivial reference passes (the test passes what knows nothing)."""

    state: str
    best_trivial: Reference | None
    against_best: Comparison | None
    trivial_passes: bool


def verdict(judge: AltTest, references: References, *, alpha: float = BEAT_ALPHA) -> Verdict:
    """The judge's verdict against its references (see the module's description).

    >>> unit = np.repeat(np.arange(60), 5); annotator = np.tile(np.arange(5), 60)
    >>> value = np.random.default_rng(0).integers(0, 3, 300)
    >>> refs = reference_tests(unit, annotator, value, n_values=3, scoring="neg_rmse")
    >>> v = verdict(refs.best_trivial.test, refs)  # a judge that always answers the middle label
    >>> v.state, v.against_best.beats, v.trivial_passes
    ('not_informative', False, True)
    """
    best = references.best_trivial
    trivial_passes = any(r.test.passed for r in references.trivial)
    if not np.isfinite(judge.winning_rate):
        return Verdict(NOT_TESTED, best, None, trivial_passes)
    if best is None:
        return Verdict(PASSED if judge.passed else FAILED, None, None, trivial_passes)
    against = rho_comparison(judge.rho_by_annotator, best.test.rho_by_annotator, alpha=alpha)
    if not against.beats:
        return Verdict(NOT_INFORMATIVE, best, against, trivial_passes)
    return Verdict(PASSED if judge.passed else FAILED, best, against, trivial_passes)
