"""Writers for the formats the community uses; ``export_gold`` picks one by name and returns bytes."""

from __future__ import annotations

from collections.abc import Iterator

from annotator.models import Project

from .dbdc import export_dbdc_zip_chunks
from .distributions import AGGREGATIONS, export_distributions_csv_chunks, export_distributions_json_chunks
from .stc3 import export_stc3_chunks

# format -> (a function giving the export's bytes in chunks, as they are written; content type; file extension)
EXPORT_FORMATS = {
    "stc3": (export_stc3_chunks, "application/json", "json"),
    "dbdc": (export_dbdc_zip_chunks, "application/zip", "zip"),
    "distributions-json": (export_distributions_json_chunks, "application/json", "json"),
    "distributions-csv": (export_distributions_csv_chunks, "text/csv", "csv"),
}


DISTRIBUTION_FORMATS = ("distributions-json", "distributions-csv")


def export_gold(*, project: Project, fmt: str, aggregation: str = "votes") -> bytes:
    """The project's gold data in ``fmt`` (one of ``EXPORT_FORMATS``) as bytes; the distribution formats hold
    vote shares or, with ``aggregation``, a latent-truth model's posteriors (``AGGREGATIONS``)."""
    return b"".join(export_gold_chunks(project=project, fmt=fmt, aggregation=aggregation))


def export_gold_chunks(*, project: Project, fmt: str, aggregation: str = "votes") -> Iterator[bytes]:
    """``export_gold`` as chunks of bytes produced as they are written (rows read a chunk of dialogues at a
    time), for streamed responses and files. Bad arguments, and a model that cannot be fitted, raise
    ``ValueError`` here, before the first chunk."""
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; choose one of {', '.join(EXPORT_FORMATS)}")
    if aggregation not in AGGREGATIONS:
        raise ValueError(f"unknown aggregation {aggregation!r}; choose one of {', '.join(AGGREGATIONS)}")
    if fmt in DISTRIBUTION_FORMATS:
        return EXPORT_FORMATS[fmt][0](project, aggregation)
    if aggregation != "votes":
        raise ValueError(f"--aggregation applies to {' and '.join(DISTRIBUTION_FORMATS)} only, not {fmt}")
    return EXPORT_FORMATS[fmt][0](project)
