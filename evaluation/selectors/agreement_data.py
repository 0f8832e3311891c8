"""The data behind each agreement figure on the dashboard: every agreement block (a criterion, one speaker's
units, a label merge) with its coefficients, intervals, counts, category counts and coincidence matrix, and
the pairwise Cohen's kappas with their intervals, as tables and CSV rows read from the stored payload."""

from __future__ import annotations

from annotator.models import Criterion
from evaluation.selectors.dashboard import value_labels


def block_key(criterion: str, *, speaker: str | None = None, merge: str | None = None) -> str:
    """An agreement block's key: the criterion's, ``C/speaker/S`` or ``C/merge/M`` (it seeds the block's draws).

    >>> block_key("breakdown", merge="NB+PB,B")
    'breakdown/merge/NB+PB,B'
    """
    if speaker is not None:
        return f"{criterion}/speaker/{speaker}"
    return f"{criterion}/merge/{merge}" if merge is not None else criterion


def agreement_blocks(payload: dict, criteria: list[Criterion]) -> list[dict]:
    """Every agreement block of the payload in the project's order: ``key`` (as the CSV links name it),
    ``criterion``, ``speaker``/``merge`` (or None), ``level`` (the criterion's level of measurement), the stored
    ``figures``, the categories as annotators see them, and the coincidence matrix as rows."""
    labels = value_labels(criteria)
    out = []
    for c in criteria:
        entry = payload.get("criteria", {}).get(c.key)
        if entry is None:
            continue
        parts = [(None, None, entry)]
        parts += [(speaker, None, sub) for speaker, sub in (entry.get("by_speaker") or {}).items()]
        parts += [(None, merge, sub) for merge, sub in (entry.get("merges") or {}).items()]
        for speaker, merge, figures in parts:
            if "categories" not in figures:  # stored before the intervals were computed
                continue
            names = labels.get(c.key, {})
            shown = [names.get(v, v) for v in figures["categories"]]
            if merge is not None:  # a merge's categories are its groups of values, joined by "+"
                shown = ["+".join(names.get(v, v) for v in group.split("+")) for group in figures["categories"]]
            out.append(
                {
                    "key": block_key(c.key, speaker=speaker, merge=merge),
                    "criterion": c.key,
                    "speaker": speaker,
                    "merge": merge,
                    "level": c.level if merge is None else "nominal",
                    "figures": figures,
                    "categories": list(zip(shown, figures["category_counts"], strict=True)),
                    "coincidences": list(zip(shown, figures["coincidences"], strict=True)),
                    "labels": shown,
                }
            )
    return out


def agreement_block(payload: dict, criteria: list[Criterion], key: str) -> dict | None:
    """One block of ``agreement_blocks`` by its key, or None."""
    return next((b for b in agreement_blocks(payload, criteria) if b["key"] == key), None)


TABLES = ("categories", "coincidences", "cohen")


def agreement_csv_rows(payload: dict, criteria: list[Criterion], key: str, table: str) -> list[list] | None:
    """The rows of one downloadable table (header first), or None when the block or table does not exist.

    ``categories``: each category with the labels given in it (the kappas' marginals) and its share;
    ``coincidences``: alpha's coincidence matrix, a row and a column per category;
    ``cohen``: each pair of annotators with the units they share, their kappa and its interval (``key`` is
    the criterion)."""
    if table == "cohen":
        k = payload.get("reliability", {}).get("kappa", {}).get(key)
        if k is None or "ci_low" not in k:
            return None
        return [["annotator_a", "annotator_b", "shared_units", "kappa", "ci_low", "ci_high", "ci_method"]] + [
            [k["annotators"][a], k["annotators"][b], k["shared"][a][b], k["kappa"][a][b], k["ci_low"][a][b],
             k["ci_high"][a][b], k["ci_method"][a][b] or ""]
            for a in range(len(k["annotators"]))
            for b in range(a + 1, len(k["annotators"]))
        ]  # fmt: skip
    block = agreement_block(payload, criteria, key)
    if block is None or table not in TABLES:
        return None
    figures = block["figures"]
    if table == "categories":
        total = figures["pairable_values"]
        return [["category", "labels", "share"]] + [
            [label, n, round(n / total, 6) if total else ""] for label, n in block["categories"]
        ]
    return [["category", *block["labels"]]] + [[label, *row] for label, row in block["coincidences"]]


def cohen_pairs(kappa: dict) -> list[dict]:
    """The pairs of a ``reliability.kappa`` entry with their kappa, interval and shared units, worst first."""
    if "ci_low" not in kappa:
        return []
    names = kappa["annotators"]
    pairs = [
        {
            "a": names[a],
            "b": names[b],
            "shared": kappa["shared"][a][b],
            "kappa": kappa["kappa"][a][b],
            "ci": {
                "ci": [kappa["ci_low"][a][b], kappa["ci_high"][a][b]],
                "ci_method": kappa["ci_method"][a][b],
                "resamples": kappa["resamples"] if kappa["ci_method"][a][b] == "bootstrap" else kappa["shared"][a][b],
            },
        }
        for a in range(len(names))
        for b in range(a + 1, len(names))
    ]
    return sorted(pairs, key=lambda p: (p["kappa"] is None, p["kappa"] if p["kappa"] is not None else 0))
