"""The one place a project's scheme is asked what it does (its criteria's capabilities, run scheme, summaries...)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from annotator.presets.catalogue import PRESETS
from annotator.presets.document import stored_scheme
from annotator.presets.spec import Scheme

if TYPE_CHECKING:
    from annotator.models import Project


def project_scheme(project: Project) -> Scheme:
    """The scheme ``project`` follows, from the document it keeps (``Project.scheme``): every page, service,
    command and API endpoint asks it, never the preset's key.

    A project row made without a document (by hand, in a test) follows its preset's shipped file.
    """
    if project.scheme:
        return stored_scheme(project.scheme)
    return PRESETS[project.preset]
