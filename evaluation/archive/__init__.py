"""A project's full archive, for backup and for moving it to another instance.

The community formats (``annotator.exporters``) keep what the research needs; the archive keeps
everything a team would lose without it: the project and its criteria and guidelines, the members
(by username) with their roles, every dialogue and post with the source metadata, every assignment
with its times, status and queue position, every judgement (submitted or draft) with its time, the
reorderings, the published gold counts, and the runs with their scores (and, for a run not scored
yet, its uploaded files). Derived statistics are not kept: they are recomputed on the first visit
of the dashboard.

The archive is a zip holding one ``archive.json``. Nothing refers to a database id: dialogues by
their external id, people by username, criteria by key, assignments by their position in the archive.

- ``export``: the archive of a project (reads only: the selector side);
- ``reader``: an archive's document out of its zip, its format and version checked;
- ``restore``: a new project from an archive, every value checked before anything is written (the
  service side).
"""

ARCHIVE_FORMAT = "dialeval-project-archive"
ARCHIVE_VERSION = 1
ARCHIVE_MEMBER = "archive.json"
