"""Writers for the formats the community uses; ``export_gold`` picks one by name and returns bytes."""

from __future__ import annotations

from annotator.models import Project

from .dbdc import export_dbdc_zip
from .distributions import AGGREGATIONS, export_distributions_csv, export_distributions_json
from .stc3 import export_stc3

EXPORT_FORMATS = {
    "stc3": (export_stc3, "application/json", "json"),
    "dbdc": (export_dbdc_zip, "application/zip", "zip"),
    "distributions-json": (export_distributions_json, "application/json", "json"),
    "distributions-csv": (export_distributions_csv, "text/csv", "csv"),
}


DISTRIBUTION_FORMATS = ("distributions-json", "distributions-csv")


def export_gold(*, project: Project, fmt: str, aggregation: str = "votes") -> bytes:
    """The project's gold data in ``fmt`` (one of ``EXPORT_FORMATS``) as bytes; the distribution formats hold
    vote shares or, with ``aggregation``, a latent-truth model's posteriors (``AGGREGATIONS``)."""
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; choose one of {', '.join(EXPORT_FORMATS)}")
    if aggregation not in AGGREGATIONS:
        raise ValueError(f"unknown aggregation {aggregation!r}; choose one of {', '.join(AGGREGATIONS)}")
    if fmt in DISTRIBUTION_FORMATS:
        return EXPORT_FORMATS[fmt][0](project, aggregation)
    if aggregation != "votes":
        raise ValueError(f"--aggregation applies to {' and '.join(DISTRIBUTION_FORMATS)} only, not {fmt}")
    return EXPORT_FORMATS[fmt][0](project)
