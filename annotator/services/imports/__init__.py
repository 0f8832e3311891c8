"""Importing collections into a project, all or nothing.

- ``dialogues``: the import itself (``dialogues_import``: check every dialogue, then write them in one
  transaction) and an uploaded file's import
- ``batch_writer``: the checks against the project and the writes of a batch of dialogues
- ``copy_rows``: the bulk inserts (PostgreSQL's COPY)
- ``annotators``: accounts and memberships of imported annotators (known only by a name)
- ``progress``: the counts reported while an import runs
- ``uploads``: the size limit of uploaded files

Import batches (an uploaded file imported by a worker, listed and removable) are
``annotator.services.import_batches``.
"""

from annotator.services.imports.dialogues import ImportReport, dialogues_import, dialogues_import_upload
from annotator.services.imports.progress import ImportProgress
from annotator.services.imports.uploads import upload_check_size

__all__ = ["ImportProgress", "ImportReport", "dialogues_import", "dialogues_import_upload", "upload_check_size"]
