"""Writers for the formats the community uses; ``export_gold`` picks one by name and returns bytes."""

from __future__ import annotations

from annotator.models import Project

from .dbdc import export_dbdc_zip
from .distributions import export_distributions_csv, export_distributions_json
from .stc3 import export_stc3

EXPORT_FORMATS = {
    "stc3": (export_stc3, "application/json", "json"),
    "dbdc": (export_dbdc_zip, "application/zip", "zip"),
    "distributions-json": (export_distributions_json, "application/json", "json"),
    "distributions-csv": (export_distributions_csv, "text/csv", "csv"),
}


def export_gold(*, project: Project, fmt: str) -> bytes:
    """The project's gold data in ``fmt`` (one of ``EXPORT_FORMATS``) as bytes."""
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; choose one of {', '.join(EXPORT_FORMATS)}")
    return EXPORT_FORMATS[fmt][0](project)
