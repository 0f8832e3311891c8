"""Reading and validating system runs, one module per format.

- ``stc3``: the STC-3/DialEval submission (one JSON list of dialogues with quality and nugget estimates);
- ``dbdc``: DBDC ``<dialogue-id>.labels.json`` files (a breakdown label and distribution per system turn);
- ``distribution``: the one rule for a distribution in any run file (it sums to 1 within
  ``PROBABILITY_TOLERANCE``);
- ``dbdc_gold``: the gold counts of DBDC ``*.log.json`` files, as the DBDC3 evaluation script reads them.

Readers check every value against the gold data they are given (the ids, the turns, the label sets)
through ``scoring.input`` and raise ``InputError`` naming the file, the dialogue id and the field.
"""

from scoring.run_files.dbdc import DBDC_LABELS, DBDCRun, read_dbdc_run
from scoring.run_files.dbdc_gold import DBDCGold, read_dbdc_gold
from scoring.run_files.distribution import PROBABILITY_TOLERANCE, sums_to_one
from scoring.run_files.stc3 import NuggetRows, STC3Run, read_stc3_run

__all__ = [
    "DBDC_LABELS",
    "PROBABILITY_TOLERANCE",
    "DBDCGold",
    "DBDCRun",
    "NuggetRows",
    "STC3Run",
    "read_dbdc_gold",
    "read_dbdc_run",
    "read_stc3_run",
    "sums_to_one",
]
