"""The archive's parts beyond the dialogues and judgements, each written and restored by one module.

Each module has ``export(names)`` (the document's keys it writes, reading only) and ``restore(restoring)``
(its rows written from the document, every value checked first): ``settings`` (the one-row settings: quality,
comparisons, adaptive budget), ``batches`` (import history), ``quality`` (control and training items,
qualifications, exclusions, adjudications), ``studies`` (with participants and released items), ``judges``
(with their labels) and ``webhooks``. ``evaluation.archive.coverage`` says which model each part holds.
"""
