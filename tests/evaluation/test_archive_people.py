"""Restoring an archive maps people as the members page adds them: consenting accounts and the lead's own
members become members; anyone else named (an account that never opted in, a superuser) becomes an
imported annotator of the new project, with the archived judgements kept under the archived name."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from annotator.models import Assignment, Judgement, Membership, Project
from annotator.services.accounts import account_settings_save
from annotator.services.projects import membership_add
from evaluation.archive.export import ARCHIVE_MEMBER, project_archive_data
from tests.evaluation.test_project_archive import finished_project
from tests.factories import project_with_work, user_make

pytestmark = pytest.mark.django_db


def zipped(data: dict) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(ARCHIVE_MEMBER, json.dumps(data))
    return buffer.getvalue()


def member(username: str, role: str, rank: int) -> dict:
    return {"username": username, "role": role, "imported": False, "source_key": "", "rank": rank, "active": True}


@pytest.fixture
def edited_archive(django_user_model, tmp_path):
    """The archive of a lead's project, edited to name: an account that never opted in (as an annotator),
    a superuser (as a lead), a volunteer who opted in, a member of the lead's other project, and the
    submitted work of the project's first annotator attributed to another account that never opted in."""
    project = finished_project("stc3", tmp_path, slug="src")
    lead, judged = (get_user_model().objects.get(username=name) for name in ("src-lead", "src-ann2"))
    other = project_with_work("dbdc", slug="other", annotators=1, lead_name="other-lead", assign=False)
    membership_add(project=other.project, user=lead, role="lead")
    colleague = user_make("colleague")  # annotates in the lead's other project; never opted in
    membership_add(project=other.project, user=colleague, role="annotator")
    user_make("stranger")
    user_make("victim")
    account_settings_save(user=user_make("volunteer"), findable_by_leads=True)
    django_user_model.objects.create_superuser("root", password="pw-for-tests-1")
    data = project_archive_data(project)
    data["members"] += [
        member("stranger", "annotator", 10),
        member("root", "lead", 11),
        member("volunteer", "annotator", 12),
        member("colleague", "adjudicator", 13),
    ]
    for a in data["assignments"]:
        if a["annotator"] == judged.username:
            a["annotator"] = "victim"
    data["members"] = [m for m in data["members"] if m["username"] != judged.username]
    moved = Judgement.objects.filter(assignment__annotator=judged, assignment__status="submitted").count()
    assert moved > 0
    return lead, zipped(data), Judgement.objects.filter(assignment__annotator=judged).count()


def restore(user, raw: bytes, slug: str = "copy"):
    api = APIClient()
    api.force_authenticate(user)
    answer = api.post("/api/archives/", {"file": SimpleUploadedFile("a.zip", raw), "slug": slug}, format="multipart")
    assert answer.status_code == 201, answer.content
    return Project.objects.get(slug=slug)


def roles(project) -> dict[str, tuple[str, bool, str]]:
    return {
        m.user.username: (m.role, m.imported, m.source_key)
        for m in Membership.objects.filter(project=project).select_related("user")
    }


def test_a_lead_restores_only_consenting_accounts_and_own_members_as_members(edited_archive):
    lead, raw, moved = edited_archive
    copy = restore(lead, raw)
    people = roles(copy)
    # live members: the lead, their annotator, a volunteer who opted in, a member of the lead's other project
    assert people["src-lead"] == ("lead", False, "")
    assert people["src-ann1"] == ("annotator", False, "")
    assert people["volunteer"] == ("annotator", False, "")
    assert people["colleague"] == ("adjudicator", False, "")
    # the others who hold work are imported annotators under their archived names; those without work get
    # nothing; their accounts get nothing either way
    assert people["copy.imported.victim"] == ("annotator", True, "victim")
    assert not any(name.startswith(("copy.imported.stranger", "copy.imported.root")) for name in people)
    for name in ("stranger", "root", "victim"):
        account = get_user_model().objects.get(username=name)
        assert not Membership.objects.filter(user=account, project=copy).exists(), name
        assert not Assignment.objects.filter(annotator=account).exists(), name
    # the judgements attributed to "victim" are kept, under the archived name
    kept = Judgement.objects.filter(
        assignment__dialogue__project=copy, assignment__annotator__username="copy.imported.victim"
    )
    assert kept.count() == moved
    exported = project_archive_data(copy)
    imported = {m["source_key"] for m in exported["members"] if m["imported"]}
    assert imported == {"1", "2", "3", "victim"}  # the collection's annotators, and the one with work


def test_staff_restore_any_account_but_a_superuser_never_gets_a_role(edited_archive):
    _lead, raw, _moved = edited_archive
    staff = user_make("staffer")
    staff.is_staff = True
    staff.save()
    copy = restore(staff, raw, slug="staff-copy")
    people = roles(copy)
    assert people["stranger"] == ("annotator", False, "")
    assert Assignment.objects.filter(dialogue__project=copy, annotator__username="victim").exists()
    assert "root" not in people and people["staff-copy.imported.root"] == ("annotator", True, "root")
    assert people["staffer"] == ("lead", False, "")  # who restored it leads it


def test_the_import_command_never_gives_a_superuser_a_role(edited_archive, tmp_path):
    from django.core.management import call_command

    _work, raw, _moved = edited_archive
    (tmp_path / "a.zip").write_bytes(raw)
    call_command("import_project", str(tmp_path / "a.zip"), "--slug", "cmd-copy")
    people = roles(Project.objects.get(slug="cmd-copy"))
    assert people["stranger"] == ("annotator", False, "")  # the operator may add any account
    assert "root" not in people and people["cmd-copy.imported.root"] == ("annotator", True, "root")


def test_the_members_page_adds_the_leads_own_members_too():
    work = project_with_work("stc3", slug="add", annotators=1, assign=False)
    other = project_with_work("dbdc", slug="mine", annotators=1, lead_name="mine-lead", assign=False)
    membership_add(project=other.project, user=work.lead, role="lead")
    outsider = project_with_work("dbdc", slug="theirs", annotators=1, assign=False)
    client = Client()
    client.force_login(work.lead)
    url = reverse("lead_member_add", args=["add"])
    assert client.post(url, {"username": "mine-ann1", "password": "", "role": "annotator"}).status_code == 302
    assert client.post(url, {"username": outsider.annotators[0].username, "role": "annotator"}).status_code == 400
    added = Membership.objects.filter(project=work.project, imported=False)
    assert set(added.values_list("user__username", flat=True)) == {
        "add-lead",
        "add-ann1",
        "mine-ann1",
    }


# -- a hostile archive (issue #42): an 11 KB file naming 2,000 people, reserved names, the lead's annotators as leads


def hostile_archive(lead_project) -> tuple[bytes, dict]:
    """The archive of the lead's project, edited: 2,000 members without work (``squat-*`` and reserved names),
    the lead's two annotators as leads, and an annotator of theirs with work renamed ``administrator``."""
    data = project_archive_data(lead_project)
    ann1, ann2 = "src-ann1", "src-ann2"
    squatters = [f"squat-{i:04d}" for i in range(1996)] + ["root", "support", "administrator", "No_Reply"]
    data["members"] = [m for m in data["members"] if m["username"] not in (ann1, ann2)]
    data["members"] += [member(ann1, "lead", 1), member(ann2, "lead", 2)]
    data["members"] += [member(name, "annotator", 10 + i) for i, name in enumerate(squatters)]
    worker = next(m["username"] for m in data["members"] if m["imported"])
    for a in data["assignments"]:
        if a["annotator"] == worker:
            a["annotator"] = "administrator"
    data["members"] = [m for m in data["members"] if m["username"] != worker]
    raw = zipped(data)
    return raw, {"squatters": squatters, "worker": worker}


def test_a_hostile_archive_restored_by_a_lead_mints_no_account_beyond_the_studys_annotators(tmp_path):
    project = finished_project("stc3", tmp_path, slug="src")
    lead = get_user_model().objects.get(username="src-lead")
    other = project_with_work("dbdc", slug="other", annotators=0, k=1, lead_name="other-lead", assign=False)
    for name in ("src-ann1", "src-ann2"):  # annotators of the lead's, also annotating another project
        membership_add(project=other.project, user=get_user_model().objects.get(username=name), role="annotator")
    raw, named = hostile_archive(project)
    assert len(raw) < 64 * 1024
    other_roles = set(Membership.objects.exclude(project__slug="copy").values_list("project__slug", "user__username",
                                                                                 "role"))  # fmt: skip
    accounts = set(get_user_model().objects.values_list("username", flat=True))
    workers = {a["annotator"] for a in project_archive_data(project)["assignments"]}

    api = APIClient()
    api.force_authenticate(lead)
    answer = api.post("/api/archives/", {"file": SimpleUploadedFile("a.zip", raw), "slug": "copy"}, format="multipart")

    assert answer.status_code == 201, answer.content
    copy = Project.objects.get(slug="copy")
    created = get_user_model().objects.exclude(username__in=accounts)
    # at most the archive's annotators with work are created: as imported, inactive accounts of the new project
    assert created.count() <= len(workers)
    assert set(created.values_list("username", flat=True)) == {"copy.imported.administrator"} | {
        f"copy.imported.{w.split('.imported.')[-1]}" for w in workers if ".imported." in w and w != named["worker"]
    }
    for account in created:
        assert not account.is_active and not account.has_usable_password() and not account.is_staff
        assert not account.is_superuser
        assert Membership.objects.get(user=account).role == "annotator"
    assert not get_user_model().objects.filter(username__in=named["squatters"]).exists()
    assert not get_user_model().objects.filter(username__startswith="squat-").exists()
    # the lead restoring it is its only lead; their annotators keep their roles everywhere else
    assert list(Membership.objects.filter(project=copy, role="lead").values_list("user__username", flat=True)) == [
        "src-lead"
    ]
    assert set(Membership.objects.exclude(project=copy).values_list("project__slug", "user__username", "role")) == (
        other_roles
    )
    # the judgements of the renamed worker are kept, under the archived name
    assert Judgement.objects.filter(assignment__annotator__username="copy.imported.administrator").exists()
    notes = " ".join(answer.json()["notes"])
    assert "src-ann1" in notes and "src-ann2" in notes and "1999 people" in notes
    # the lead's own annotators archived as leads are annotators, their work under their own accounts
    people = roles(copy)
    assert people["src-ann1"] == people["src-ann2"] == ("annotator", False, "")


def test_no_restore_creates_an_account_under_a_reserved_name(tmp_path):
    from django.core.management import call_command

    project = finished_project("dbdc", tmp_path, slug="src")
    data = project_archive_data(project)
    data["members"] += [member("Administrator", "lead", 20)]
    worker = data["assignments"][0]["annotator"]
    for a in data["assignments"]:
        if a["annotator"] == worker:
            a["annotator"] = "support"
    (tmp_path / "a.zip").write_bytes(zipped(data))
    call_command("import_project", str(tmp_path / "a.zip"), "--slug", "op-copy")  # the operator: keeps the rest
    assert not get_user_model().objects.filter(username__in=["Administrator", "support"]).exists()
    people = roles(Project.objects.get(slug="op-copy"))
    assert people["op-copy.imported.support"] == ("annotator", True, "support")
    assert people["op-copy.imported.Administrator"] == ("annotator", True, "Administrator")


def test_the_members_page_creates_no_account_under_a_reserved_name():
    work = project_with_work("stc3", slug="res", annotators=1, assign=False)
    client = Client()
    client.force_login(work.lead)
    url = reverse("lead_member_add", args=["res"])
    answer = client.post(url, {"username": "Support", "password": "a-good-password-42", "role": "annotator"})
    assert answer.status_code == 400 and "reserved" in answer.content.decode()
    assert not get_user_model().objects.filter(username="Support").exists()
