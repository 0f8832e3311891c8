"""A run's per-dialogue scores as CSV, for download."""

from __future__ import annotations

import io

from annotator.exporters.cells import SafeCsvWriter
from scoring.app.models import Run


def per_dialogue_csv(run: Run) -> str:
    """One row per dialogue, one column per metric, for download; no cell can start a formula."""
    metrics = sorted({m for values in run.per_dialogue.values() for m in values if m not in ("dialogue", "annotator")})
    buffer = io.StringIO()
    writer = SafeCsvWriter(buffer, lineterminator="\n")
    writer.writerow(["dialogue"] + metrics)
    for dialogue, values in run.per_dialogue.items():
        writer.writerow([dialogue] + [values.get(m, "") for m in metrics])
    return buffer.getvalue()
