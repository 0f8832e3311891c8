"""A project's full archive: the study of record, for backup and for moving a project to another instance.

The community formats (``annotator.exporters``) keep what the research needs; the archive keeps every table
that holds the project's state (``coverage`` lists them, and why the rest is left out): the project with its
criteria, guidelines and wording, the members (by username) with their roles, every dialogue and post with the
source metadata and import batch, every assignment with its times, status, queue position and version, every
judgement (submitted or draft) with its time and revision, the reorderings, the published gold counts, the runs
with their files and scores, the quality settings, control and training items, qualifications, exclusions and
adjudications, the comparison and adaptive-budget settings, the studies with their participants, the judges
with their labels, the webhooks (without their secrets) and the import history. Derived figures (statistics,
live counts, caches) are not kept: they are rebuilt from what is.

The archive is a zip holding one ``archive.json``. Nothing refers to a database id: dialogues by their external
id, people by username, criteria by key, runs and judges by name, assignments and batches by their place in the
archive. Its ``version`` says which parts it has; every earlier version is read too (``READABLE_VERSIONS``).

- ``export``: the archive of a project (reads only: the selector side);
- ``reader``: an archive's document out of its zip, its format and version checked;
- ``restore``: a new project from an archive, every value checked before anything is written (the service
  side), the people mapped by one rule (``people``);
- ``parts``: the settings and history, each part's writing and restoring in one module; ``fields``: a model's
  plain fields in the archive and back, each checked as its column takes it; ``coverage``: what is kept.
"""

ARCHIVE_FORMAT = "dialeval-project-archive"
ARCHIVE_VERSION = 2
READABLE_VERSIONS = (1, 2)  # 1: the dialogues, people, judgements and runs, without the settings and history
ARCHIVE_MEMBER = "archive.json"
