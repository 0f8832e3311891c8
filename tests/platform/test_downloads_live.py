"""Every lead page that shows a table offers it as CSV and JSON, and the manage page its gold exports and the
Parquet dataset: each link followed as a browser would, from a gunicorn process (with the test settings, whose
password hasher signs in the factories' users) and a worker beside it, which writes the exports (the export page
reloads itself until it links the file), and each file checked against the database."""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from html import unescape

import pytest

from annotator.exporters.cells import csv_cell
from annotator.models import Assignment, AssignmentStatus, ImportBatch, Membership
from annotator.services.demo import DEMO_DIR
from annotator.studies.services import participant_arrive, participant_start
from evaluation.runs.services.scoring import run_score
from tests.conftest import database_url
from tests.factories import PASSWORD, project_with_submissions, project_with_work, study_on_new_project
from tests.live_servers import running, start_gunicorn
from tests.reference_scoring import random_stc3_run
from tests.waiting import wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def download_links(html: str, table: str) -> dict[str, str]:
    """format -> the href of the table's download links on a page."""
    block = re.search(rf'data-downloads="{table}">(.*?)</p>', html, re.S)
    assert block, f"no downloads of {table} on the page"
    return {
        fmt: unescape(href) for href, fmt in re.findall(r'href="([^"]+)"\s+download\s+data-format="(\w+)"', block[1])
    }


def fetch_table(session, page_url: str, table: str) -> tuple[list[dict], list[dict]]:
    """The table's CSV rows and JSON objects, through the links the page shows."""
    page = session.get(page_url, timeout=60)
    assert page.status_code == 200, page.status_code
    links = download_links(page.text, table)
    assert set(links) == {"csv", "json"}
    base = page_url.split("?")[0]
    got = {}
    for fmt, href in links.items():
        answer = session.get(base + href, timeout=60)
        assert answer.status_code == 200, (fmt, answer.status_code)
        assert f"-{table}.{fmt}" in answer.headers["Content-Disposition"]
        got[fmt] = answer
    assert got["csv"].headers["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(got["csv"].content.decode("utf-8"))))
    objects = got["json"].json()
    assert len(rows) == len(objects)
    for row, obj in zip(rows, objects):
        assert list(row) == list(obj)  # the same columns, in the same order
        assert row == {k: "" if v is None else str(csv_cell(v)) for k, v in obj.items()}
    return rows, objects


def written_file(server, session, page_url: str):
    """The export page followed as a browser does: it reloads itself while the worker writes the file, then links
    the file, which is downloaded."""
    pages = [session.get(page_url, timeout=60)]
    link = r'href="([^"]+)"\s+download\s+id="export-download-file"'
    found = wait_for(lambda: re.search(link, pages[-1].text) or pages.append(session.get(page_url, timeout=60)), 300, 1)
    assert found, pages[-1].text[pages[-1].text.find('id="export"') :][:1500]
    assert pages[0].status_code == 200 and 'id="job-' in pages[0].text  # the job's state, first
    return session.get(server.url + unescape(re.search(link, pages[-1].text)[1]), timeout=120)


def test_every_table_of_the_lead_pages_downloads_from_a_live_server(tmp_path):
    work = project_with_submissions("stc3", slug="dl-live")
    project = work.project
    reopened = work.assignments_of(work.annotators[0])[0]
    Assignment.objects.filter(pk=reopened.pk).update(status=AssignmentStatus.IN_PROGRESS)
    dialogues = json.loads((DEMO_DIR / "stc3.json").read_text(encoding="utf-8"))
    run = run_score(project=project, files=[("sys.json", json.dumps(random_stc3_run(dialogues)).encode())], name="s1")
    crowd, study = study_on_new_project(tmp_path, slug="dl-crowd")
    participant_start(participant_id=participant_arrive(study=study, external_id="=HYPERLINK(1)").pk)
    outsider = project_with_work("dbdc", slug="dl-other", annotators=1, assign=False)

    with running(
        start_gunicorn(database_url(), tmp_path / "gunicorn.log", production=False, with_worker=True)
    ) as server:
        lead = server.login(work.lead.username, PASSWORD)
        manage = f"{server.url}/projects/dl-live/manage/"

        # the items, all of them and as the page filters them
        rows, _ = fetch_table(lead, manage, "items")
        assert len(rows) == Assignment.objects.filter(dialogue__project=project, imported=False).count()
        filtered, objects = fetch_table(lead, manage + "?status=in_progress", "items")
        assert [(r["dialogue"], r["annotator"]) for r in filtered] == [
            (reopened.dialogue.external_id, work.annotators[0].username)
        ]
        assert objects[0]["status"] == "in_progress" and objects[0]["submitted_at"] is not None

        # progress per annotator, imports, members
        progress, objects = fetch_table(lead, manage, "progress")
        assert {r["annotator"]: int(r["submitted"]) for r in progress} == {
            a.username: Assignment.objects.filter(annotator=a, status="submitted").count() for a in work.annotators
        }
        imports, _ = fetch_table(lead, manage, "imports")
        assert [int(r["id"]) for r in imports] == list(
            ImportBatch.objects.filter(project=project).order_by("-created_at", "-pk").values_list("pk", flat=True)
        )
        _members, objects = fetch_table(lead, manage, "members")
        assert {(o["username"], o["role"], o["active"]) for o in objects} == {
            (m.user.username, m.role, m.active) for m in Membership.objects.filter(project=project, imported=False)
        }

        # the leaderboard: every metric of the run
        _board, objects = fetch_table(lead, f"{server.url}/projects/dl-live/runs/", "leaderboard")
        assert [o["run"] for o in objects] == ["s1"]
        run.refresh_from_db()
        numbers = {k: v for k, v in objects[0].items() if isinstance(v, float)}
        assert numbers and all(run.scores.get(k) == v for k, v in numbers.items() if k in run.scores)

        # the participants of a study, formulas defused in the CSV only
        crowd_lead = server.login(crowd.lead.username, PASSWORD)
        participants, objects = fetch_table(
            crowd_lead, f"{server.url}/projects/dl-crowd/manage/studies/{study.pk}/", "participants"
        )
        assert objects[0]["external_id"] == "=HYPERLINK(1)" and participants[0]["external_id"] == "'=HYPERLINK(1)"

        # the export section: every fitting format, and the Parquet dataset
        page = lead.get(manage, timeout=60).text
        formats = page[page.index('id="export-format"') :].split("</select>")[0]
        assert re.findall(r'<option value="([\w-]+)">\1</option>', formats)[:3] == [
            "stc3", "distributions-json", "distributions-csv",
        ]  # fmt: skip
        action = unescape(re.search(r'<form method="get" action="([^"]+)" id="export-form"', page)[1])
        stc3 = written_file(server, lead, f"{server.url}{action}?format=stc3&aggregation=votes")
        assert stc3.status_code == 200 and {r["id"] for r in stc3.json()} == {d["id"] for d in dialogues}
        href = unescape(re.search(r'href="([^"]+)"\s+id="export-parquet"', page)[1])
        parquet = written_file(server, lead, server.url + href)
        assert parquet.status_code == 200 and parquet.headers["Content-Type"] == "application/zip"
        names = zipfile.ZipFile(io.BytesIO(parquet.content)).namelist()
        assert "dl-live/README.md" in names and "dl-live/judgements/train-00000-of-00001.parquet" in names

        # not for annotators, nor for the lead of another project
        annotator = server.login(work.annotators[0].username, PASSWORD)
        assert annotator.get(manage + "?download=csv&table=items", timeout=60).status_code == 403
        other = server.login(outsider.lead.username, PASSWORD)
        assert other.get(manage + "?download=json&table=members", timeout=60).status_code in (403, 404)
        assert lead.get(manage + "?download=xml&table=items", timeout=60).status_code == 404
