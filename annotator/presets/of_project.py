"""The one place a project's scheme is asked what it does (its criteria's capabilities, run scheme, summaries...)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from annotator.presets.catalogue import PRESETS
from annotator.presets.spec import PresetSpec

if TYPE_CHECKING:
    from annotator.models import Project


def project_scheme(project: Project) -> PresetSpec:
    """The scheme ``project`` follows: every page, service, command and API endpoint asks it, never the key."""
    return PRESETS[project.preset]
