"""A real SMTP server process on loopback for the tests that send mail: ``aiosmtpd`` (``python -m aiosmtpd``) with its
``Mailbox`` handler, which stores every message it receives in a Maildir the test reads."""

from __future__ import annotations

import contextlib
import mailbox
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import Message
from pathlib import Path

from tests.waiting import wait_for


@dataclass
class MailServer:
    port: int
    maildir: Path
    process: subprocess.Popen

    @property
    def settings(self) -> dict[str, str]:
        """The environment a server process sends through this one with."""
        return {
            "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(self.port),
            "DEFAULT_FROM_EMAIL": "judgements@example.org",
        }

    def messages(self) -> list[Message]:
        return list(mailbox.Maildir(self.maildir, create=False))

    def message_to(self, address: str, count: int = 1) -> Message:
        """The ``count``-th message received for ``address`` (waiting for it)."""

        def received():
            return len([m for m in self.messages() if address.lower() in m["To"].lower()]) >= count

        assert wait_for(received, timeout=60), (
            f"no message #{count} for {address}: {[m['To'] for m in self.messages()]}"
        )
        return [m for m in self.messages() if address.lower() in m["To"].lower()][count - 1]


def body(message: Message) -> str:
    payload = message.get_payload(decode=True)
    return payload.decode(message.get_content_charset() or "utf-8")


def link_in(message: Message) -> str:
    return re.search(r"https?://\S+", body(message)).group(0)


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


@contextlib.contextmanager
def smtp_server(tmp_path: Path) -> Iterator[MailServer]:
    """``python -m aiosmtpd -n -l 127.0.0.1:PORT -c aiosmtpd.handlers.Mailbox DIR``, stopped by its pid at the end."""
    from services import free_port  # scripts/services.py

    port, maildir = free_port(), tmp_path / "maildir"
    log = open(tmp_path / "smtp.log", "w")  # noqa: SIM115 - closed below
    process = subprocess.Popen(
        [sys.executable, "-m", "aiosmtpd", "-n", "-l", f"127.0.0.1:{port}", "-c", "aiosmtpd.handlers.Mailbox",
         str(maildir)],
        stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        assert wait_for(lambda: _listening(port) or process.poll() is not None, timeout=30)
        assert process.poll() is None, (tmp_path / "smtp.log").read_text()
        yield MailServer(port, maildir, process)
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()
