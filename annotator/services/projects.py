"""Creating projects from presets or scheme files, and managing their members."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotator.models import K_MAX, K_MIN, AnnotatorsAre, Criterion, Membership, Project, Role
from annotator.presets import CUSTOM, PRESETS, Scheme
from annotator.presets.document import scheme_document
from annotator.wording import WORDING_LANGUAGES


@transaction.atomic
def project_create(
    *,
    slug: str,
    preset: str | None = None,
    scheme: Scheme | None = None,
    name: str | None = None,
    annotators_per_dialogue: int | None = None,
    guidelines: str | None = None,
) -> Project:
    """A project following ``scheme`` (or the preset named ``preset``): its criteria, scales and default
    guidelines and K, with the scheme's document kept with the project (``Project.scheme``)."""
    if (preset is None) == (scheme is None):
        raise ValueError("give either a preset or a scheme")
    if scheme is None:
        if preset not in PRESETS:
            raise ValueError(f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
        scheme = PRESETS[preset]
    if Project.objects.filter(slug=slug).exists():
        raise ValueError(f"a project with slug {slug!r} already exists")
    k = scheme.annotators_per_dialogue if annotators_per_dialogue is None else annotators_per_dialogue
    annotators_per_dialogue_check(k)
    document = scheme_document(scheme)
    origin = scheme.key if scheme.key in PRESETS and document == scheme_document(PRESETS[scheme.key]) else CUSTOM
    project = Project.objects.create(
        slug=slug,
        preset=origin,
        scheme=document,
        name=name or slug,
        annotators_per_dialogue=k,
        guidelines=scheme.guidelines if guidelines is None else guidelines,
    )
    Criterion.objects.bulk_create(criterion_rows(project, scheme))
    return project


def criterion_rows(project: Project, scheme: Scheme) -> list[Criterion]:
    """The scheme's criteria as the project's rows (not saved), in the scheme's order."""
    return [
        Criterion(
            project=project,
            key=c.key,
            label=c.label,
            question=c.question,
            unit=c.unit,
            values=list(c.values),
            level=c.level,
            speaker=c.speaker,
            applies_to=c.applies_to,
            not_applicable=dict(c.not_applicable) if c.not_applicable else None,
            position=i,
        )
        for i, c in enumerate(scheme.criteria)
    ]


def annotators_per_dialogue_check(k: int) -> None:
    """K must be between ``K_MIN`` and ``K_MAX`` (the forms of both pages use the same bounds)."""
    if not K_MIN <= k <= K_MAX:
        raise ValueError(f"annotators per dialogue (K) must be between {K_MIN} and {K_MAX}, got {k}")


def project_settings_update(
    *, project: Project, guidelines: str, annotators_per_dialogue: int, annotators_are: str | None = None
) -> Project:
    """Save the guidelines, K (checked as on creation) and, when given, who annotated (``AnnotatorsAre``)."""
    annotators_per_dialogue_check(annotators_per_dialogue)
    project.guidelines = guidelines
    project.annotators_per_dialogue = annotators_per_dialogue
    fields = ["guidelines", "annotators_per_dialogue"]
    if annotators_are is not None:
        if annotators_are not in AnnotatorsAre.values:
            raise ValueError(f"who annotated must be one of {', '.join(map(repr, AnnotatorsAre.values))}")
        project.annotators_are = annotators_are
        fields.append("annotators_are")
    project.save(update_fields=fields)
    return project


@transaction.atomic
def project_create_led(
    *,
    lead: AbstractBaseUser,
    slug: str,
    preset: str | None = None,
    scheme: Scheme | None = None,
    name: str | None = None,
    annotators_per_dialogue: int | None = None,
) -> Project:
    """``project_create``, with ``lead`` as the new project's first lead."""
    project = project_create(
        slug=slug, preset=preset, scheme=scheme, name=name, annotators_per_dialogue=annotators_per_dialogue
    )
    membership_add(project=project, user=lead, role=Role.LEAD)
    return project


def membership_add(*, project: Project, user: AbstractBaseUser, role: str) -> Membership:
    """Add ``user`` to ``project`` with ``role`` (or change their role); returns the membership."""
    if role not in Role.values:
        raise ValueError(f"unknown role {role!r}; choose one of {', '.join(Role.values)}")
    membership, _created = Membership.objects.update_or_create(
        project=project, user=user, defaults={"role": role, "active": True}
    )
    return membership


def membership_remove(*, project: Project, user_id: int) -> int:
    """Deactivate a member (their submitted work stays; ``assign`` hands their unfinished work to others)."""
    return Membership.objects.filter(project=project, user_id=user_id).update(active=False)


def project_wording_save(*, project: Project, language: str, guidelines: str, questions: dict[str, str]) -> Project:
    """The lead's wording of the project's guidelines and questions in ``language`` (``annotator.wording``).

    Empty texts are dropped, so that the page falls back to the preset's translation, then to English;
    questions of criteria the project does not have are refused.
    """
    if language not in WORDING_LANGUAGES:
        raise ValueError(f"no wording language {language!r}; choose one of {', '.join(WORDING_LANGUAGES)}")
    keys = set(project.criteria.values_list("key", flat=True))
    unknown = sorted(set(questions) - keys)
    if unknown:
        raise ValueError(f"unknown criteria: {', '.join(unknown)}")
    entry = {"guidelines": guidelines.strip(), "questions": {k: v.strip() for k, v in questions.items() if v.strip()}}
    wordings = dict(project.wordings or {})
    if entry["guidelines"] or entry["questions"]:
        wordings[language] = entry
    else:
        wordings.pop(language, None)
    project.wordings = wordings
    project.save(update_fields=["wordings"])
    return project
