"""The interface language: the browser's Accept-Language, the picker on every page, remembered per user;
dates and durations written the language's way; the API's own error messages translated."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from annotator.models import AccountSettings
from annotator.templatetags.annotator_time import duration, utc_text
from tests.factories import PASSWORD, project_with_work

pytestmark = pytest.mark.django_db


def test_the_browser_language_decides_when_nobody_chose():
    client = Client()
    # given no choice, a Japanese browser gets the Japanese login page, with lang="ja" on <html>
    page = client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="ja,en;q=0.5").content.decode()
    assert '<html lang="ja">' in page and "ログイン" in page and "Log in" not in page
    # a Chinese browser (zh-CN) gets Simplified Chinese
    page = client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9").content.decode()
    assert '<html lang="zh-hans">' in page and "登录" in page
    # anything else gets English
    page = client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert '<html lang="en">' in page and "Log in" in page


def test_every_page_has_the_language_picker():
    work = project_with_work("dbdc", annotators=1, k=1)
    client = Client()
    item = work.assignments_of(work.annotators[0])[0]
    client.force_login(work.annotators[0])
    for url in (reverse("home"), reverse("queue", args=[work.project.slug]), reverse("annotate", args=[item.pk])):
        page = client.get(url).content.decode()
        assert f'action="{reverse("set_language")}"' in page and 'value="zh-hans"' in page, url


def test_a_signed_in_user_s_choice_is_remembered_on_the_account_and_beats_the_browser():
    work = project_with_work("stc3", annotators=1, k=1, slug="lang-choice")
    annotator = work.annotators[0]
    client = Client()
    client.force_login(annotator)
    # when they choose Chinese on the queue page
    queue = reverse("queue", args=[work.project.slug])
    answer = client.post(reverse("set_language"), {"language": "zh-hans", "next": queue}, HTTP_ACCEPT_LANGUAGE="ja")
    # then they are back on the page, in Chinese, although their browser asks for Japanese
    assert answer.status_code == 302 and answer.url == queue
    assert AccountSettings.objects.get(user=annotator).language == "zh-hans"
    page = client.get(queue, HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert '<html lang="zh-hans">' in page and "你的队列" in page
    # and on another browser (no cookie), the choice comes with the sign-in
    other = Client()
    other.post(reverse("login"), {"username": annotator.username, "password": PASSWORD}, HTTP_ACCEPT_LANGUAGE="ja")
    page = other.get(queue, HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert '<html lang="zh-hans">' in page
    # choosing "follow my browser" forgets it
    other.post(reverse("set_language"), {"language": "", "next": queue})
    assert AccountSettings.objects.get(user=annotator).language == ""
    assert '<html lang="ja">' in other.get(queue, HTTP_ACCEPT_LANGUAGE="ja").content.decode()


def test_the_picker_works_before_signing_in_and_refuses_other_sites():
    client = Client()
    answer = client.post(reverse("set_language"), {"language": "ja", "next": "https://evil.example/"})
    assert answer.status_code == 302 and answer.url == reverse("home")
    assert client.cookies["django_language"].value == "ja"
    assert '<html lang="ja">' in client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    # an unknown language is no choice: the browser decides again
    client.post(reverse("set_language"), {"language": "xx", "next": "/"})
    assert '<html lang="en">' in client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="en").content.decode()


def test_the_script_catalogue_follows_the_language():
    client = Client()
    ja = client.get(reverse("javascript-catalog"), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    zh = client.get(reverse("javascript-catalog"), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "\\u4e0b\\u66f8\\u304d" in ja or "下書き" in ja  # 下書き (draft)
    assert "\\u8349\\u7a3f" in zh or "草稿" in zh  # 草稿 (draft)


def test_dates_and_durations_follow_the_language():
    when = datetime(2025, 5, 6, 14, 3, 9, tzinfo=UTC)
    assert utc_text(when) == "2025-05-06 14:03 UTC"
    assert duration(185) == "3 min 05 s"
    with translation.override("ja"):
        assert utc_text(when) == "2025年5月6日 14:03 UTC"
        assert duration(185) == "3 分 05 秒"
    with translation.override("zh-hans"):
        assert utc_text(when, seconds=True) == "2025年5月6日 14:03:09 UTC"
        assert duration(7440) == "2 小时 04 分"


def test_the_api_s_own_errors_are_translated():
    client = Client()
    url = reverse("api-token")
    en = client.post(url, {"username": "nobody", "password": "wrong"}, HTTP_ACCEPT_LANGUAGE="en").json()
    ja = client.post(url, {"username": "nobody", "password": "wrong"}, HTTP_ACCEPT_LANGUAGE="ja").json()
    assert en["detail"] == "Unable to log in with the username and password given."
    assert ja["detail"] == "入力されたユーザー名とパスワードではログインできません。"
    missing = client.get("/api/no-such-endpoint/", HTTP_ACCEPT_LANGUAGE="zh-hans").json()
    assert missing["detail"].startswith("未找到")


def test_a_refused_submission_names_the_turns_in_the_annotator_s_language():
    work = project_with_work("dbdc", annotators=1, k=1, slug="lang-submit")
    item = work.assignments_of(work.annotators[0])[0]
    client = Client()
    client.force_login(work.annotators[0])
    answer = client.post(  # the page's submission: the API's save with its session
        reverse("api-judgements", args=[item.pk]),
        data={"judgements": [], "submit": True},
        content_type="application/json",
        HTTP_ACCEPT_LANGUAGE="ja",
    )
    problems = " ".join(answer.json()["problems"])
    assert "対話破綻" in problems and "ターン" in problems and "is missing" not in problems
