"""Template context shared by every page: the status enums, so templates compare with
``AssignmentStatus.SUBMITTED`` rather than a string literal (Django's choices are never called in templates)."""

from annotator.models import AssignmentStatus, ImportStatus


def statuses(request) -> dict:
    """``AssignmentStatus`` and ``ImportStatus`` for every template.

    >>> statuses(None)["AssignmentStatus"].SUBMITTED == "submitted"
    True
    """
    return {"AssignmentStatus": AssignmentStatus, "ImportStatus": ImportStatus}
