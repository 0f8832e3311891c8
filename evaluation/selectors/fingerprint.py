"""The judgements' fingerprint: a digest that changes whenever what the statistics and the gold count changes.

Its own module (a read, with no numeric imports) so that scoring a run, which checks the gold cache
against it, loads nothing of the statistics.
"""

from __future__ import annotations

import hashlib

from django.db.models import Count, Max, Sum

import scoring
from annotator.models import GoldCount, ImportBatch, ImportStatus, Project, QualitySettings
from annotator.selectors.population import gold_assignments, population_digest, population_of
from evaluation.models import StatisticsJob


def judgements_fingerprint(project: Project) -> str:
    """A digest that changes whenever the judgements that count change, or whose count (exclusions, the source
    filter, control and training items, adjudications, published counts, the flags' thresholds).

    Read from the submitted assignments, not the judgements (a seventh of the rows on STC-3, where each item
    holds seven judgements): every write of an item's judgements goes through ``judgements_save``, which bumps
    the item's ``version`` (a submission, a reopening and a draft of a reopened item alike), an import or an
    archive adds assignments, a removed batch deletes them, and an edit in the admin bumps the version too
    (``annotator.admin``). The count, the sum and the largest of the ids, the sum of the versions and the
    latest submission time together change with any of these.
    """
    population = population_of(project)
    agg = gold_assignments(project, population).aggregate(
        n=Count("pk"), ids=Sum("pk"), last_id=Max("pk"), versions=Sum("version"), last=Max("submitted_at")
    )
    gold = GoldCount.objects.filter(dialogue__project=project).aggregate(n=Count("pk"), last_id=Max("pk"))
    # the lead's thresholds of the reliability flags count too: changing one recomputes the flags
    thresholds = (
        QualitySettings.objects.filter(project=project).values_list("too_fast_seconds", "control_accuracy_flag").first()
    )
    text = (
        f"{agg['n']}|{agg['ids']}|{agg['last_id']}|{agg['versions']}|{agg['last']}|{gold['n']}|{gold['last_id']}|"
        f"{population_digest(project, population)}|{thresholds}|{scoring.__version__}"
    )
    return hashlib.sha256(text.encode()).hexdigest()


def judgements_version(project: Project) -> str:
    """A version of what the judgements count, read in constant time whatever the project's size: it changes with
    every write that changes what they count, as ``judgements_fingerprint`` does, without reading the items.

    Every such write asks for the statistics (``schedule.statistics_request``, ``changed``: a save, a reopening,
    an exclusion, a quality decision, an adjudication, a removed batch, an edit in the admin), which records its
    time as ``StatisticsJob.changed_at``; an import is a finished ``ImportBatch``. The version is those two times,
    the population (``population_digest``: exclusions, control items, adjudications, the source filter; small
    tables), the flags' thresholds and the library's version. It may change when the fingerprint does not (a save
    that stores the same answers): what is compared with it is then computed again, never wrongly kept. The
    lead's stored results (``lead_jobs``) are compared with it, so that a page asking for one reads a few rows.
    """
    changed = StatisticsJob.objects.filter(project=project).values_list("changed_at", flat=True).first()
    imported = ImportBatch.objects.filter(project=project, status=ImportStatus.DONE).aggregate(last=Max("finished_at"))
    thresholds = (
        QualitySettings.objects.filter(project=project).values_list("too_fast_seconds", "control_accuracy_flag").first()
    )
    text = f"{changed}|{imported['last']}|{population_digest(project)}|{thresholds}|{scoring.__version__}"
    return hashlib.sha256(text.encode()).hexdigest()
