"""Which wording of a project's guidelines and questions a page shows, in the reader's language (issue #17).

For a language other than English, each text is, in this order:

1. the lead's own wording of the project for the language (``Project.wordings[language]``: ``guidelines``
   and ``questions`` by criterion key), edited on the *Wording* page;
2. the preset's translation (``annotator.preset_wording``), but only while the project's English text is
   still the preset's: a lead who rewrote the English question has not had it translated;
3. the project's English text.

Value labels follow (2) then (3). English pages always show the project's own text.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils import translation
from django.utils.translation import pgettext_lazy

from annotator.models import Criterion, Project
from annotator.preset_wording import LANGUAGES, PRESET_WORDING, VALUE_LABELS
from annotator.presets import PRESETS

WORDING_LANGUAGES = LANGUAGES  # the languages a lead can word a project in, beside English

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
    values: dict[str, str]  # value -> label


def _preset_criterion(project: Project, key: str):
    spec = PRESETS.get(project.preset)
    return next((c for c in spec.criteria if c.key == key), None) if spec else None


def guidelines_text(project: Project, language: str | None = None) -> str:
    """The project's guidelines in ``language`` (default: the active one), falling back to English."""
    lang = wording_language(language)
    if lang == "en":
        return project.guidelines
    own = ((project.wordings or {}).get(lang) or {}).get("guidelines", "").strip()
    if own:
        return own
    spec = PRESETS.get(project.preset)
    preset = PRESET_WORDING.get(lang, {}).get(project.preset, {})
    if spec is not None and project.guidelines.strip() == spec.guidelines.strip() and preset.get("guidelines"):
        return preset["guidelines"]
    return project.guidelines


def criterion_wording(project: Project, criterion: Criterion, language: str | None = None) -> CriterionWording:
    """The criterion's label, question and value labels in ``language``, falling back to English."""
    english_values = {v["value"]: v["label"] for v in criterion.values}
    lang = wording_language(language)
    if lang == "en":
        return CriterionWording(criterion.label, criterion.question, english_values)
    preset_spec = _preset_criterion(project, criterion.key)
    preset = PRESET_WORDING.get(lang, {}).get(project.preset, {}).get("criteria", {}).get(criterion.key)
    label, question = criterion.label, criterion.question
    if preset is not None and preset_spec is not None:
        if criterion.label == preset_spec.label:
            label = preset[0]
        if criterion.question == preset_spec.question:
            question = preset[1]
    own = ((project.wordings or {}).get(lang) or {}).get("questions", {}).get(criterion.key, "").strip()
    if own:
        question = own
    value_labels = VALUE_LABELS.get(lang, {})
    return CriterionWording(
        label, question, {value: value_labels.get(text, text) for value, text in english_values.items()}
    )


def preset_label(preset_key: str, language: str | None = None) -> str:
    """A preset's name in ``language`` (English when it has none)."""
    lang = wording_language(language)
    spec = PRESETS.get(preset_key)
    english = spec.label if spec else preset_key
    return PRESET_WORDING.get(lang, {}).get(preset_key, {}).get("label", english)
