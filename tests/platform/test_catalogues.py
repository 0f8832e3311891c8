"""The translation catalogues are complete: every string the templates, the code and the scripts mark for
translation has a Japanese and a Simplified Chinese translation that is neither empty nor fuzzy, with the
same placeholders, and the committed compiled catalogues (.mo) say the same as the .po files.

The strings are gathered the way ``makemessages`` gathers them, without needing GNU gettext: templates
go through Django's own ``templatize`` (what ``makemessages`` feeds to xgettext), and the result, the
Python modules and the scripts go through Babel's extractors with Django's gettext keywords.
"""

from __future__ import annotations

import gettext as gnu_gettext
import io
import re
from collections.abc import Iterable
from pathlib import Path

import pytest
from babel.messages.extract import extract
from babel.messages.pofile import read_po
from django.conf import settings
from django.utils.translation.template import templatize

ROOT = Path(settings.BASE_DIR)
LANGUAGES = ("ja", "zh_Hans")
KEYWORDS = {
    "_": None,
    "N_": None,  # scoring.errors: the library's message templates, translated by the Django side
    "pgettext_noop": ((1, "c"), 2),  # annotator.presets: a preset's text under a context
    "gettext": None,
    "gettext_lazy": None,
    "gettext_noop": None,
    "ngettext": (1, 2),
    "ngettext_lazy": (1, 2),
    "pgettext": ((1, "c"), 2),
    "pgettext_lazy": ((1, "c"), 2),
    "npgettext": ((1, "c"), 2, 3),
    "npgettext_lazy": ((1, "c"), 2, 3),
}
# what makemessages reads (its --ignore list in docs/languages.md): the apps, the settings, the templates, our scripts
PYTHON_DIRS = ("annotator", "api", "config", "evaluation", "scoring")
TEMPLATE_DIRS = ("templates",)
SCRIPT_DIRS = ("static/js",)
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]|%\(\w+\)0\d+d")


def _collect(method: str, source: bytes, keywords=KEYWORDS) -> Iterable[tuple[str | None, str]]:
    for _lineno, message, _comments, context in extract(method, io.BytesIO(source), keywords=keywords):
        if isinstance(message, tuple | list):
            text = message[0] if not isinstance(message[0], tuple) else message[0][0]
        else:
            text = message
        if text:
            yield context, text


def marked_strings(template_dirs=TEMPLATE_DIRS, python_dirs=PYTHON_DIRS, script_dirs=SCRIPT_DIRS) -> dict:
    """``{domain: {(context, msgid): "where"}}`` for every string marked for translation."""
    found: dict[str, dict] = {"django": {}, "djangojs": {}}
    for folder in template_dirs:
        for path in sorted(Path(ROOT, folder).rglob("*.html")):
            code = templatize(path.read_text(encoding="utf-8"), origin=str(path))
            # the strings are one-line literals: indentation left by the template means nothing to Python
            code = "\n".join(line.lstrip() for line in code.splitlines())
            for key in _collect("python", code.encode()):
                found["django"].setdefault(key, str(path))
    for folder in python_dirs:
        for path in sorted(Path(ROOT, folder).rglob("*.py")):
            if "migrations" in path.parts or "tests" in path.parts:
                continue
            for key in _collect("python", path.read_bytes()):
                found["django"].setdefault(key, str(path))
    for folder in script_dirs:
        for path in sorted(Path(ROOT, folder).rglob("*.js")):
            for key in _collect("javascript", path.read_bytes(), keywords={"gettext": None, "ngettext": (1, 2)}):
                found["djangojs"].setdefault(key, str(path))
    return found


def catalogue(language: str, domain: str):
    with open(ROOT / "locale" / language / "LC_MESSAGES" / f"{domain}.po", "rb") as handle:
        return read_po(handle, locale=language)


def catalogue_problems(found: dict, languages=LANGUAGES) -> list[str]:
    """What is missing, empty or fuzzy in each language's catalogue, or has other placeholders than its msgid."""
    problems = []
    for language in languages:
        for domain, strings in found.items():
            entries = {}
            for message in catalogue(language, domain):
                if message.id:
                    singular = message.id[0] if isinstance(message.id, tuple) else message.id
                    entries[(message.context, singular)] = message
            for key, where in sorted(strings.items(), key=lambda kv: kv[0][1]):
                message = entries.get(key)
                label = f"{language}/{domain}: {key[1]!r} ({where})"
                if message is None:
                    problems.append(f"missing {label}")
                    continue
                texts = [message.string] if isinstance(message.string, str) else list(message.string)
                if message.fuzzy:
                    problems.append(f"fuzzy {label}")
                elif not all(texts) or not texts:
                    problems.append(f"untranslated {label}")
                else:
                    allowed = set(
                        PLACEHOLDER.findall(" ".join(message.id if isinstance(message.id, tuple) else [message.id]))
                    )
                    for text in texts:
                        extra = set(PLACEHOLDER.findall(text)) - allowed
                        if extra:
                            problems.append(f"unknown placeholders {sorted(extra)} in {label}")
    return problems


def test_every_marked_string_is_translated_in_japanese_and_chinese():
    # given the strings the templates, the code and the scripts mark (hundreds of them)
    found = marked_strings()
    assert len(found["django"]) > 500 and len(found["djangojs"]) > 40
    # then each has a translation in both catalogues, neither empty nor fuzzy
    assert catalogue_problems(found) == []


def test_a_new_template_string_without_translation_fails(tmp_path):
    # given a template with a string nobody has translated, beside a translated one
    (tmp_path / "new.html").write_text(
        '{% load i18n %}<p>{% translate "Log in" %}</p><p>{% translate "A sentence added without a translation" %}</p>'
        "{% blocktranslate with n=3 %}{{ n }} more untranslated things{% endblocktranslate %}"
    )
    found = marked_strings(template_dirs=(str(tmp_path),), python_dirs=(), script_dirs=())
    # then the check names exactly the two untranslated strings, in both languages
    problems = catalogue_problems(found)
    assert len(problems) == 4
    assert all("A sentence added without a translation" in p or "more untranslated things" in p for p in problems)
    assert any(p.startswith("missing ja/") for p in problems) and any(
        p.startswith("missing zh_Hans/") for p in problems
    )


def test_a_new_code_or_script_string_without_translation_fails(tmp_path):
    (tmp_path / "module.py").write_text('from django.utils.translation import gettext\ngettext("Brand new message")\n')
    (tmp_path / "page.js").write_text('status.textContent = gettext("A script message nobody translated");\n')
    found = marked_strings(template_dirs=(), python_dirs=(str(tmp_path),), script_dirs=(str(tmp_path),))
    assert sorted(p.split(": ", 1)[1].split(" (")[0] for p in catalogue_problems(found, languages=("ja",))) == [
        "'A script message nobody translated'",
        "'Brand new message'",
    ]


def _catalogue_under(folder: Path):
    def read(language: str, domain: str):
        with open(folder / language / "LC_MESSAGES" / f"{domain}.po", "rb") as handle:
            return read_po(handle, locale=language)

    return read


def test_a_fuzzy_entry_counts_as_untranslated(tmp_path, monkeypatch):
    # given a catalogue whose only entry is fuzzy
    po = tmp_path / "ja" / "LC_MESSAGES"
    po.mkdir(parents=True)
    (po / "django.po").write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        '#, fuzzy\nmsgid "Log in"\nmsgstr "ログイン"\n',
        encoding="utf-8",
    )
    monkeypatch.setattr("tests.platform.test_catalogues.catalogue", _catalogue_under(tmp_path))
    problems = catalogue_problems({"django": {(None, "Log in"): "x"}}, languages=("ja",))
    assert problems == ["fuzzy ja/django: 'Log in' (x)"]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("domain", ["django", "djangojs"])
def test_the_committed_compiled_catalogues_match_the_po_files(language, domain):
    """The .mo files are committed (no set-up step needs gettext): they must say what the .po files say."""
    mo_path = ROOT / "locale" / language / "LC_MESSAGES" / f"{domain}.mo"
    with open(mo_path, "rb") as handle:
        compiled = gnu_gettext.GNUTranslations(handle)
    checked = 0
    for message in catalogue(language, domain):
        if not message.id or message.fuzzy:
            continue
        if isinstance(message.id, tuple):
            assert compiled.ngettext(message.id[0], message.id[1], 1) == message.string[0], message.id
        elif message.context:
            assert compiled.pgettext(message.context, message.id) == message.string, message.id
        else:
            assert compiled.gettext(message.id) == message.string, message.id
        checked += 1
    assert checked > (500 if domain == "django" else 40)
