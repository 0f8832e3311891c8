"""What the project archive keeps of each model of every installed app, and why it leaves the rest out.

The archive is the study of record: every table that holds a project's state is in it, row by row, with its
references kept by what names the row in the archive (a dialogue's external id, a criterion's key, a person's
username, a run's or judge's name, a row's place in its list) instead of database ids. What it leaves out is
either not the project's (accounts, sessions, the instance's caches) or derived from what it keeps and rebuilt
after a restore (statistics, live counts, the gold cache, comparisons of runs).

``tests/evaluation/test_archive_coverage.py`` fails when a model of any app, or a field of an archived model,
is in none of these tables: a new model is archived (``ARCHIVED``, with the lookup from its rows to their
project, and the archive's part that holds it) or named in ``MODELS_LEFT_OUT`` with the reason. The round-trip
test (``tests/evaluation/test_archive_round_trip.py``) compares every archived table row by row, ids mapped,
except the fields named in ``FIELDS_LEFT_OUT`` (with the reason) and ``FIELDS_RESTORED_AS`` (kept in another
form, each checked by its own assertion).
"""

from __future__ import annotations

# model label -> the lookup from its rows to their project ("" for the project itself)
ARCHIVED: dict[str, str] = {
    "annotator.Project": "",
    "annotator.Criterion": "project",
    "annotator.Membership": "project",
    "annotator.ImportBatch": "project",
    "annotator.Dialogue": "project",
    "annotator.Post": "dialogue__project",
    "annotator.Candidate": "dialogue__project",
    "annotator.Assignment": "dialogue__project",
    "annotator.Judgement": "assignment__dialogue__project",
    "annotator.Reordering": "assignment__dialogue__project",
    "annotator.GoldCount": "dialogue__project",
    "annotator.QualitySettings": "project",
    "annotator.PairwiseSettings": "project",
    "annotator.AdaptiveBudget": "project",
    "annotator.QualityItem": "dialogue__project",
    "annotator.ExpectedAnswer": "item__dialogue__project",
    "annotator.Qualification": "project",
    "annotator.AnnotatorExclusion": "project",
    "annotator.Adjudication": "dialogue__project",
    "annotator.Study": "project",
    "annotator.Participant": "study__project",
    "annotator.ReleasedItem": "participant__study__project",
    "annotator.Judge": "project",
    "annotator.JudgeLabel": "judge__project",
    "annotator.Webhook": "project",
    "scoring.Run": "project",
}

# model label -> why the archive leaves it out
MODELS_LEFT_OUT: dict[str, str] = {
    # accounts and the instance's own tables: not a project's
    "auth.User": "accounts are the instance's: the archive names people by username (members, assignments, "
    "exclusions...) and a restore maps the names to accounts by its own rule (evaluation.archive.people)",
    "auth.Group": "the instance's permission groups, not a project's",
    "auth.Group_permissions": "the instance's permission groups, not a project's",
    "auth.Permission": "the instance's permissions, made by its migrations",
    "auth.User_groups": "the instance's permission groups, not a project's",
    "auth.User_user_permissions": "the instance's permissions, not a project's",
    "contenttypes.ContentType": "made by the instance's migrations",
    "sessions.Session": "sign-ins to this instance",
    "admin.LogEntry": "the instance's admin history",
    "authtoken.Token": "API credentials: never leave the instance",
    "annotator.Job": "the instance's record of its workers' jobs and their results (reports, exports), each "
    "computed again from the restored judgements on the next ask",
    "authtoken.TokenProxy": "API credentials: never leave the instance",
    "axes.AccessAttempt": "the instance's sign-in throttling",
    "axes.AccessAttemptExpiration": "the instance's sign-in throttling",
    "axes.AccessFailureLog": "the instance's sign-in throttling",
    "axes.AccessLog": "the instance's sign-in log",
    "annotator.AccountSettings": "an account's own choices (findable by leads, language), not a project's",
    "annotator.EndpointAnswer": "a cache of endpoint answers shared by every project (keyed by the prompt): "
    "an endpoint judge run again fills it",
    "annotator.Invitation": "one-time links signed by this instance's secret key for this row: a restored "
    "project invites again",
    "annotator.WebhookDelivery": "the log of requests this instance sent: a restored project must never send "
    "them again, and their bodies are the events of the original instance",
    # derived from the archived tables, rebuilt after a restore
    "scoring.ProjectStatistics": "derived: recomputed from the judgements on the first visit of the dashboard",
    "scoring.GoldCache": "derived: a cache of the gold counts, rebuilt when a run is scored",
    "scoring.ModelReliability": "derived: the latent-truth models are estimated again",
    "scoring.RunComparison": "derived: recomputed from the runs' scores",
    "scoring.StatisticsJob": "the state of this instance's background job, not of the study",
    "scoring.LiveState": "derived: the live running figures are rebuilt from the judgements",
    "scoring.LiveUnitCounts": "derived: the live running figures are rebuilt from the judgements",
    "scoring.LiveAgreementTerm": "derived: the live running figures are rebuilt from the judgements",
    "scoring.LiveAnnotatorCount": "derived: the live running figures are rebuilt from the judgements",
    "scoring.LiveTouchedDialogue": "derived: a note kept while a rebuild of the live figures runs",
}

# model label -> {field: why the archive leaves it out}; every archived model's id is left out (ids are mapped)
FIELDS_LEFT_OUT: dict[str, dict[str, str]] = {
    "annotator.ImportBatch": {
        "source": "the uploaded file, kept only until it is imported; a batch that had not finished is restored "
        "as refused, to be uploaded again",
    },
    "annotator.Webhook": {
        "secret": "shared with the receiver: never leaves the instance; a restored webhook gets a new secret "
        "and is restored inactive",
    },
    "annotator.ReleasedItem": {
        "assignment_number": "the released assignment's id on the archived instance: late saves to it cannot "
        "reach a restored project",
    },
    "scoring.Run": {
        "queued_at": "when this instance handed the run to its workers; a restored run waiting to be scored is "
        "handed to the restored instance's workers",
    },
}

# model label -> {field: how the archive keeps it}; checked one by one by the round-trip test
FIELDS_RESTORED_AS: dict[str, dict[str, str]] = {
    "annotator.Assignment": {
        "removed": "the answers a save removed, by criterion key and unit (the database keys them by criterion id)",
    },
    "annotator.Judge": {
        "source": "where the labels came from; a registered run by its name (the database also holds its id)",
    },
    "annotator.Webhook": {
        "active": "restored switched off: its receiver checks signatures with a secret the restore cannot give",
    },
    "scoring.Run": {
        "gold_fingerprint": "whether the scores were computed against the gold the archive holds (the fingerprint "
        "digests database ids): a run current when archived is current after the restore, a stale one is "
        "scored again",
    },
}
