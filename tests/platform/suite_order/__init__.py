"""Test files that tests/platform/test_suite_order.py runs in pytest-xdist's two processes. Each line of the file
``SUITE_ORDER_LOG`` names the process and what ran there, in the order it ran."""

import os
from pathlib import Path


def record(event: str) -> None:
    with Path(os.environ["SUITE_ORDER_LOG"]).open("a") as log:
        log.write(f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')} {event}\n")
