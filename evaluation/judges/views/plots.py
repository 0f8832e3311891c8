"""Geometry of the judge page's inline SVG plots (the template draws them; every plot has a table beside
it with the same numbers): the reliability diagram, the alt-test per annotator, PPI against human-only
intervals."""

from __future__ import annotations

WIDTH, HEIGHT, PAD = 320, 240, 36


def _x(v: float, lo: float = 0.0, hi: float = 1.0, width: int = WIDTH) -> float:
    return round(PAD + (v - lo) / ((hi - lo) or 1) * (width - 2 * PAD), 1)


def _y(v: float, lo: float = 0.0, hi: float = 1.0, height: int = HEIGHT) -> float:
    return round(height - PAD - (v - lo) / ((hi - lo) or 1) * (height - 2 * PAD), 1)


def reliability_plot(bins: list[dict]) -> dict:
    """Accuracy against confidence per filled bin, and the diagonal of perfect calibration."""
    points = [{"x": _x(b["confidence"]), "y": _y(b["accuracy"]), "count": b["count"], **b} for b in bins if b["count"]]
    return {
        "width": WIDTH, "height": HEIGHT, "points": points,
        "diagonal": (_x(0), _y(0), _x(1), _y(1)),
        "axes": {"left": PAD, "bottom": HEIGHT - PAD, "right": WIDTH - PAD, "top": PAD},
        "ticks": [{"v": t / 4, "x": _x(t / 4), "y": _y(t / 4)} for t in range(5)],
    }  # fmt: skip


def alt_test_plot(rows: list[dict], epsilon: float) -> dict:
    """Per annotator (one row each): the judge's advantage probability and the annotator's minus epsilon,
    on a 0-1 axis; the row's label to the right of the axis."""
    row_height = 18
    bars = []
    for i, r in enumerate(rows):
        bars.append(
            {
                "y": PAD + i * row_height + row_height / 2,
                "label": f"{r['annotator']} · {r['criterion']}",
                "judge_x": _x(r["rho_judge"]),
                "human_x": _x(max(r["rho_human"] - epsilon, 0.0)),
                "wins": r["judge_wins"],
            }
        )
    return {
        "width": WIDTH + 240, "height": PAD + row_height * len(rows) + 10, "bars": bars,
        "left": _x(0), "right": _x(1), "ticks": [{"v": t / 4, "x": _x(t / 4)} for t in range(5)],
    }  # fmt: skip


def ppi_plot(rows: list[dict]) -> dict:
    """Per system row: the human-only interval above the PPI interval, on a common scale."""
    spans = [v for r in rows for part in ("ppi", "human_only") for v in r[part]["ci"] if v is not None]
    if not spans:
        return {"rows": []}
    lo, hi = min(spans), max(spans)
    lo, hi = lo - 0.05 * (hi - lo or 1), hi + 0.05 * (hi - lo or 1)
    width, row_height = WIDTH + 160, 30
    out = []
    for i, r in enumerate(rows):
        y = PAD + i * row_height
        line = {"y": y, "label": f"{r['system']} · {r['criterion']} · {r['target']}"}
        for part in ("human_only", "ppi"):
            low, high = r[part]["ci"]
            est = r[part]["estimate"]
            if low is None or est is None:
                line[part] = None
                continue
            line[part] = {
                "x1": _x(low, lo, hi, width), "x2": _x(high, lo, hi, width), "cx": _x(est, lo, hi, width),
            }  # fmt: skip
        out.append(line)
    ticks = [lo + t * (hi - lo) / 4 for t in range(5)]
    return {
        "width": width, "height": PAD + row_height * len(rows) + 10, "rows": out,
        "ticks": [{"v": round(v, 3), "x": _x(v, lo, hi, width)} for v in ticks],
    }  # fmt: skip
