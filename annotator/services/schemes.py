"""A project's scheme as a file, and changes to it that never reinterpret stored answers.

``scheme_current`` is what the project asks today, as a ``Scheme``: its criteria (the rows judgements refer to),
its guidelines, and every wording annotators see (the scheme's translations and the lead's own). Its document
(``scheme_document``) is what ``manage.py export_scheme`` and the scheme page hand out, and a project created
from it asks the same.

``scheme_change`` replaces the scheme. Once answers exist (judgements, drafts included, imported counts,
expected answers of control items, adjudications, judges' labels), what would change their meaning is
refused, naming the criterion and the field: a criterion's unit, speaker, units asked, level of measurement,
scale (values, their speakers and order) and its "not applicable" answer, the removal of a criterion, and the
scheme's comparison, reordering and turn-by-turn criterion. Wording, guidelines, descriptions, keyboard keys,
the criteria's order, new criteria, merges, aspects, summaries and formats can always change. Each change
counts one version (``Project.scheme_version``).
"""

from __future__ import annotations

from dataclasses import replace

from django.db import transaction
from django.utils.translation import gettext

from annotator.models import Criterion, Project
from annotator.presets import CriterionSpec, Scheme
from annotator.presets.document import FILE_LANGUAGES, scheme_document, scheme_from_document, scheme_read
from annotator.presets.of_project import project_scheme
from annotator.services.projects import criterion_rows
from annotator.wording import criterion_wording, guidelines_text

# what a criterion's stored answers mean: these fields never change once it has answers
MEANING = ("unit", "speaker", "applies_to", "level")
# the scheme's fields that change how every answer was given
SCHEME_MEANING = ("comparison", "reordering", "incremental")


class SchemeChangeRefused(ValueError):
    """A change that would reinterpret stored answers; the message names the criterion and the field."""


def _worded(translated: str, english: str, stored: str | None) -> bool:
    """Whether a text's translation is one to keep: it says something else than the English, or it is the one the
    scheme gives (a name such as "STC-3 / DialEval" is the same in every language)."""
    return bool(translated) and (translated != english or translated == stored)


def _criterion_now(project: Project, row: Criterion) -> CriterionSpec:
    """A criterion row with every wording annotators see of it, in the three languages."""
    english = criterion_wording(project, row, "en")
    stored = project_scheme(project).criterion(row.key)
    wordings: dict[str, dict] = {}
    for language in FILE_LANGUAGES.values():
        w = criterion_wording(project, row, language)
        base = stored.wordings.get(language, {}) if stored is not None else {}
        entry: dict = {}
        for name in ("label", "question", "description"):
            if _worded(getattr(w, name), getattr(english, name), base.get(name)):
                entry[name] = getattr(w, name)
        scale = row.allowed_values()
        values = {
            v: t
            for v, t in w.values.items()
            if v in scale and _worded(t, english.values[v], base.get("values", {}).get(v))
        }
        if values:
            entry["values"] = values
        na = row.not_applicable_value
        if na is not None and _worded(w.values[na], english.values[na], base.get("not_applicable")):
            entry["not_applicable"] = w.values[na]
        described = {
            v: t
            for v, t in w.value_descriptions.items()
            if _worded(t, english.value_descriptions.get(v, ""), base.get("value_descriptions", {}).get(v))
        }
        if described:
            entry["value_descriptions"] = described
        if entry:
            wordings[language] = entry
    return CriterionSpec(
        key=row.key,
        label=row.label,
        question=row.question,
        unit=row.unit,
        values=list(row.values),
        level=row.level,
        speaker=row.speaker,
        applies_to=row.applies_to,
        not_applicable=row.not_applicable,
        description=english.description,
        value_descriptions=english.value_descriptions,
        merges=stored.merges if stored is not None else {},
        aspect=stored.aspect if stored is not None else "",
        wordings=wordings,
    )


def scheme_current(project: Project) -> Scheme:
    """What the project asks today, as a scheme (its rows, guidelines and the wording annotators see); its default
    K is the scheme's (the project's own K is a setting of the project, not of its scheme)."""
    stored = project_scheme(project)
    criteria = [_criterion_now(project, row) for row in project.criteria.order_by("position", "pk")]
    wordings: dict[str, dict] = {}
    for language in FILE_LANGUAGES.values():
        entry = {}
        base = stored.wordings.get(language, {})
        guidelines = guidelines_text(project, language)
        if _worded(guidelines, project.guidelines, base.get("guidelines")):
            entry["guidelines"] = guidelines
        for name in ("label", "k_reason"):
            if base.get(name):
                entry[name] = base[name]
        if entry:
            wordings[language] = entry
    return replace(
        stored,
        guidelines=project.guidelines,
        criteria=criteria,
        merges={c.key: c.merges for c in criteria if c.merges},
        aspects={c.key: c.aspect for c in criteria if c.aspect},
        wordings=wordings,
    )


def scheme_export(*, project: Project) -> dict:
    """The document of the project's scheme as it is today (``manage.py export_scheme``, the scheme page)."""
    return scheme_document(scheme_current(project))


def _answered(project: Project) -> set[int]:
    """The ids of the project's criteria that have stored answers of any kind."""
    criteria = project.criteria.all()
    answered: set[int] = set()
    for related in ("judgements", "gold_counts", "expected_answers", "adjudications", "judge_labels"):
        answered |= set(criteria.filter(**{f"{related}__isnull": False}).values_list("pk", flat=True))
    return answered


def _scale(c) -> list[tuple[str, str]]:
    return [(v["value"], v.get("speaker", "")) for v in c.values]


def _na(c) -> str | None:
    return c.not_applicable["value"] if c.not_applicable else None


def scheme_change_problems(project: Project, scheme: Scheme) -> list[str]:
    """Why ``scheme`` may not replace the project's scheme now (empty: it may)."""
    rows = {row.key: row for row in project.criteria.all()}
    answered = _answered(project)
    problems = []
    new = {c.key: c for c in scheme.criteria}
    for key, row in rows.items():
        if row.pk not in answered:
            continue
        if key not in new:
            problems.append(gettext("criterion %(key)s has answers: it cannot be removed") % {"key": key})
            continue
        c = new[key]
        changed = [name for name in MEANING if str(getattr(c, name) or "") != str(getattr(row, name) or "")]
        if _scale(c) != _scale(row):
            changed.append("values")
        if _na(row) is not None and _na(c) != _na(row):
            changed.append("not_applicable")
        for name in changed:
            problems.append(
                gettext("criterion %(key)s has answers: its %(field)s cannot change") % {"key": key, "field": name}
            )
    if answered:
        stored = project_scheme(project)
        for name in SCHEME_MEANING:
            if (getattr(scheme, name) is None) != (getattr(stored, name) is None) or (
                isinstance(getattr(stored, name), (bool, str)) and getattr(scheme, name) != getattr(stored, name)
            ):
                problems.append(
                    gettext("the project has answers: the scheme's %(field)s cannot change") % {"field": name}
                )
    return problems


@transaction.atomic
def scheme_change(*, project: Project, scheme: Scheme) -> Project:
    """Make ``scheme`` the project's scheme: its criteria (kept rows updated in place, so that their answers stay
    theirs; new ones added; unanswered ones dropped), guidelines and wording. ``SchemeChangeRefused`` (nothing
    changed) when it would reinterpret stored answers (the module's docstring says what may change)."""
    project = Project.objects.select_for_update().get(pk=project.pk)
    problems = scheme_change_problems(project, scheme)
    if problems:
        raise SchemeChangeRefused("; ".join(problems))
    rows = {row.key: row for row in project.criteria.all()}
    fresh = {row.key: row for row in criterion_rows(project, scheme)}
    fields = ("label", "question", "unit", "values", "level", "speaker", "applies_to", "not_applicable", "position")
    kept = []
    for key, row in fresh.items():
        if key in rows:
            for name in fields:
                setattr(rows[key], name, getattr(row, name))
            kept.append(rows[key])
    Criterion.objects.filter(project=project).exclude(key__in=list(fresh)).delete()
    Criterion.objects.bulk_update(kept, fields)
    Criterion.objects.bulk_create([row for key, row in fresh.items() if key not in rows])
    project.scheme = scheme_document(scheme)
    project.guidelines = scheme.guidelines
    project.wordings = {}  # the lead's own wording is the scheme's now (scheme_current put it there)
    project.scheme_version += 1
    project.save(update_fields=["scheme", "guidelines", "wordings", "scheme_version"])
    return project


def _changed(project: Project, change) -> Project:
    """``change`` applied to the document of the project's scheme as it is today, then made its scheme (the
    document is read as a scheme file is: ``InputError`` naming the field when the change makes it invalid)."""
    document = scheme_export(project=project)
    change(document)
    return scheme_change(project=project, scheme=scheme_from_document(document, display="scheme"))


def scheme_criterion_save(*, project: Project, criterion: dict, replacing: str | None = None) -> Project:
    """Save one criterion (its document, as a scheme file holds it): replacing the criterion ``replacing`` in its
    place, or added after the others."""

    def change(document):
        keys = [c["key"] for c in document["criteria"]]
        if replacing is None:
            document["criteria"].append(criterion)
        else:
            document["criteria"][keys.index(replacing)] = criterion

    return _changed(project, change)


def scheme_criterion_move(*, project: Project, key: str, offset: int) -> Project:
    """Move a criterion ``offset`` places (-1: up, 1: down) in the order the page asks them."""

    def change(document):
        criteria = document["criteria"]
        i = [c["key"] for c in criteria].index(key)
        j = min(max(i + offset, 0), len(criteria) - 1)
        criteria.insert(j, criteria.pop(i))

    return _changed(project, change)


def scheme_criterion_remove(*, project: Project, key: str) -> Project:
    """Remove a criterion (refused while it has answers)."""
    return _changed(project, lambda d: d.update(criteria=[c for c in d["criteria"] if c["key"] != key]))


def scheme_file_apply(*, project: Project, raw: bytes, name: str) -> Project:
    """Make an uploaded scheme file the project's scheme (``InputError`` naming the file and the field)."""
    return scheme_change(project=project, scheme=scheme_read(raw, name))
