"""The Parquet dataset: written by ``export_gold --format parquet`` (a process) and the API (a zip), read back by
pandas, pyarrow and Hugging Face ``datasets``, the same rows as the JSON/CSV exports; the card's YAML parses."""

from __future__ import annotations

import csv
import io
import json
import zipfile

import pytest
import yaml

from annotator.exporters import export_gold
from annotator.exporters import parquet as parquet_module
from annotator.models import Judgement
from annotator.services.imports import dialogues_import
from evaluation.services.dataset_export import dataset_write
from tests.factories import api_client, project_with_submissions, user_make
from tests.fixtures.collections import dbdc_dialogue, stc3_dialogues, write_json
from tests.pairwise.data import pairwise_items, read_lines, write_lines


def card_header(folder) -> dict:
    text = (folder / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n")[1])


@pytest.mark.django_db(transaction=True)
def test_cli_writes_a_dataset_that_pandas_pyarrow_and_datasets_read(make_project, tmp_path, manage):
    pd = pytest.importorskip("pandas")  # with pyarrow: the readers of the dataset
    import pyarrow.dataset as pads
    import pyarrow.parquet as pq

    project = make_project("stc3", slug="pq-stc3")
    source = stc3_dialogues()
    dialogues_import(project=project, paths=[write_json(tmp_path / "s.json", source)])
    out = tmp_path / "dataset"
    result = manage("export_gold", "pq-stc3", "--format", "parquet", "--output", str(out), check=True)
    assert "wrote a Parquet dataset" in result.stderr

    # the raw judgements: one row per stored judgement, typed columns
    judgements = pd.read_parquet(out / "judgements")
    assert len(judgements) == Judgement.objects.filter(criterion__project=project).count() == 22
    assert list(judgements.columns) == [
        "annotator", "item", "unit", "criterion", "value", "time", "submitted_at", "source",
    ]  # fmt: skip
    schema = pq.read_schema(out / "judgements" / "train-00000-of-00001.parquet")
    assert str(schema.field("unit").type) == "int32" and str(schema.field("time").type) == "timestamp[us, tz=UTC]"
    stored = sorted(
        Judgement.objects.filter(criterion__project=project).values_list(
            "assignment__dialogue__external_id", "criterion__key", "unit", "value"
        )
    )
    assert sorted(judgements[["item", "criterion", "unit", "value"]].itertuples(index=False, name=None)) == stored
    assert set(judgements["source"]) == {"imported"} and set(judgements["annotator"]) == {"1", "2"}

    # the STC-3 table holds the STC-3 JSON's records, nested
    stc3 = pads.dataset(out / "stc3", format="parquet").to_table().to_pylist()
    assert stc3 == json.loads(export_gold(project=project, fmt="stc3"))

    # the distributions: the CSV export's rows, typed
    rows = list(csv.DictReader(io.StringIO(export_gold(project=project, fmt="distributions-csv").decode())))
    table = pd.read_parquet(out / "distributions")
    assert len(table) == len(rows) > 0
    for row, got in zip(rows, table.to_dict("records")):
        assert (got["criterion"], got["dialogue"], got["value"], got["count"]) == (
            row["criterion"], row["dialogue"], row["value"], int(row["count"]),
        )  # fmt: skip
        assert got["probability"] == float(row["probability"])
        assert list(got["annotators"]) == row["annotators"].split(";")

    # the card: Hugging Face's YAML header with a config per table, criteria with their wording
    header = card_header(out)
    assert [c["config_name"] for c in header["configs"]] == ["judgements", "stc3", "distributions"]
    assert header["configs"][0]["data_files"] == [{"split": "train", "path": "judgements/*.parquet"}]
    assert header["license"] == ""
    text = (out / "README.md").read_text(encoding="utf-8")
    assert "Has the problem been solved?" in text and "問題は解決されましたか" in text
    assert "annotators per dialogue (K): 3" in text

    # Hugging Face datasets loads each table, by data_dir and through the card's configs
    datasets = pytest.importorskip("datasets")
    cache = str(tmp_path / "hf-cache")
    loaded = datasets.load_dataset("parquet", data_dir=str(out / "judgements"), split="train", cache_dir=cache)
    assert loaded.num_rows == 22 and loaded.features["unit"].dtype == "int32"
    by_config = datasets.load_dataset(str(out), "stc3", split="train", cache_dir=cache)
    assert by_config[0]["id"] == "d1" and by_config[0]["annotations"][0]["quality"] == {"A": 1, "S": 0, "E": 1}


@pytest.mark.django_db
def test_dbdc_table_holds_the_zip_records(make_project, tmp_path):
    pd = pytest.importorskip("pandas")  # with pyarrow: the readers of the dataset
    project = make_project("dbdc")
    archive = tmp_path / "bd.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for name in ("bd1", "bd2"):
            z.writestr(f"{name}.log.json", json.dumps(dbdc_dialogue(name)))
    dialogues_import(project=project, paths=[archive])
    counts = dataset_write(project=project, directory=tmp_path / "ds")
    assert counts == {"judgements": 12, "dbdc": 2, "distributions": counts["distributions"]}
    rows = pd.read_parquet(tmp_path / "ds" / "dbdc").to_dict("records")
    zipped = zipfile.ZipFile(io.BytesIO(export_gold(project=project, fmt="dbdc")))
    for row in rows:
        record = json.loads(zipped.read(f"{row['dialogue_id']}.log.json"))
        assert [t["utterance"] for t in row["turns"]] == [t["utterance"] for t in record["turns"]]
        for turn, source_turn in zip(row["turns"], record["turns"]):
            assert [(a["annotator_id"], a["breakdown"]) for a in turn["annotations"]] == [
                (a["annotator-id"], a["breakdown"]) for a in source_turn["annotations"]
            ]
        rest = json.loads(row["source_fields"])
        assert {k: v for k, v in record.items() if k not in ("dialogue-id", "turns")} == rest


def test_comparison_tables_hold_the_pairwise_and_preference_pair_records(make_project, tmp_path):
    """A comparison project's dataset: the items with their votes and the preference pairs, the same records as
    the JSON lines exports (ids as text, the criterion always named, the votes per outcome as JSON text)."""
    pd = pytest.importorskip("pandas")  # with pyarrow: the readers of the dataset
    import pyarrow.dataset as pads

    project = make_project("pairwise")
    dialogues_import(project=project, paths=[write_lines(tmp_path / "pw.jsonl", pairwise_items(6, votes=5))])
    counts = dataset_write(project=project, directory=tmp_path / "ds")
    items = read_lines(export_gold(project=project, fmt="pairwise"))
    pairs = read_lines(export_gold(project=project, fmt="preference-pairs"))
    assert counts["pairwise"] == len(items) == 6 and counts["preference_pairs"] == len(pairs) > 0
    rows = pads.dataset(tmp_path / "ds" / "pairwise", format="parquet").to_table().to_pylist()
    assert [r["id"] for r in rows] == [str(i["id"]) for i in items]
    for row, item in zip(rows, items):
        assert row["context"] == item["context"] and row["candidates"] == item["candidates"]
        assert [(a["annotator"], a["criterion"], a["winner"], a["shown_first"]) for a in row["annotations"]] == [
            (a["annotator"], a.get("criterion", "overall"), a["winner"], a.get("shown_first"))
            for a in item.get("annotations", [])
        ]
    preference = pd.read_parquet(tmp_path / "ds" / "preference_pairs").to_dict("records")
    assert [(r["chosen_system"], r["rejected_system"], json.loads(r["votes"])) for r in preference] == [
        (p["chosen_system"], p["rejected_system"], p["votes"]) for p in pairs
    ]
    assert {c["config_name"] for c in card_header(tmp_path / "ds")["configs"]} >= {"pairwise", "preference_pairs"}


@pytest.mark.django_db
def test_tables_are_written_a_batch_at_a_time(make_project, tmp_path):
    import pyarrow.parquet as pq

    project = make_project("stc3")
    dialogues_import(project=project, paths=[write_json(tmp_path / "s.json", stc3_dialogues())])
    path = tmp_path / "j.parquet"
    written = parquet_module.parquet_table_write(
        project=project, table=parquet_module.JUDGEMENTS, path=path, batch_rows=5
    )
    # 22 rows in row groups of at most 5: the writer never held more than a batch
    assert written == 22 and pq.ParquetFile(path).metadata.num_row_groups == 5


def test_every_export_format_has_a_parquet_table():
    from annotator.exporters import EXPORT_FORMATS

    assert set(EXPORT_FORMATS) <= set(parquet_module.TABLE_OF_FORMAT)


@pytest.mark.eager_tasks(reason="the dataset's content, as the export job writes it and the API serves the file")
@pytest.mark.django_db
def test_api_answers_a_zip_of_the_folder_for_leads_only(tmp_path):
    pd = pytest.importorskip("pandas")  # with pyarrow: the readers of the dataset
    work = project_with_submissions("dbdc", slug="pq-api")
    response = api_client(work.lead).get("/api/projects/pq-api/export/?format=parquet")
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    assert "pq-api-parquet.zip" in response["Content-Disposition"]
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    archive.extractall(tmp_path)
    folder = tmp_path / "pq-api"
    assert sorted(archive.namelist())[0] == "pq-api/README.md"
    judgements = pd.read_parquet(folder / "judgements")
    assert len(judgements) == Judgement.objects.filter(criterion__project=work.project).count() > 0
    assert "platform" in set(judgements["source"])
    assert {c["config_name"] for c in card_header(folder)["configs"]} == {"judgements", "dbdc", "distributions"}
    annotator = api_client(work.annotators[0]).get("/api/projects/pq-api/export/?format=parquet")
    assert annotator.status_code == 403
    assert api_client(user_make("stranger")).get("/api/projects/pq-api/export/?format=parquet").status_code in (
        403,
        404,
    )


@pytest.mark.django_db
def test_without_pyarrow_the_api_and_command_say_how_to_enable_it(monkeypatch, tmp_path):
    from django.core.management import CommandError, call_command

    work = project_with_submissions("dbdc", slug="pq-off")
    monkeypatch.setattr(parquet_module, "parquet_available", lambda: False)
    response = api_client(work.lead).get("/api/projects/pq-off/export/?format=parquet")
    assert response.status_code == 400 and "requirements-parquet.txt" in response.json()["format"][0]
    with pytest.raises(CommandError, match=r"requirements-parquet\.txt"):
        call_command("export_gold", "pq-off", "--format", "parquet", "--output", str(tmp_path / "x"))
    assert not (tmp_path / "x").exists() and not (tmp_path / "x.partial").exists()


@pytest.mark.django_db
def test_the_card_gives_agreement_with_intervals_where_the_statistics_have_them(make_project, tmp_path):
    from django.utils import timezone

    from evaluation.models import ProjectStatistics

    project = make_project("stc3", slug="pq-card")
    dialogues_import(project=project, paths=[write_json(tmp_path / "s.json", stc3_dialogues())])
    interval = {"ci": [0.41, 0.73], "ci_method": "bootstrap"}
    ProjectStatistics.objects.create(
        project=project,
        payload={
            "criteria": {
                "A": {
                    "n_units": 2,
                    "n_annotators": 2,
                    "fleiss_kappa": 0.5678,
                    "randolph_kappa": 0.25,
                    "krippendorff_alpha": {"nominal": 0.6, "ordinal": None},
                    "intervals": {"fleiss_kappa": interval, "krippendorff_alpha": {"nominal": interval}},
                }
            }
        },
        n_judgements=22,
        fingerprint="f" * 16,
        library_version="test",
        computed_at=timezone.now(),
    )
    dataset_write(project=project, directory=tmp_path / "ds")
    card = (tmp_path / "ds" / "README.md").read_text(encoding="utf-8")
    assert "| A | 2 | 2 | Fleiss' kappa | 0.568 (95% CI 0.410 to 0.730, bootstrap) |" in card
    assert "| A | 2 | 2 | Randolph's kappa | 0.250 |" in card  # no interval in the payload: none shown
    assert "| A | 2 | 2 | Krippendorff's alpha (nominal) | 0.600 (95% CI 0.410 to 0.730, bootstrap) |" in card
    assert "| A | 2 | 2 | Krippendorff's alpha (ordinal) | — |" in card
    assert "f" * 16 in card and "over 22 judgements" in card


@pytest.mark.django_db
def test_an_empty_table_is_read_by_pandas_and_datasets_and_is_no_config(make_project, tmp_path):
    """NLPCC's counts have no per-annotator judgements: the judgements table has no rows. Its file holds the
    columns and no row group (a row group of no rows made ``datasets`` fail: "BatchSize must be greater than
    0"); the card lists it without a config, and every config and the dataset itself load."""
    from tests.fixtures.collections import nlpcc_rows, write_nlpcc_xlsx

    datasets = pytest.importorskip("datasets")
    pd = pytest.importorskip("pandas")  # with pyarrow: the readers of the dataset
    import pyarrow.parquet as pq

    project = make_project("nlpcc")
    dialogues_import(project=project, paths=[write_nlpcc_xlsx(tmp_path / "n.xlsx", nlpcc_rows())])
    out = tmp_path / "ds"
    counts = dataset_write(project=project, directory=out)
    assert counts["judgements"] == 0 and counts["distributions"] > 0
    empty = out / "judgements" / "train-00000-of-00001.parquet"
    assert pq.ParquetFile(empty).metadata.num_row_groups == 0
    frame = pd.read_parquet(out / "judgements")
    assert len(frame) == 0 and {"annotator", "criterion", "value"} <= set(frame.columns)
    streamed = datasets.load_dataset("parquet", data_dir=str(out / "judgements"), split="train", streaming=True)
    assert list(streamed) == [] and "criterion" in streamed.features
    header = card_header(out)
    configs = [c["config_name"] for c in header["configs"]]
    assert "judgements" not in configs and "distributions" in configs
    assert "| `judgements` | 0 |" in (out / "README.md").read_text(encoding="utf-8")
    cache = str(tmp_path / "hf-cache")
    for config in configs:
        assert datasets.load_dataset(str(out), config, split="train", cache_dir=cache).num_rows == counts[config]
    assert datasets.load_dataset(str(out), split="train", cache_dir=cache).num_rows == counts["distributions"]
