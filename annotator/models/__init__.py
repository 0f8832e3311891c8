"""The annotator app's models, one module per part of the domain; every model is re-exported here.

- ``projects``: projects, members and roles, account settings, criteria
- ``dialogues``: dialogues and their posts
- ``judgements``: assignments, judgements, reorderings, cached gold counts
- ``imports``: import batches
- ``invitations``: invitations by email
- ``annotator.studies.models``: crowdsourced studies, participants, released items (the feature's own folder)
- ``quality``: quality-control settings, control items, qualification, exclusions, adjudication
- ``annotator.pairwise.models``: comparison items' candidate responses and the comparison settings (the
  feature's own folder)
- ``webhooks``: webhooks of a project and the log of their deliveries
- ``adaptive``: the adaptive-budget settings (fixed K or min/max K, a total budget and a stop rule)
- ``annotator.judges.models``: automatic raters of a project, their labels (never judgements) and the endpoint
  answers' cache (the feature's own folder)
- ``jobs``: every piece of background work sent to the workers, its state, deadline, progress and result

The judgements table is the reliability data every statistic reads: one row is one value given by
one annotator (through an assignment) for one criterion on one unit of a dialogue. A unit is
addressed by an integer whose meaning the criterion's unit fixes: 0 for the dialogue itself, the
post's position for post/system-turn/reply units, the utterance block's index for turn units.
"""

from annotator.handout.models import (
    DELTA_MAX,
    DELTA_MIN,
    GOLD_DISTRIBUTION,
    GOLD_LABEL,
    AdaptiveBudget,
    StopRuleKind,
)
from annotator.judges.models import EndpointAnswer, Judge, JudgeKind, JudgeLabel, JudgeStatus
from annotator.models.dialogues import Dialogue, Post
from annotator.models.imports import ImportBatch, ImportStatus
from annotator.models.invitations import Invitation
from annotator.models.jobs import Job, JobEnd, JobState
from annotator.models.judgements import Assignment, AssignmentStatus, GoldCount, Judgement, Reordering
from annotator.models.projects import (
    K_MAX,
    K_MIN,
    AccountSettings,
    AnnotatorsAre,
    AppliesTo,
    Criterion,
    Level,
    Membership,
    Project,
    Role,
    Unit,
)
from annotator.models.quality import (
    QUALITY_BOUNDS,
    Adjudication,
    AnnotatorExclusion,
    ExpectedAnswer,
    Qualification,
    QualityItem,
    QualityItemKind,
    QualitySettings,
    SourceFilter,
)
from annotator.models.webhooks import DeliveryStatus, Webhook, WebhookDelivery, WebhookEvent
from annotator.pairwise.models import Candidate, PairwiseSettings
from annotator.studies.models import Participant, ReleasedItem, Study

__all__ = [
    "DELTA_MAX",
    "DELTA_MIN",
    "GOLD_DISTRIBUTION",
    "GOLD_LABEL",
    "K_MAX",
    "K_MIN",
    "QUALITY_BOUNDS",
    "AccountSettings",
    "AdaptiveBudget",
    "Adjudication",
    "AnnotatorExclusion",
    "AnnotatorsAre",
    "AppliesTo",
    "Assignment",
    "AssignmentStatus",
    "Candidate",
    "Criterion",
    "DeliveryStatus",
    "Dialogue",
    "EndpointAnswer",
    "ExpectedAnswer",
    "GoldCount",
    "ImportBatch",
    "ImportStatus",
    "Invitation",
    "Job",
    "JobEnd",
    "JobState",
    "Judge",
    "JudgeKind",
    "JudgeLabel",
    "JudgeStatus",
    "Judgement",
    "Level",
    "Membership",
    "PairwiseSettings",
    "Participant",
    "Post",
    "Project",
    "Qualification",
    "QualityItem",
    "QualityItemKind",
    "QualitySettings",
    "ReleasedItem",
    "Reordering",
    "Role",
    "SourceFilter",
    "StopRuleKind",
    "Study",
    "Unit",
    "Webhook",
    "WebhookDelivery",
    "WebhookEvent",
]
