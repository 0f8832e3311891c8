"""Which wording of a project's guidelines and questions a page shows, in the reader's language (issue #17).

For a language other than English, each text is, in this order:

1. the lead's own wording of the project for the language (``Project.wordings[language]``: ``guidelines``
   and ``questions`` by criterion key), edited on the *Wording* page;
2. the translation in the project's scheme (its file's ``ja`` and ``zh`` texts, kept in ``Project.scheme``),
   but only while the project's English text is still the scheme's: a lead who rewrote the English question
   has not had it translated;
3. the project's English text.

Value labels follow (2) then (3). English pages always show the project's own text. Each scheme words its
own texts, so one English word may be translated otherwise in two schemes (``Task accomplishment`` is
タスクの達成 in DCH-1 and タスクの達成度 in STC-3).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils import formats, translation
from django.utils.translation import ngettext, pgettext_lazy

from annotator.models import Criterion, Project
from annotator.presets import PRESETS
from annotator.presets.of_project import project_scheme

WORDING_LANGUAGES = ("ja", "zh-hans")  # the languages a lead can word a project in, beside English

# The presets' speakers, named in the reader's language (other speakers are data: shown as they are)
SPEAKER_NAMES = {
    "customer": pgettext_lazy("speaker", "customer"),
    "helpdesk": pgettext_lazy("speaker", "helpdesk"),
    "user": pgettext_lazy("speaker", "user"),
    "system": pgettext_lazy("speaker", "system"),
    "U": pgettext_lazy("speaker", "U"),
    "S": pgettext_lazy("speaker", "S"),
}


def speaker_name(speaker: str) -> str:
    """A preset speaker's name in the active language (``customer`` is 顧客 in Japanese); others unchanged.

    >>> speaker_name("customer"), speaker_name("Alice")
    ('customer', 'Alice')
    """
    name = SPEAKER_NAMES.get(speaker)
    return str(name) if name is not None else speaker


def wording_language(language: str | None = None) -> str:
    """The wording language for ``language`` (default: the active one): ``ja``, ``zh-hans`` or ``en``."""
    code = (language or translation.get_language() or "en").lower()
    for candidate in WORDING_LANGUAGES:
        if code == candidate or code.startswith(candidate.split("-")[0] + "-") or code == candidate.split("-")[0]:
            return candidate
    return "en"


@dataclass(frozen=True)
class CriterionWording:
    label: str
    question: str
    values: dict[str, str]  # value -> label (the "not applicable" answer's too)
    description: str = ""  # what the criterion means (the glossary), or ""
    value_descriptions: dict[str, str] = field(default_factory=dict)  # value -> what it means (the glossary)


def preset_text(preset_key: str, text: str, language: str) -> str:
    """A preset's English ``text`` as its scheme file words it in ``language`` (English when it does not).

    >>> preset_text("stc3", "Task accomplishment", "ja"), preset_text("dch1", "Task accomplishment", "ja")
    ('タスクの達成度', 'タスクの達成')
    >>> preset_text("dbdc", "B: breakdown", "zh-hans"), preset_text("dbdc", "B: breakdown", "en")
    ('B: 崩溃', 'B: breakdown')
    """
    return PRESETS[preset_key].text(text, wording_language(language))


def guidelines_text(project: Project, language: str | None = None) -> str:
    """The project's guidelines in ``language`` (default: the active one), falling back to English."""
    lang = wording_language(language)
    if lang == "en":
        return project.guidelines
    own = ((project.wordings or {}).get(lang) or {}).get("guidelines", "").strip()
    if own:
        return own
    spec = project_scheme(project)
    if project.guidelines.strip() == spec.guidelines.strip():
        return spec.text(spec.guidelines, lang)
    return project.guidelines


def criterion_wording(project: Project, criterion: Criterion, language: str | None = None) -> CriterionWording:
    """The criterion's label, question and value labels in ``language``, falling back to English.

    A text is translated only while the project's English text is still the scheme's (a lead who rewrote it has
    not had it translated); the lead's own wording of a question wins.
    """
    english_values = {v["value"]: v["label"] for v in criterion.values}
    if criterion.not_applicable:
        english_values[criterion.not_applicable["value"]] = criterion.not_applicable["label"]
    spec = project_scheme(project)
    own_spec = spec.criterion(criterion.key)
    same_scale = own_spec is not None and [v["value"] for v in own_spec.values] == criterion.allowed_values()
    description = own_spec.description if own_spec is not None and criterion.label == own_spec.label else ""
    descriptions = dict(own_spec.value_descriptions) if same_scale else {}
    lang = wording_language(language)
    if lang == "en":
        return CriterionWording(criterion.label, criterion.question, english_values, description, descriptions)
    question = spec.text(criterion.question, lang)
    own = ((project.wordings or {}).get(lang) or {}).get("questions", {}).get(criterion.key, "").strip()
    return CriterionWording(
        spec.text(criterion.label, lang),
        own or question,
        {value: spec.text(text, lang) for value, text in english_values.items()},
        spec.text(description, lang),
        {value: spec.text(text, lang) for value, text in descriptions.items()},
    )


def scheme_label(project: Project, language: str | None = None) -> str:
    """The name of the project's scheme in ``language`` (English when it has none)."""
    spec = project_scheme(project)
    return spec.text(spec.label, wording_language(language))


def preset_label(preset_key: str, language: str | None = None) -> str:
    """A preset's name in ``language`` (English when it has none)."""
    spec = PRESETS.get(preset_key)
    return spec.text(spec.label, wording_language(language)) if spec else preset_key


def minutes_text(minutes: int) -> str:
    """A time limit in minutes, with the plural the language needs: ``1 minute``, ``90 minutes``.

    >>> minutes_text(1), minutes_text(90)
    ('1 minute', '90 minutes')
    """
    return ngettext("%(n)s minute", "%(n)s minutes", minutes) % {"n": formats.number_format(minutes)}
