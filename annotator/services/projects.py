"""Creating projects from presets and managing their members."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotator.models import K_MAX, K_MIN, AnnotatorsAre, Criterion, Membership, Project, Role
from annotator.presets import PRESETS
from annotator.wording import WORDING_LANGUAGES


@transaction.atomic
def project_create(
    *,
    slug: str,
    preset: str,
    name: str | None = None,
    annotators_per_dialogue: int | None = None,
    guidelines: str | None = None,
) -> Project:
    """A project with the preset's criteria, scales and default guidelines."""
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
    if Project.objects.filter(slug=slug).exists():
        raise ValueError(f"a project with slug {slug!r} already exists")
    spec = PRESETS[preset]
    k = spec.annotators_per_dialogue if annotators_per_dialogue is None else annotators_per_dialogue
    annotators_per_dialogue_check(k)
    project = Project.objects.create(
        slug=slug,
        preset=preset,
        name=name or slug,
        annotators_per_dialogue=k,
        guidelines=spec.guidelines if guidelines is None else guidelines,
    )
    Criterion.objects.bulk_create(
        Criterion(
            project=project,
            key=c.key,
            label=c.label,
            question=c.question,
            unit=c.unit,
            values=c.values,
            level=c.level,
            speaker=c.speaker,
            position=i,
        )
        for i, c in enumerate(spec.criteria)
    )
    return project


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
    preset: str,
    name: str | None = None,
    annotators_per_dialogue: int | None = None,
) -> Project:
    """``project_create``, with ``lead`` as the new project's first lead."""
    project = project_create(slug=slug, preset=preset, name=name, annotators_per_dialogue=annotators_per_dialogue)
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
