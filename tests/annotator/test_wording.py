"""The presets' wording in Japanese and Chinese (from their scheme files), the lead's own wording per
project and language, and the fallback to English (annotator.wording)."""

from __future__ import annotations

import pytest
import yaml
from django.test import Client
from django.urls import reverse
from django.utils import translation

from annotator.models import Criterion
from annotator.presets import PRESETS
from annotator.presets.catalogue import PRESET_FILES
from annotator.services.projects import project_wording_save
from annotator.wording import criterion_wording, guidelines_text, preset_text, wording_language
from tests.factories import project_with_work

pytestmark = pytest.mark.django_db


def _preset_texts(spec) -> list[str]:
    """The preset's name, guidelines, labels, questions and (non-numeric) value labels, in English."""
    texts = [spec.label, spec.guidelines]
    for criterion in spec.criteria:
        texts += [criterion.label, criterion.question]
        texts += [v["label"] for v in criterion.values if not v["label"].isdigit()]
    return texts


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_text_is_worded_in_its_file_in_both_languages(preset):
    # given the preset's scheme file, read as it is (annotator/presets/files/)
    document = yaml.safe_load((PRESET_FILES / f"{preset}.yaml").read_text(encoding="utf-8"))
    worded = {}

    def texts(node):
        if isinstance(node, dict) and "en" in node and set(node) <= {"en", "ja", "zh"}:
            worded[node["en"]] = node
        elif isinstance(node, dict):
            for child in node.values():
                texts(child)
        elif isinstance(node, list):
            for child in node:
                texts(child)

    texts(document)
    # then every text the preset shows has a Japanese and a Chinese wording, neither empty
    for text in _preset_texts(PRESETS[preset]):
        assert text in worded, f"{preset}: {text!r} has no translation in its file"
        assert worded[text].get("ja", "").strip() and worded[text].get("zh", "").strip(), text


@pytest.mark.parametrize("language", ["ja", "zh-hans"])
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_is_worded_in_japanese_and_chinese(preset, language):
    """Each criterion's label and question, each value label and the guidelines are shown translated."""
    spec = PRESETS[preset]
    assert preset_text(preset, spec.guidelines, language) != spec.guidelines
    for criterion in spec.criteria:
        assert preset_text(preset, criterion.label, language)
        assert preset_text(preset, criterion.question, language) != criterion.question
        for value in criterion.values:
            shown = preset_text(preset, value["label"], language)
            assert shown != value["label"] or value["label"].isdigit()
            # the code before ": " stays, so that the page's short names and key hints stay the same
            assert shown.split(":", 1)[0] == value["label"].split(":", 1)[0] or ":" not in value["label"]


def test_the_official_japanese_dbdc_labels():
    assert preset_text("dbdc", "NB: not a breakdown", "ja") == "NB: 破綻ではない"
    assert preset_text("dbdc", "PB: possible breakdown", "ja") == "PB: 破綻と言い切れないが、違和感を感じる"
    assert preset_text("dbdc", "B: breakdown", "ja") == "B: あきらかにおかしいと思う"


def test_each_preset_words_its_own_texts():
    # "Task accomplishment" is two words in Japanese and Chinese, "Emotion" a criterion's and an aspect's
    assert preset_text("dch1", "Task accomplishment", "zh-hans") == "任务完成"
    assert preset_text("stc3", "Task accomplishment", "zh-hans") == "任务完成度"
    assert preset_text("nlpcc", "Emotion", "zh-hans") == "情绪"
    with translation.override("zh-hans"):
        assert translation.gettext("Emotion") == "情感"  # the dashboard's aspect


def test_a_page_in_japanese_shows_the_scheme_s_text():
    # given a DCH-1 project, whose "Task accomplishment" is worded otherwise than STC-3's
    work = project_with_work("dch1", annotators=1, k=1, slug="wording-dch1")
    label = preset_text("dch1", "Task accomplishment", "ja")
    question = preset_text("dch1", PRESETS["dch1"].criteria[1].question, "ja")
    value = preset_text("dch1", "-1: no", "ja")
    # when an annotator opens an item in Japanese
    client = Client()
    client.force_login(work.annotators[0])
    item = work.assignments_of(work.annotators[0])[0]
    page = client.get(reverse("annotate", args=[item.pk]), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    # then the page shows the scheme's wording, the DCH-1 one and not STC-3's
    assert label in page and question in page and value.split(": ", 1)[1] in page
    assert preset_text("stc3", "Task accomplishment", "ja") not in page
    assert "Is the task actually accomplished?" not in page


@pytest.mark.parametrize(
    ("code", "expected"), [("ja", "ja"), ("ja-JP", "ja"), ("zh-hans", "zh-hans"), ("zh-Hans", "zh-hans"), ("en", "en")]
)
def test_wording_language(code, expected):
    assert wording_language(code) == expected


def test_annotators_see_their_language_and_the_lead_s_wording_wins():
    work = project_with_work("dbdc", annotators=1, k=1, slug="wording-dbdc")
    project = work.project
    breakdown = Criterion.objects.get(project=project, key="breakdown")
    # the preset's translation, while the project keeps the preset's English
    ja = criterion_wording(project, breakdown, "ja")
    assert ja.label == "対話破綻" and ja.values["T"] == "PB: 破綻と言い切れないが、違和感を感じる"
    assert guidelines_text(project, "zh-hans").startswith("对于每条系统话语")
    # the lead's Japanese question and guidelines win in Japanese only
    project_wording_save(
        project=project, language="ja", guidelines="独自のガイドライン", questions={"breakdown": "続けにくいですか？"}
    )
    project.refresh_from_db()
    assert criterion_wording(project, breakdown, "ja").question == "続けにくいですか？"
    assert guidelines_text(project, "ja") == "独自のガイドライン"
    assert criterion_wording(project, breakdown, "zh-hans").question.startswith("在这条系统话语之后")
    assert criterion_wording(project, breakdown, "en").question == breakdown.question
    # and the annotation page shows them, in the language of the page
    item = work.assignments_of(work.annotators[0])[0]
    client = Client()
    client.force_login(work.annotators[0])
    page = client.get(reverse("annotate", args=[item.pk]), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "続けにくいですか？" in page and "独自のガイドライン" in page and "破綻ではない" in page
    page = client.get(reverse("annotate", args=[item.pk]), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "不是崩溃" in page and "在这条系统话语之后" in page
    page = client.get(reverse("annotate", args=[item.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert breakdown.question in page and "破綻" not in page


def test_a_rewritten_english_text_falls_back_to_english_not_to_a_stale_translation():
    work = project_with_work("stc3", annotators=1, k=1, slug="wording-stc3")
    project = work.project
    criterion = Criterion.objects.get(project=project, key="A")
    criterion.question = "Was the customer's problem solved, in your own judgement?"
    criterion.save()
    project.guidelines = "Our own English guidelines."
    project.save()
    with translation.override("ja"):
        worded = criterion_wording(project, criterion)
        # the label is still the preset's, so it is translated; the rewritten question is not
        assert worded.label == "タスクの達成度"
        assert worded.question == "Was the customer's problem solved, in your own judgement?"
        assert guidelines_text(project) == "Our own English guidelines."
    # a criterion the preset does not have, with its own scale, stays English
    extra = Criterion.objects.create(
        project=project,
        key="politeness",
        label="Politeness",
        question="How polite is the helpdesk?",
        unit="dialogue",
        values=[{"value": "0", "label": "0: rude"}, {"value": "1", "label": "1: polite"}],
        level="ordinal",
        position=99,
    )
    worded = criterion_wording(project, extra, "zh-hans")
    assert (worded.label, worded.question, worded.values) == (
        "Politeness",
        "How polite is the helpdesk?",
        {"0": "0: rude", "1": "1: polite"},
    )


def test_the_lead_edits_each_language_s_wording_on_a_page():
    work = project_with_work("nlpcc", annotators=1, k=1, slug="wording-nlpcc")
    url = reverse("lead_wording", args=[work.project.slug])
    annotator = Client()
    annotator.force_login(work.annotators[0])
    assert annotator.get(url).status_code == 403
    lead = Client()
    lead.force_login(work.lead)
    page = lead.get(f"{url}?language=zh-hans").content.decode()
    assert "回复是否含有严重错误？" in page  # the preset's Chinese shown as the placeholder
    answer = lead.post(url, {"language": "zh-hans", "guidelines": "", "q:severe_error": "回复有没有严重问题？"})
    assert answer.status_code == 302
    work.project.refresh_from_db()
    saved = {"zh-hans": {"guidelines": "", "questions": {"severe_error": "回复有没有严重问题？"}}}
    assert work.project.wordings == saved
    # clearing every field goes back to the preset's translation
    lead.post(url, {"language": "zh-hans", "q:severe_error": "  "})
    work.project.refresh_from_db()
    assert work.project.wordings == {}
    assert lead.get(f"{url}?language=fr").status_code == 404
