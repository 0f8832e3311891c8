"""Saves sent to the WSGI application in this process, as ``bench/api_load.py`` sends them over HTTP.

Shared by ``bench/save_profile.py`` and ``bench/scale_stc3.py`` (``--only saves``): each item gets three
saves (a partial draft, a complete draft, the submission) with the annotator's token, through
``config.wsgi.application`` (the middleware, DRF, the validation and the save, without the network
and gunicorn).
"""

from __future__ import annotations

import io
import json
import sys
from wsgiref.util import setup_testing_defaults


def stc3_save_requests(items: list[tuple[int, tuple[str, ...]]]) -> list[tuple[int, bytes]]:
    """(assignment id, body) of each item's three saves; ``items`` gives each item's turn speakers."""
    requests = []
    for assignment_id, senders in items:
        nuggets = [("CNUG" if s == "customer" else "HNUG") for s in senders]
        judgements = [{"criterion": k, "unit": 0, "value": "1"} for k in "ASE"]
        judgements += [{"criterion": "nugget", "unit": t, "value": v} for t, v in enumerate(nuggets)]
        for phase in range(3):
            body = {"judgements": judgements if phase else judgements[:2], "submit": phase == 2, "seconds": 3}
            requests.append((assignment_id, json.dumps(body).encode()))
    return requests


def send(application, assignment_id: int, payload: bytes, token: str) -> None:
    """POST one save to ``application``; exits saying why when it is refused."""
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": f"/api/assignments/{assignment_id}/judgements/",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_AUTHORIZATION": f"Token {token}",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(payload)),
        "wsgi.input": io.BytesIO(payload),
    }
    setup_testing_defaults(environ)  # the rest of a request's environment as a WSGI server gives it
    status = []
    body = b"".join(application(environ, lambda line, headers, *rest: status.append(line)))
    if not status[0].startswith("200"):
        sys.exit(f"save refused: {status[0]} {body[:300]!r}")
