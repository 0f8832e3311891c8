"""Writers for the formats the community uses; ``export_gold`` picks one by name and returns bytes."""

from __future__ import annotations

from collections.abc import Iterator

from django.utils.translation import gettext

from annotator.models import Project
from annotator.presets.of_project import project_scheme
from scoring.aggregation import ModelsNotInstalled, method_available

from .dbdc import export_dbdc_zip_chunks
from .distributions import AGGREGATIONS, export_distributions_csv_chunks, export_distributions_json_chunks
from .pairwise import export_pairwise_chunks, export_preference_pairs_chunks
from .stc3 import export_stc3_chunks

# format -> (a function giving the export's bytes in chunks, as they are written; content type; file extension)
EXPORT_FORMATS = {
    "stc3": (export_stc3_chunks, "application/json", "json"),
    "dbdc": (export_dbdc_zip_chunks, "application/zip", "zip"),
    "distributions-json": (export_distributions_json_chunks, "application/json", "json"),
    "distributions-csv": (export_distributions_csv_chunks, "text/csv", "csv"),
    "pairwise": (export_pairwise_chunks, "application/jsonl", "jsonl"),
    "preference-pairs": (export_preference_pairs_chunks, "application/jsonl", "jsonl"),
}
# formats exported only from projects that take another format as their own (``Scheme.formats``)
EXPORTED_WITH = {"preference-pairs": "pairwise"}


DISTRIBUTION_FORMATS = ("distributions-json", "distributions-csv")


class ExportFormatMismatch(ValueError):
    """The format does not fit the project's preset (a DBDC project asked for as STC-3 JSON); the message
    is translated and names the formats that fit."""


def export_formats_of(project: Project) -> list[str]:
    """The formats that fit the project: the distributions always, a community format (``stc3``, ``dbdc``,
    ``pairwise``) when the preset takes it as its own (``Scheme.formats``, the formats *Detect* imports as
    it), and the preference pairs with ``pairwise``."""
    own = project_scheme(project).formats
    return [f for f in EXPORT_FORMATS if f in DISTRIBUTION_FORMATS or EXPORTED_WITH.get(f, f) in own]


def export_format_check(*, project: Project, fmt: str) -> None:
    """Raise ``ExportFormatMismatch`` if ``fmt`` does not fit the project's preset."""
    fitting = export_formats_of(project)
    if fmt in EXPORT_FORMATS and fmt not in fitting:
        raise ExportFormatMismatch(
            gettext(
                "A %(preset)s project cannot be exported as %(format)s: its criteria and speakers are not that "
                "format's. Choose one of: %(formats)s."
            )
            % {"preset": gettext(project_scheme(project).label), "format": fmt, "formats": ", ".join(fitting)}
        )


def export_gold(*, project: Project, fmt: str, aggregation: str = "votes") -> bytes:
    """The project's gold data in ``fmt`` (one of ``EXPORT_FORMATS``) as bytes; the distribution formats hold
    vote shares or, with ``aggregation``, a latent-truth model's posteriors (``AGGREGATIONS``)."""
    return b"".join(export_gold_chunks(project=project, fmt=fmt, aggregation=aggregation))


def export_gold_chunks(*, project: Project, fmt: str, aggregation: str = "votes") -> Iterator[bytes]:
    """``export_gold`` as chunks of bytes produced as they are written (rows read a chunk of dialogues at a
    time), for streamed responses and files. Bad arguments, and a model that cannot be fitted, raise
    ``ValueError`` here, before the first chunk; a format that does not fit the preset raises
    ``ExportFormatMismatch`` (a ``ValueError``)."""
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; choose one of {', '.join(EXPORT_FORMATS)}")
    if aggregation not in AGGREGATIONS:
        raise ValueError(f"unknown aggregation {aggregation!r}; choose one of {', '.join(AGGREGATIONS)}")
    export_format_check(project=project, fmt=fmt)
    if not method_available(aggregation):
        raise ModelsNotInstalled()
    if fmt in DISTRIBUTION_FORMATS:
        return EXPORT_FORMATS[fmt][0](project, aggregation)
    if aggregation != "votes":
        raise ValueError(f"--aggregation applies to {' and '.join(DISTRIBUTION_FORMATS)} only, not {fmt}")
    return EXPORT_FORMATS[fmt][0](project)
