"""Zips we read refuse members that would land outside their folder; zips we write have member
names built from sanitised dialogue ids, unique, that stay inside the folder they are extracted to."""

import io
import json
import zipfile

import pytest

from annotator.exporters import export_gold
from annotator.importers import InputError
from annotator.models import Dialogue
from annotator.services.imports import dialogues_import
from tests.fixtures.collections import dbdc_dialogue

pytestmark = pytest.mark.django_db


def zip_of(path, members: dict[str, dict]):
    with zipfile.ZipFile(path, "w") as archive:
        for name, record in members.items():
            archive.writestr(name, json.dumps(record))
    return path


@pytest.mark.parametrize("unsafe", ["/etc/x.log.json", "../x.log.json", "logs/../../x.log.json", "C:/x.log.json"])
def test_the_importer_refuses_members_outside_the_archive_root(make_project, tmp_path, unsafe):
    project = make_project("dbdc")
    archive = zip_of(tmp_path / "in.zip", {"a.log.json": dbdc_dialogue("a"), unsafe: dbdc_dialogue("b")})
    with pytest.raises(InputError, match="unsafe member name") as refused:
        dialogues_import(project=project, paths=[archive])
    assert unsafe in str(refused.value)
    assert not Dialogue.objects.filter(project=project).exists()  # nothing imported


def test_no_member_vanishes_silently(make_project, tmp_path):
    # ./ parts are harmless: the member is imported (it used to be skipped as if it were a hidden file)
    project = make_project("dbdc")
    archive = zip_of(
        tmp_path / "in.zip",
        {"a.log.json": dbdc_dialogue("a"), "./b.log.json": dbdc_dialogue("b"), "./logs/c.log.json": dbdc_dialogue("c")},
    )
    report = dialogues_import(project=project, paths=[archive])
    assert report.dialogues == 3
    assert set(Dialogue.objects.filter(project=project).values_list("external_id", flat=True)) == {"a", "b", "c"}


def test_the_export_names_members_by_sanitised_unique_ids(make_project, tmp_path):
    project = make_project("dbdc")
    ids = ["../../../../tmp/x", "/etc/x", "tmp/x", "..", "C:\\evil", "ok"]
    folder = tmp_path / "src"
    folder.mkdir()
    for n, dialogue_id in enumerate(ids):
        (folder / f"{n}.log.json").write_text(json.dumps(dbdc_dialogue(dialogue_id)))
    dialogues_import(project=project, paths=[folder])
    # a dialogue imported before the importer checked member names still carries its unsafe path
    Dialogue.objects.filter(project=project, external_id="ok").update(
        source_meta={"format": "dbdc", "file": "/etc/cron.d/x.log.json", "fields": {}, "keys": []}
    )
    exported = zipfile.ZipFile(io.BytesIO(export_gold(project=project, fmt="dbdc")))
    names = exported.namelist()
    assert len(names) == len({n.lower() for n in names}) == len(ids)
    for name in names:
        assert "/" not in name and "\\" not in name and not name.startswith(".") and ":" not in name, name
    target = tmp_path / "out"
    exported.extractall(target)
    assert sorted(p.name for p in target.iterdir()) == sorted(names)  # every file landed inside the folder
    assert {json.loads(exported.read(n))["dialogue-id"] for n in names} == set(ids)  # the ids themselves are kept
