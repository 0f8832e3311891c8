"""The dashboard's pairwise kappa heat maps and control-accuracy chart, ready to draw and to read.

Annotators are numbered 1..n on the heat map's axes with a key beside it (names such as
``dbdc3-en.imported.4xvmgin0`` did not fit), every cell carries its pair and value for the hover and the
table, and the script gets only what it draws (the kappa matrices and the control series), not the
whole reliability payload of hundreds of annotators.
"""

from __future__ import annotations

from evaluation.selectors.dashboard_annotators import display_name


def kappa_maps(*, reliability: dict | None, slug: str) -> list[dict]:
    """Per criterion: its weights, how many annotators of how many, the numbered names and the rows of cells."""
    maps = []
    for key, k in ((reliability or {}).get("kappa") or {}).items():
        names = [display_name(n, slug) for n in k["annotators"]]
        rows = [
            {
                "index": a,
                "number": a + 1,
                "name": names[a],
                "cells": [
                    {"index": b, "value": x, "pair": f"{a + 1} {names[a]} × {b + 1} {names[b]}", "self": a == b}
                    for b, x in enumerate(row)
                ],
            }
            for a, row in enumerate(k["kappa"])
        ]
        maps.append(
            {
                "key": key,
                "weights": k.get("weights", "none"),
                "shown": len(names),
                "of": k.get("of", len(names)),
                "names": list(enumerate(names, start=1)),
                "rows": rows,
                "matrices": k,  # the payload's matrices, for each cell's interval (agreement_data.pair_interval)
            }
        )
    return maps


def reliability_chart_data(*, reliability: dict | None, slug: str) -> dict:
    """What static/js/reliability.js draws: each heat map's names and matrix, each annotator's control series."""
    reliability = reliability or {}
    return {
        "kappa": {
            key: {"annotators": [display_name(n, slug) for n in k["annotators"]], "kappa": k["kappa"]}
            for key, k in (reliability.get("kappa") or {}).items()
        },
        "control": {
            display_name(name, slug): [p["cumulative"] for p in r["control"]["series"]]
            for name, r in sorted((reliability.get("annotators") or {}).items())
            if r.get("control") and r["control"].get("series")
        },
    }
