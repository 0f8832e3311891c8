"""The Parquet dataset of DBDC3 English (dev and eval, the real collection): every judgement and dialogue, written
a batch at a time, so that the memory the writer holds does not grow with the project (prints its figures)."""

from __future__ import annotations

import tracemalloc

import pytest

from annotator.exporters import parquet as parquet_module
from annotator.models import Judgement
from annotator.services.imports import dialogues_import
from evaluation.services.dataset_export import dataset_write

pytestmark = [pytest.mark.shared_data, pytest.mark.django_db]


def traced_peak(write) -> tuple[int, int]:
    """(rows written, peak bytes Python and Arrow held above the start while writing)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tracemalloc.start()
    tracemalloc.reset_peak()
    start_arrow = pa.total_allocated_bytes()
    peak_arrow = 0

    original = pq.ParquetWriter.write_table

    def watched(self, table, *args, **kwargs):
        nonlocal peak_arrow
        peak_arrow = max(peak_arrow, pa.total_allocated_bytes() - start_arrow)
        return original(self, table, *args, **kwargs)

    pq.ParquetWriter.write_table = watched
    try:
        rows = write()
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        pq.ParquetWriter.write_table = original
        tracemalloc.stop()
    return rows, peak + peak_arrow


def test_dbdc3_english_as_parquet_in_bounded_memory(dbdc_dir, make_project, tmp_path):
    import pyarrow.parquet as pq

    project = make_project("dbdc", slug="dbdc3-en-parquet")
    report = dialogues_import(project=project, paths=[dbdc_dir / "dev", dbdc_dir / "eval"])
    judgements = Judgement.objects.filter(criterion__project=project).count()
    assert judgements == report.judgements > 100_000

    table = parquet_module.JUDGEMENTS
    whole_rows, whole = traced_peak(
        lambda: parquet_module.parquet_table_write(
            project=project, table=table, path=tmp_path / "whole.parquet", batch_rows=judgements
        )
    )
    batched_rows, batched = traced_peak(
        lambda: parquet_module.parquet_table_write(project=project, table=table, path=tmp_path / "batched.parquet")
    )
    print(
        f"\nDBDC3 EN: {report.dialogues} dialogues, {judgements} judgements; judgements table peak "
        f"{batched / 2**20:.1f} MiB in batches of {parquet_module.BATCH_ROWS} rows, "
        f"{whole / 2**20:.1f} MiB all at once"
    )
    assert batched_rows == whole_rows == judgements
    assert pq.read_table(tmp_path / "batched.parquet").equals(pq.read_table(tmp_path / "whole.parquet"))
    # the batched writer holds a batch, not the project: several times less than holding every row
    assert batched * 5 < whole

    counts = dataset_write(project=project, directory=tmp_path / "dataset")
    assert counts["judgements"] == judgements and counts["dbdc"] == report.dialogues
    dbdc = pq.read_table(tmp_path / "dataset" / "dbdc")
    assert dbdc.num_rows == report.dialogues
    labels = sum(len(t["annotations"]) for turns in dbdc.column("turns").to_pylist() for t in turns)
    assert labels == judgements
