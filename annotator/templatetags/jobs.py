"""What happened to a job, in the page's language: ``{{ job|job_outcome }}`` for a job, ``{{ text|job_message }}``
for a subject's error that a job's end wrote (``annotator.services.jobs.JOB_END_MESSAGES``, stored in English)."""

from django import template
from django.utils.translation import gettext

from annotator.models import JobEnd
from annotator.services.jobs import JOB_END_MESSAGES

register = template.Library()
_KNOWN = frozenset(JOB_END_MESSAGES.values())


@register.filter
def job_message(text: str) -> str:
    """``text`` translated when a job's end wrote it (one of the sentences the catalogues hold), else as it is."""
    text = text or ""
    if text in _KNOWN:
        return gettext(text)
    for known in _KNOWN:  # "Nothing was imported. <sentence>"
        if text.endswith(known):
            return text[: -len(known)] + gettext(known)
    return text


@register.filter
def job_outcome(job) -> str:
    """Why ``job`` ended, translated: the stop's reason, or its error as the task gave it."""
    if job.ended_by in (JobEnd.TIME_LIMIT, JobEnd.WORKER_LOST, JobEnd.UNREACHABLE):
        return gettext(JOB_END_MESSAGES[job.ended_by])
    return job.error or gettext(JOB_END_MESSAGES[JobEnd.ERROR])
