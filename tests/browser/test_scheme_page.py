"""A lead builds and edits a project's scheme on its page (add, edit, reorder, remove criteria, with the preview of
the annotator's questions), downloads the scheme and uploads it reworded, is refused a file that is not a scheme and
a change that would reinterpret answers, and an annotator answers the new criterion "not applicable" by keyboard.
Real Chromium on a live server."""

from __future__ import annotations

import pytest

from annotator.models import Judgement, Project
from annotator.presets.document import scheme_yaml
from tests.browser.assertions import expect
from tests.factories import PASSWORD, project_with_work
from tests.waiting import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def sign_in(page, url: str, username: str) -> None:
    page.goto(f"{url}/accounts/login/")
    page.locator("#id_username").fill(username)
    page.locator("#id_password").fill(PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(f"{url}/")


def _keys(project: Project) -> list[str]:
    return list(project.criteria.order_by("position").values_list("key", flat=True))


def test_a_lead_builds_the_scheme_and_an_annotator_answers_it(live_server, page, tmp_path):
    # given an NLPCC project with dialogues, its lead and an annotator
    work = project_with_work("nlpcc", slug="sch", annotators=1, k=1)
    project = work.project
    sign_in(page, live_server.url, work.lead.username)
    page.goto(f"{live_server.url}/projects/sch/manage/")
    page.locator("#scheme-link").click()
    expect(page.locator("#scheme-preview")).to_contain_text("Does the reply contain a severe error?")

    # when the lead adds a dialogue-level criterion with a "not applicable" answer
    page.locator("#add-criterion summary").click()
    form = page.locator("#add-criterion-form")
    form.locator("#id_new-key").fill("engaging")
    form.locator("#id_new-label_en").fill("Engaging")
    form.locator("#id_new-label_ja").fill("魅力")
    form.locator("#id_new-question_en").fill("Is the conversation engaging?")
    form.locator("#id_new-unit").select_option("dialogue")
    form.locator("#id_new-level").select_option("ordinal")
    form.locator("#id_new-values").fill("1 | 1: dull\n2 | 2: fine\n3 | 3: engaging")
    form.locator("#id_new-na_value").fill("n/a")
    form.locator("#id_new-na_label").fill("Cannot tell")
    form.locator("#id_new-na_key").fill("0")
    page.locator("#add-criterion-button").click()

    # then it is saved, and the preview asks it as annotators will see it, "not applicable" on key 0
    expect(page.locator(".messages")).to_contain_text("Saved criterion engaging")
    keys = _keys(project)
    assert keys[-1] == "engaging" and len(keys) == 11
    preview = page.locator("#scheme-preview fieldset[data-criterion=engaging]")
    expect(preview).to_contain_text("Is the conversation engaging?")
    expect(preview.locator("input[value='n/a']")).to_have_attribute("aria-keyshortcuts", "0")

    # when the lead moves it up and rewords it
    page.get_by_role("button", name="Move engaging up").click()
    assert wait_for(lambda: _keys(project) == [*keys[:-2], "engaging", keys[-2]], timeout=10)
    row = page.locator("li[data-criterion=engaging]")
    row.locator("summary").click()
    row.locator("textarea[name$=question_en]").fill("How engaging is the conversation?")
    row.get_by_role("button", name="Save engaging").click()
    expect(page.locator("#scheme-preview")).to_contain_text("How engaging is the conversation?")

    # and an uploaded file that is not a scheme is refused, naming the field, and changes nothing
    bad = tmp_path / "bad.yaml"
    bad.write_text(scheme_yaml({"scheme": 1, "key": "x", "label": "X", "criteria": []}), encoding="utf-8")
    page.locator("#id_file").set_input_files(str(bad))
    page.locator("#scheme-upload-button").click()
    expect(page.locator("#scheme-error")).to_contain_text("bad.yaml: field criteria")
    assert _keys(project) == [*keys[:-2], "engaging", keys[-2]]

    # when the lead removes a criterion nobody has answered yet
    removed = keys[0]
    page.get_by_role("button", name=f"Remove {removed}").click()
    expect(page.locator(".messages")).to_contain_text(f"Removed criterion {removed}")
    expect(page.locator(f"#scheme-preview fieldset[data-criterion={removed}]")).to_have_count(0)
    keys = [*keys[1:-2], "engaging", keys[-2]]
    assert _keys(project) == keys

    # and downloads the scheme as YAML, rewords it and uploads the file in place of the scheme
    with page.expect_download() as download:
        page.locator("#download-yaml").click()
    text = download.value.path().read_text(encoding="utf-8")
    assert "How engaging is the conversation?" in text
    edited = tmp_path / "edited.yaml"
    edited.write_text(text.replace("How engaging is the conversation?", "Was it engaging?"), encoding="utf-8")
    version = Project.objects.get(pk=project.pk).scheme_version
    page.locator("#id_file").set_input_files(str(edited))
    page.locator("#scheme-upload-button").click()

    # then the project follows the file: the same criteria, the new wording, a new version
    expect(page.locator(".messages")).to_contain_text("The project follows the scheme of edited.yaml")
    expect(page.locator("#scheme-preview fieldset[data-criterion=engaging]")).to_contain_text("Was it engaging?")
    assert _keys(project) == keys
    assert Project.objects.get(pk=project.pk).scheme_version > version

    # then the annotator answers the new criterion "not applicable" by its key
    annotator = work.annotators[0]
    item = work.assignments_of(annotator)[0]
    context = page.context.browser.new_context(viewport={"width": 1200, "height": 800})
    other = context.new_page()
    sign_in(other, live_server.url, annotator.username)
    other.goto(f"{live_server.url}/items/{item.pk}/")
    question = other.locator("fieldset[data-criterion=engaging]")
    question.focus()
    other.keyboard.press("0")
    assert wait_for(
        lambda: Judgement.objects.filter(assignment=item, criterion__key="engaging", value="n/a").exists(), timeout=15
    )
    other.goto("about:blank")
    context.close()

    # and once there is an answer, a new scale for the criterion is refused and the stored answer kept
    row = page.locator("li[data-criterion=engaging]")
    row.locator("summary").click()
    row.locator("textarea[name$=values]").fill("1 | 1: dull\n2 | 2: engaging")
    row.get_by_role("button", name="Save engaging").click()
    expect(page.locator("#scheme-error")).to_contain_text("criterion engaging has answers: its values cannot change")
    assert project.criteria.get(key="engaging").allowed_values() == ["1", "2", "3"]
    assert Judgement.objects.get(assignment=item, criterion__key="engaging").value == "n/a"
