"""The scheme page's forms: one criterion as the lead edits it, turned into the criterion's document (the form a
scheme file holds it in, ``annotator/presets/scheme.schema.json``), and a scheme file to upload."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext, gettext_lazy

from annotator.models import AppliesTo, Level, Unit

LANGUAGES = (("en", "English"), ("ja", "日本語"), ("zh", "简体中文"))


def _text(data: dict, name: str):
    """A text of the document: English alone, or with its translations."""
    texts = {code: (data.get(f"{name}_{code}") or "").strip() for code, _n in LANGUAGES}
    return {k: v for k, v in texts.items() if v} if texts["ja"] or texts["zh"] else texts["en"]


def _text_initial(value, name: str) -> dict:
    if isinstance(value, dict):
        return {f"{name}_{code}": value.get(code, "") for code, _n in LANGUAGES}
    return {f"{name}_en": value or ""}


def _english(text) -> str:
    return text["en"] if isinstance(text, dict) else text


def _value(before: dict | None, given: dict) -> dict:
    """A value as the form gives it, with its translations and description kept while its English label is."""
    if before is None:
        return given
    value = dict(given)
    if _english(before["label"]) == given["label"]:
        value["label"] = before["label"]
    if "description" in before:
        value["description"] = before["description"]
    return value


class CriterionForm(forms.Form):
    """A criterion: key, label and question in three languages, unit, speaker, units asked, level, the values (one a
    line: ``value | label | key | speaker``) and the "not applicable" answer."""

    key = forms.RegexField(
        regex=r"^[A-Za-z][A-Za-z0-9_]{0,39}$",
        max_length=40,
        label=gettext_lazy("Key"),
        help_text=gettext_lazy("Its name in exports and the API: a letter, then letters, digits or _."),
    )
    label_en = forms.CharField(max_length=200, label=gettext_lazy("Label (English)"))
    label_ja = forms.CharField(max_length=200, required=False, label=gettext_lazy("Label (Japanese)"))
    label_zh = forms.CharField(max_length=200, required=False, label=gettext_lazy("Label (Chinese)"))
    question_en = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 2}), label=gettext_lazy("Question (English)")
    )
    question_ja = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 2}), label=gettext_lazy("Question (Japanese)")
    )
    question_zh = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 2}), label=gettext_lazy("Question (Chinese)")
    )
    unit = forms.ChoiceField(choices=Unit.choices, label=gettext_lazy("Unit judged"))
    speaker = forms.CharField(
        max_length=40,
        required=False,
        label=gettext_lazy("Speaker"),
        help_text=gettext_lazy("Only this speaker's turns; empty: all."),
    )
    applies_to = forms.ChoiceField(choices=AppliesTo.choices, label=gettext_lazy("Which of these units"))
    level = forms.ChoiceField(choices=Level.choices, label=gettext_lazy("Level of measurement"))
    values = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 5}),
        label=gettext_lazy("Values"),
        help_text=gettext_lazy(
            "One a line, in order: value | label | key | speaker (the key and the speaker are optional)."
        ),
    )
    na_value = forms.CharField(
        max_length=40,
        required=False,
        label=gettext_lazy("“Not applicable” value"),
        help_text=gettext_lazy("Empty: the criterion has no “not applicable” answer."),
    )
    na_label = forms.CharField(max_length=200, required=False, label=gettext_lazy("“Not applicable” label"))
    na_key = forms.CharField(max_length=1, required=False, label=gettext_lazy("“Not applicable” key"))

    def clean_values(self):
        rows = []
        for number, line in enumerate(self.cleaned_data["values"].splitlines(), start=1):
            if not line.strip():
                continue
            parts = [p.strip() for p in line.split("|")] + ["", "", ""]
            if len(parts) > 7 or not parts[0]:
                raise forms.ValidationError(
                    gettext("line %(number)s: write value | label | key | speaker") % {"number": number}
                )
            value = {"value": parts[0], "label": parts[1] or parts[0]}
            for name, part in (("key", parts[2]), ("speaker", parts[3])):
                if part:
                    value[name] = part
            rows.append(value)
        return rows

    def document(self, old: dict | None = None) -> dict:
        """The criterion as a scheme file holds it (checked by the scheme's reader when saved). What the form does
        not edit is kept from ``old``, the criterion's document before: its description, merges and aspect, and
        each value's translations and description (a value is the same value while its code and speaker are)."""
        data = self.cleaned_data
        old = old or {}
        doc: dict = {"key": data["key"], "label": _text(data, "label")}
        question = _text(data, "question")
        if question:
            doc["question"] = question
        doc["unit"] = data["unit"]
        if data["unit"] != Unit.DIALOGUE:
            if data["speaker"].strip():
                doc["speaker"] = data["speaker"].strip()
            if data["applies_to"] != AppliesTo.EVERY:
                doc["applies_to"] = data["applies_to"]
        doc["level"] = data["level"]
        before = {(v["value"], v.get("speaker", "")): v for v in old.get("values", [])}
        doc["values"] = [_value(before.get((v["value"], v.get("speaker", ""))), v) for v in data["values"]]
        if data["na_value"].strip():
            na = {"value": data["na_value"].strip(), "label": data["na_label"].strip() or data["na_value"].strip()}
            if data["na_key"].strip():
                na["key"] = data["na_key"].strip()
            doc["not_applicable"] = na
        for kept in ("description", "merges", "aspect"):
            if kept in old:
                doc[kept] = old[kept]
        return doc

    @classmethod
    def initial_of(cls, criterion: dict) -> dict:
        """The form's fields for a criterion's document."""
        na = criterion.get("not_applicable") or {}
        values = [
            " | ".join([v["value"], _english(v["label"]), v.get("key", ""), v.get("speaker", "")]).rstrip(" |")
            for v in criterion["values"]
        ]
        return {
            "key": criterion["key"],
            **_text_initial(criterion["label"], "label"),
            **_text_initial(criterion.get("question", ""), "question"),
            "unit": criterion["unit"],
            "speaker": criterion.get("speaker", ""),
            "applies_to": criterion.get("applies_to", AppliesTo.EVERY),
            "level": criterion["level"],
            "values": "\n".join(values),
            "na_value": na.get("value", ""),
            "na_label": _english(na.get("label", "")),
            "na_key": na.get("key", ""),
        }


class SchemeFileForm(forms.Form):
    file = forms.FileField(
        label=gettext_lazy("Scheme file"),
        help_text=gettext_lazy("YAML or JSON, as manage.py export_scheme writes it (see the documentation)."),
    )
