"""The alternative annotator test's margin epsilon, from who annotated (Calderon, Reichart & Dror, ACL 2025,
FAQ "How do I select the epsilon value?": 0.2 for experts, 0.15 for skilled annotators, 0.1 for crowd
workers; lower where the annotators agree little).

In order: a margin given by hand (the page's field, ``?epsilon=``, ``--epsilon``); who the project says its
annotators are (``Project.annotators_are``); crowd workers when any annotator counted is a crowd study's
participant; otherwise the crowd workers' 0.1, the strictest of the three, and the report says that who
annotated is not stated.
"""

from __future__ import annotations

from annotator.models import Participant, Project
from scoring.judges.references import CROWD, EPSILON_BY_ANNOTATORS

GIVEN, PROJECT, STUDY, NOT_STATED = "given", "project", "study", "not_stated"


def alt_test_margin(*, project: Project, annotators, epsilon: float | None = None) -> dict:
    """``{"epsilon", "annotators", "source"}``: the margin, whose annotators it is for (``experts``,
    ``skilled``, ``crowd`` or None when given by hand) and where that came from (``given``, ``project``,
    ``study``, ``not_stated``). ``annotators`` are the user ids of the humans the test counts."""
    if epsilon is not None:
        return {"epsilon": float(epsilon), "annotators": None, "source": GIVEN}
    if project.annotators_are:
        return {
            "epsilon": EPSILON_BY_ANNOTATORS[project.annotators_are],
            "annotators": project.annotators_are,
            "source": PROJECT,
        }
    if Participant.objects.filter(study__project=project, user_id__in=list(annotators)).exists():
        return {"epsilon": EPSILON_BY_ANNOTATORS[CROWD], "annotators": CROWD, "source": STUDY}
    return {"epsilon": EPSILON_BY_ANNOTATORS[CROWD], "annotators": CROWD, "source": NOT_STATED}
