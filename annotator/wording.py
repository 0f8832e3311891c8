"""Which wording of a project's guidelines and questions a page shows, in the reader's language (issue #17).

For a language other than English, each text is, in this order:

1. the lead's own wording of the project for the language (``Project.wordings[language]``: ``guidelines``
   and ``questions`` by criterion key), edited on the *Wording* page;
2. the preset's translation from the gettext catalogues (``locale/``), but only while the project's English
   text is still the preset's: a lead who rewrote the English question has not had it translated;
3. the project's English text.

Value labels follow (2) then (3). English pages always show the project's own text.

The presets' English texts are the msgids (marked in ``annotator.presets``); a text translated otherwise
in one preset than elsewhere has the context ``"<preset key> preset"`` (``Task accomplishment`` is
タスクの達成 in DCH-1 and タスクの達成度 in STC-3), which is looked up first.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils import formats, translation
from django.utils.translation import gettext, ngettext, pgettext, pgettext_lazy

from annotator.models import Criterion, Project
from annotator.presets import PRESETS

WORDING_LANGUAGES = ("ja", "zh-hans")  # the languages a lead can word a project in, beside English
# the presets' value labels, translated wherever a criterion uses one (the scales are shared by presets)
PRESET_VALUE_LABELS = frozenset(
    value["label"] for spec in PRESETS.values() for criterion in spec.criteria for value in criterion.values
)

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


def preset_text(preset_key: str, text: str, language: str) -> str:
    """A preset's English ``text`` as the catalogues translate it in ``language``: under the context
    ``"<preset key> preset"`` when the preset has its own translation, else the plain entry.

    >>> preset_text("stc3", "Task accomplishment", "ja"), preset_text("dch1", "Task accomplishment", "ja")
    ('タスクの達成度', 'タスクの達成')
    >>> preset_text("dbdc", "B: breakdown", "zh-hans"), preset_text("dbdc", "B: breakdown", "en")
    ('B: 崩溃', 'B: breakdown')
    """
    with translation.override(language):
        translated = pgettext(f"{preset_key} preset", text)
        return translated if translated != text else gettext(text)


def guidelines_text(project: Project, language: str | None = None) -> str:
    """The project's guidelines in ``language`` (default: the active one), falling back to English."""
    lang = wording_language(language)
    if lang == "en":
        return project.guidelines
    own = ((project.wordings or {}).get(lang) or {}).get("guidelines", "").strip()
    if own:
        return own
    spec = PRESETS.get(project.preset)
    if spec is not None and project.guidelines.strip() == spec.guidelines.strip():
        return preset_text(project.preset, spec.guidelines, lang)
    return project.guidelines


def criterion_wording(project: Project, criterion: Criterion, language: str | None = None) -> CriterionWording:
    """The criterion's label, question and value labels in ``language``, falling back to English."""
    english_values = {v["value"]: v["label"] for v in criterion.values}
    lang = wording_language(language)
    if lang == "en":
        return CriterionWording(criterion.label, criterion.question, english_values)
    preset_spec = _preset_criterion(project, criterion.key)
    label, question = criterion.label, criterion.question
    if preset_spec is not None:
        if criterion.label == preset_spec.label:
            label = preset_text(project.preset, label, lang)
        if criterion.question == preset_spec.question:
            question = preset_text(project.preset, question, lang)
    own = ((project.wordings or {}).get(lang) or {}).get("questions", {}).get(criterion.key, "").strip()
    if own:
        question = own
    values = {
        value: preset_text(project.preset, text, lang) if text in PRESET_VALUE_LABELS else text
        for value, text in english_values.items()
    }
    return CriterionWording(label, question, values)


def preset_label(preset_key: str, language: str | None = None) -> str:
    """A preset's name in ``language`` (English when it has none)."""
    spec = PRESETS.get(preset_key)
    return preset_text(preset_key, spec.label, wording_language(language)) if spec else preset_key


def minutes_text(minutes: int) -> str:
    """A time limit in minutes, with the plural the language needs: ``1 minute``, ``90 minutes``.

    >>> minutes_text(1), minutes_text(90)
    ('1 minute', '90 minutes')
    """
    return ngettext("%(n)s minute", "%(n)s minutes", minutes) % {"n": formats.number_format(minutes)}
