"""The dashboard's Bradley-Terry section drawn from the stored payload: each system's interval placed on a
common axis (an inline SVG per row), raw and style-controlled ranks side by side, and the win matrix's cells
shaded by the row system's share of the decided votes (``{% bradley_terry_view payload as bt %}``)."""

from __future__ import annotations

from django import template

register = template.Library()

SVG_WIDTH = 200  # the interval's drawing, in SVG units (scaled to the column's width)


def _axis(summaries: list[dict]) -> tuple[float, float]:
    ends = [x for s in summaries for r in s["systems"] for x in (r["ci"] or []) if x is not None]
    ends += [r["score"] for s in summaries for r in s["systems"] if r["score"] is not None]
    low, high = (min(ends), max(ends)) if ends else (-1.0, 1.0)
    pad = max(0.05, (high - low) * 0.05)
    return low - pad, high + pad


def _x(value: float | None, low: float, high: float) -> float | None:
    return None if value is None else round((value - low) / (high - low) * SVG_WIDTH, 2)


def _shade(share: float | None) -> str:
    """A cell's class: ``win-none`` without votes, else ``kappa-pos-N``/``kappa-neg-N`` by how far the share
    is from one half (the dashboard's heat-map colours: blue wins, red losses)."""
    if share is None:
        return "kappa-none"
    step = min(5, int(abs(share - 0.5) * 2 * 5.999))
    return f"kappa-{'pos' if share >= 0.5 else 'neg'}-{step}"


def leaderboard_view(summary: dict) -> dict:
    """Rows of the raw leaderboard with their style-controlled rank beside, each with its interval's drawing."""
    style = {r["system"]: r for r in summary.get("style_controlled", {}).get("systems", [])}
    low, high = _axis([summary, summary.get("style_controlled", {"systems": []})])
    rows = []
    for r in summary["systems"]:
        lo, hi = r["ci"] if r["ci"] else (None, None)
        rows.append(
            r
            | {
                "x_low": _x(lo, low, high),
                "x_high": _x(hi, low, high),
                "x_score": _x(r["score"], low, high),
                "style": style.get(r["system"]),
            }
        )
    return {"rows": rows, "zero": _x(0.0, low, high), "width": SVG_WIDTH, "low": low, "high": high}


def win_matrix_view(matrix: dict) -> list[dict]:
    """Row system -> cells ``{"wins", "losses", "ties", "share", "shade"}`` against every column system."""
    systems, wins, ties = matrix["systems"], matrix["wins"], matrix["ties"]
    rows = []
    for i, name in enumerate(systems):
        cells = []
        for j in range(len(systems)):
            won, lost, tied = wins[i][j], wins[j][i], ties[i][j]
            share = won / (won + lost) if i != j and won + lost else None
            cells.append(
                {"self": i == j, "wins": won, "losses": lost, "ties": tied, "share": share, "shade": _shade(share)}
            )
        rows.append({"system": name, "cells": cells})
    return rows


@register.simple_tag
def bradley_terry_view(payload: dict) -> list[dict]:
    """Per criterion with a ranking: its summary, leaderboard view and win matrix view."""
    return [
        {
            "criterion": key,
            "summary": summary,
            "board": leaderboard_view(summary),
            "matrix": win_matrix_view(summary["win_matrix"]),
            "systems": summary["win_matrix"]["systems"],
        }
        for key, summary in (payload or {}).get("bradley_terry", {}).items()
    ]
