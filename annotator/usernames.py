"""Usernames no one may be given by a page, an import or a restore: the names people trust as the instance's own.

The one list of them (``RESERVED_USERNAMES``), matched without case and without the separators people add
(``No-Reply``, ``no_reply`` and ``noreply`` are one name). The members page refuses them for new accounts and a
project archive's restore never creates an account under one (``evaluation.archive.people``); an operator can
still make such an account on purpose (``manage.py createsuperuser``, the admin).
"""

from __future__ import annotations

import re

RESERVED_USERNAMES = frozenset(
    {
        "abuse",
        "admin",
        "administrator",
        "anonymous",
        "api",
        "billing",
        "contact",
        "daemon",
        "dialeval",
        "ftp",
        "guest",
        "help",
        "helpdesk",
        "hostmaster",
        "info",
        "lead",
        "legal",
        "mail",
        "mailerdaemon",
        "moderator",
        "nobody",
        "noreply",
        "null",
        "operator",
        "owner",
        "postmaster",
        "privacy",
        "root",
        "security",
        "service",
        "staff",
        "superuser",
        "support",
        "sysadmin",
        "system",
        "team",
        "webmaster",
        "www",
    }
)


def username_reserved(username: str) -> bool:
    """Whether ``username`` is one of ``RESERVED_USERNAMES``, ignoring case and the separators ``- _ . @ +``.

    >>> username_reserved("Administrator"), username_reserved("no_reply"), username_reserved("ann1")
    (True, True, False)
    """
    return re.sub(r"[-_.@+\s]", "", username).casefold() in RESERVED_USERNAMES
