"""A scheme as a file: read (YAML or JSON), checked against the published JSON Schema and the rules a schema
cannot say, and written back.

The format is ``scheme.schema.json`` beside this module (documented in ``docs/schemes.md``); the six presets
are scheme files in ``files/``. ``scheme_read`` turns a file into a ``Scheme``, ``scheme_document`` a
``Scheme`` into the document a file or ``Project.scheme`` holds; the two are inverse:
``scheme_from_document(scheme_document(s)) == s``.

A text (a label, question, guideline or description) is either English alone or an object with ``en`` and
optionally ``ja`` and ``zh`` (Simplified Chinese). In memory the English text is the field and the
translations sit in ``wordings`` (``{"ja": {...}, "zh-hans": {...}}``, the interface's language codes).
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import yaml  # config.deferred_imports: imported on its first use

from annotator.presets.spec import (
    PAIR_OUTCOMES,
    RUN_SCHEMES,
    Comparison,
    CriterionSpec,
    Scheme,
    Summary,
    UnitRule,
)
from scoring.errors import N_, InputError

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

SCHEME_FORMAT = 1
SCHEMA_PATH = Path(__file__).with_name("scheme.schema.json")
FILE_LANGUAGES = {"ja": "ja", "zh": "zh-hans"}  # a file's language key -> the interface's language code
MAX_SCHEME_BYTES = 1_000_000


@lru_cache(maxsize=1)
def _validator() -> Draft202012Validator:
    from jsonschema import Draft202012Validator  # (and its referencing, rpds): on the first scheme read

    return Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


def _path(parts) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def scheme_read(raw: bytes | str, display: str) -> Scheme:
    """The scheme in a YAML or JSON file (JSON is YAML; a ``.json`` file is read as JSON).

    Raises ``InputError`` naming the file and the field (``criteria[2].values[0].value``) and what is wrong.
    """
    if len(raw) > MAX_SCHEME_BYTES:
        raise InputError(display, N_("is larger than %(limit)s bytes"), params={"limit": MAX_SCHEME_BYTES})
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        document = json.loads(text) if display.lower().endswith(".json") else yaml.safe_load(text)
    except UnicodeDecodeError:
        raise InputError(display, N_("is not UTF-8 text")) from None
    except (ValueError, yaml.YAMLError) as exc:
        raise InputError(display, N_("is neither YAML nor JSON: %(error)s"), params={"error": str(exc)[:300]}) from None
    return scheme_from_document(document, display=display)


def scheme_from_document(document, *, display: str = "scheme") -> Scheme:
    """The ``Scheme`` a parsed document describes; ``InputError`` (file and field) if it is not a valid one."""
    errors = sorted(_validator().iter_errors(document), key=lambda e: (len(e.path), list(map(str, e.path))))
    if errors:
        error = errors[0]
        raise InputError(
            display, N_("%(problem)s"), field=_path(error.path) or None, params={"problem": error.message[:500]}
        )
    return _Reader(display).scheme(document)


class _Reader:
    """Builds a ``Scheme`` from a document the JSON Schema accepted, checking what the schema cannot say."""

    def __init__(self, display: str):
        self.display = display

    def error(self, field: str, message: str, **params) -> InputError:
        return InputError(self.display, message, field=field, params=params)

    def scheme(self, doc: dict) -> Scheme:
        wordings: dict[str, dict] = {}
        label = _text(doc["label"], "label", wordings)
        guidelines = _text(doc.get("guidelines", ""), "guidelines", wordings)
        k_reason = _text(doc.get("annotators_per_dialogue_reason", ""), "k_reason", wordings)
        speakers = tuple(doc.get("speakers", ()))
        comparison = Comparison() if doc.get("comparison") else None
        criteria = [self.criterion(c, f"criteria[{i}]", speakers, comparison) for i, c in enumerate(doc["criteria"])]
        keys = [c.key for c in criteria]
        for i, key in enumerate(keys):
            if key in keys[:i]:
                raise self.error(f"criteria[{i}].key", N_("criterion %(key)s is defined twice"), key=key)
        incremental = doc.get("incremental")
        if incremental is not None:
            found = next((c for c in criteria if c.key == incremental), None)
            if found is None or found.unit == "dialogue":
                raise self.error(
                    "incremental", N_("names %(key)s, which is no turn-level criterion of the scheme"), key=incremental
                )
        summaries = tuple(Summary(s) for s in doc.get("summaries", ()))
        aspects = {c.key: c.aspect for c in criteria if c.aspect}
        if Summary.BRADLEY_TERRY in summaries and comparison is None:
            raise self.error("summaries", N_("bradley_terry ranks systems from comparisons: set comparison: true"))
        if Summary.NLPCC in summaries and not aspects:
            raise self.error("summaries", N_("nlpcc scores aspects: give some criteria an aspect"))
        run_scheme = RUN_SCHEMES[doc["runs"]] if doc.get("runs") else None
        self.runs_fit(run_scheme, criteria, speakers)
        return Scheme(
            key=doc["key"],
            label=label,
            guidelines=guidelines,
            annotators_per_dialogue=doc.get("annotators_per_dialogue", 3),
            criteria=criteria,
            speakers=speakers,
            reordering=bool(doc.get("reordering", False)),
            incremental=incremental,
            merges={c.key: c.merges for c in criteria if c.merges},
            summaries=summaries,
            run_scheme=run_scheme,
            aspects=aspects,
            formats=tuple(doc.get("formats", ())),
            comparison=comparison,
            k_reason=k_reason,
            wordings=wordings,
        )

    def runs_fit(self, run_scheme, criteria: list[CriterionSpec], speakers: tuple[str, ...]) -> None:
        """The criteria a run scheme's scorer reads (its gold data) must be there, with the values it reads."""
        if run_scheme is None:
            return
        by_key = {c.key: c for c in criteria}
        needed = {"stc3": ("nugget", None), "dbdc": ("breakdown", ["O", "T", "X"])}.get(run_scheme.key)
        if needed is None:
            return
        key, values = needed
        found = by_key.get(key)
        if found is None or found.unit == "dialogue":
            raise self.error(
                "runs",
                N_("%(runs)s runs are scored against a turn-level criterion %(key)s"),
                runs=run_scheme.key,
                key=key,
            )
        if values is not None and [v["value"] for v in found.values] != values:
            raise self.error(
                "runs",
                N_("%(runs)s runs read criterion %(key)s with the values %(values)s"),
                runs=run_scheme.key,
                key=key,
                values=", ".join(values),
            )

    def criterion(self, doc: dict, where: str, speakers: tuple[str, ...], comparison) -> CriterionSpec:
        wordings: dict[str, dict] = {}
        label = _text(doc["label"], "label", wordings)
        question = _text(doc.get("question", ""), "question", wordings)
        description = _text(doc.get("description", ""), "description", wordings)
        unit, level = doc["unit"], doc["level"]
        speaker = doc.get("speaker", "")
        applies_to = doc.get("applies_to", UnitRule.EVERY.value)
        if unit == "dialogue" and (speaker or applies_to != UnitRule.EVERY):
            raise self.error(
                f"{where}.unit", N_("a dialogue-level criterion has no speaker and applies to every dialogue")
            )
        if speaker and speakers and speaker not in speakers:
            raise self.error(
                f"{where}.speaker",
                N_("%(speaker)s is not one of the scheme's speakers (%(speakers)s)"),
                speaker=speaker,
                speakers=", ".join(speakers),
            )
        values, descriptions = [], {}
        seen: set[tuple[str, str]] = set()
        used_keys: set[str] = set()
        for i, v in enumerate(doc["values"]):
            at = f"{where}.values[{i}]"
            value_speaker = v.get("speaker", "")
            if (v["value"], value_speaker) in seen:
                raise self.error(f"{at}.value", N_("value %(value)s is on the scale twice"), value=v["value"])
            seen.add((v["value"], value_speaker))
            if value_speaker and speakers and value_speaker not in speakers:
                raise self.error(
                    f"{at}.speaker",
                    N_("%(speaker)s is not one of the scheme's speakers (%(speakers)s)"),
                    speaker=value_speaker,
                    speakers=", ".join(speakers),
                )
            self.hotkey(v.get("key"), used_keys, f"{at}.key")
            entry = {"value": v["value"], "label": _text(v["label"], ("values", v["value"]), wordings)}
            if value_speaker:
                entry["speaker"] = value_speaker
            if v.get("key"):
                entry["key"] = v["key"]
            values.append(entry)
            if v.get("description"):
                descriptions[v["value"]] = _text(v["description"], ("value_descriptions", v["value"]), wordings)
        if level in ("interval", "ratio"):
            for i, v in enumerate(values):
                number = _number(v["value"])
                if number is None or (level == "ratio" and number < 0):
                    kind = N_("a number") if level == "interval" else N_("a number at least 0 (a ratio scale)")
                    raise self.error(
                        f"{where}.values[{i}].value", N_("%(value)s is not %(kind)s"), value=v["value"], kind=kind
                    )
        not_applicable = None
        if doc.get("not_applicable"):
            na = doc["not_applicable"]
            if any(v["value"] == na["value"] for v in values):
                raise self.error(
                    f"{where}.not_applicable.value",
                    N_("%(value)s is a value of the scale; not applicable needs a value of its own"),
                    value=na["value"],
                )
            self.hotkey(na.get("key"), used_keys, f"{where}.not_applicable.key")
            not_applicable = {"value": na["value"], "label": _text(na["label"], "not_applicable", wordings)}
            if na.get("key"):
                not_applicable["key"] = na["key"]
        merges = doc.get("merges", {})
        scale = [v["value"] for v in values]
        for name, groups in merges.items():
            flat = [x for g in groups for x in g]
            if sorted(flat) != sorted(dict.fromkeys(scale)):
                raise self.error(f"{where}.merges.{name}", N_("the groups must hold every value of the scale once"))
        if comparison is not None and (
            unit != "dialogue" or level != "nominal" or [v["value"] for v in values] != list(comparison.outcomes)
        ):
            outcomes = ", ".join(comparison.outcomes)
            raise self.error(
                where,
                N_("a comparison's criteria are nominal, of the dialogue, with the values %(outcomes)s"),
                outcomes=outcomes,
            )
        return CriterionSpec(
            key=doc["key"],
            label=label,
            question=question,
            unit=unit,
            values=values,
            level=level,
            speaker=speaker,
            applies_to=applies_to,
            not_applicable=not_applicable,
            description=description,
            value_descriptions=descriptions,
            merges=merges,
            aspect=doc.get("aspect", ""),
            wordings=wordings,
        )

    def hotkey(self, key: str | None, used: set[str], field: str) -> None:
        if not key:
            return
        if key in used:
            raise self.error(field, N_("key %(key)s chooses two answers"), key=key)
        used.add(key)


def _number(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _text(value, name, wordings: dict[str, dict]) -> str:
    """The English text of a document's text, its translations put in ``wordings[language]`` under ``name``
    (a key, or a (group, key) pair: ``("values", "O")``)."""
    if isinstance(value, str):
        return value
    for file_language, language in FILE_LANGUAGES.items():
        if value.get(file_language):
            entry = wordings.setdefault(language, {})
            if isinstance(name, tuple):
                entry.setdefault(name[0], {})[name[1]] = value[file_language]
            else:
                entry[name] = value[file_language]
    return value["en"]


def _doc_text(english: str, wordings, name):
    """The document's form of a text: English alone, or ``{"en", "ja", "zh"}`` where translated."""
    translated = {}
    for file_language, language in FILE_LANGUAGES.items():
        entry = (wordings or {}).get(language, {})
        text = entry.get(name[0], {}).get(name[1]) if isinstance(name, tuple) else entry.get(name)
        if text:
            translated[file_language] = text
    return {"en": english, **translated} if translated else english


def criterion_document(c: CriterionSpec) -> dict:
    """One criterion as a document holds it (optional fields only where they are set)."""
    w = c.wordings
    doc: dict = {"key": c.key, "label": _doc_text(c.label, w, "label")}
    if c.question:
        doc["question"] = _doc_text(c.question, w, "question")
    if c.description:
        doc["description"] = _doc_text(c.description, w, "description")
    doc["unit"] = c.unit
    if c.speaker:
        doc["speaker"] = c.speaker
    if c.applies_to != UnitRule.EVERY:
        doc["applies_to"] = str(c.applies_to)
    doc["level"] = c.level
    values = []
    for v in c.values:
        entry = {"value": v["value"], "label": _doc_text(v["label"], w, ("values", v["value"]))}
        for optional in ("speaker", "key"):
            if v.get(optional):
                entry[optional] = v[optional]
        if v["value"] in c.value_descriptions:
            entry["description"] = _doc_text(c.value_descriptions[v["value"]], w, ("value_descriptions", v["value"]))
        values.append(entry)
    doc["values"] = values
    if c.not_applicable:
        na = {"value": c.not_applicable["value"], "label": _doc_text(c.not_applicable["label"], w, "not_applicable")}
        if c.not_applicable.get("key"):
            na["key"] = c.not_applicable["key"]
        doc["not_applicable"] = na
    if c.merges:
        doc["merges"] = {name: [list(g) for g in groups] for name, groups in c.merges.items()}
    if c.aspect:
        doc["aspect"] = c.aspect
    return doc


def scheme_document(scheme: Scheme) -> dict:
    """The document of a scheme (what a file and ``Project.scheme`` hold), with only the fields that are set."""
    w = scheme.wordings
    doc: dict = {"scheme": SCHEME_FORMAT, "key": scheme.key, "label": _doc_text(scheme.label, w, "label")}
    if scheme.guidelines:
        doc["guidelines"] = _doc_text(scheme.guidelines, w, "guidelines")
    doc["annotators_per_dialogue"] = scheme.annotators_per_dialogue
    if scheme.k_reason:
        doc["annotators_per_dialogue_reason"] = _doc_text(scheme.k_reason, w, "k_reason")
    if scheme.speakers:
        doc["speakers"] = list(scheme.speakers)
    if scheme.run_scheme is not None:
        doc["runs"] = scheme.run_scheme.key
    if scheme.summaries:
        doc["summaries"] = [str(s) for s in scheme.summaries]
    if scheme.reordering:
        doc["reordering"] = True
    if scheme.incremental:
        doc["incremental"] = scheme.incremental
    if scheme.comparison is not None:
        doc["comparison"] = True
    if scheme.formats:
        doc["formats"] = list(scheme.formats)
    doc["criteria"] = [criterion_document(c) for c in scheme.criteria]
    return doc


def scheme_yaml(document: dict) -> str:
    """A document as YAML, in the order of its fields, non-ASCII text as it is."""
    return yaml.safe_dump(document, allow_unicode=True, sort_keys=False, width=110)


@lru_cache(maxsize=256)
def _cached(text: str) -> Scheme:
    try:
        return _Reader("Project.scheme").scheme(json.loads(text))
    except (KeyError, TypeError, ValueError, AttributeError):  # no stored document should: say what is wrong
        return scheme_from_document(json.loads(text), display="Project.scheme")


def stored_scheme(document: dict) -> Scheme:
    """The ``Scheme`` a project's stored document describes (parsed once per process and document).

    A stored document is ``scheme_document`` of a ``Scheme`` (the only way one is written), which came from a
    document the JSON Schema accepted or from a preset: it is read without the schema's validator, whose
    library's import was a tenth of a second of every command that reads a project's scheme (an import's).
    """
    return _cached(json.dumps(document, sort_keys=True, ensure_ascii=False))


# the outcomes' English labels, for a comparison scheme's criteria written by hand
COMPARISON_VALUES = [{"value": v, "label": label} for v, label in PAIR_OUTCOMES]
