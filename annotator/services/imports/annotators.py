"""Imported annotators: people known to a project only by a name in what was imported.

A collection's annotator ids, and the people a restored archive names whom the import may not make
members (``annotator.services.accounts.accounts_addable``), get an account of their own that nobody
can log in to (``<project>.imported.<name>``, inactive, without a usable password) and an imported membership
that keeps the name (``source_key``): exports show their judgements under it.
"""

from __future__ import annotations

import re
import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX, UNUSABLE_PASSWORD_SUFFIX_LENGTH

from annotator.models import Membership, Project, Role
from annotator.services.imports.copy_rows import model_rows_insert


def _safe_username(text: str) -> str:
    return re.sub(r"[^\w.@+-]", "_", text)[:100]


def _unusable_password() -> str:
    """What ``make_password(None)`` makes (the prefix that marks no password, then 40 random characters), from one
    call of the system's random source instead of one a character (an import creates hundreds of accounts)."""
    return UNUSABLE_PASSWORD_PREFIX + secrets.token_hex(UNUSABLE_PASSWORD_SUFFIX_LENGTH // 2)


def _imported_usernames(*, project: Project, keys: list[str]) -> list[str]:
    """A username no account has for each of ``keys`` (``<project>.imported.<name>``, suffixed when taken)."""
    User = get_user_model()
    prefix = f"{project.slug}.imported."
    # usernames hold 150 characters: room for the suffix that tells two truncated keys apart
    wanted = {k: (prefix + _safe_username(k))[:140] for k in keys}
    taken = set(User.objects.filter(username__in=wanted.values()).values_list("username", flat=True))
    usernames = []
    for key in keys:
        username = wanted[key]
        suffix = 2
        while username in taken:
            username = f"{wanted[key]}-{suffix}"
            suffix += 1
        taken.add(username)
        usernames.append(username)
    return usernames


def imported_accounts(*, project: Project, keys: list[str]) -> list:
    """An unsaved account for each of ``keys`` (distinct names, at most 100 characters), under a username no
    account has: inactive, without a usable password."""
    User = get_user_model()
    return [
        User(username=username, password=_unusable_password(), is_active=False, first_name=f"Imported {key}"[:150])
        for key, username in zip(keys, _imported_usernames(project=project, keys=keys))
    ]


def accounts_create(users: list) -> list:
    """``users`` inserted in their order, with their ids (also on backends that cannot return them)."""
    User = get_user_model()
    created = User.objects.bulk_create(users)
    if any(u.pk is None for u in created):  # backends that cannot return ids from bulk inserts
        by_name = dict(User.objects.filter(username__in=[u.username for u in users]).values_list("username", "pk"))
        for u in created:
            u.pk = by_name[u.username]
    return created


def imported_annotators_create(*, project: Project, keys: list[str], first_rank: int) -> dict[str, int]:
    """An account (as ``imported_accounts`` makes) and an imported annotator's membership (ranked from
    ``first_rank``) for each of ``keys``; their user ids by name. Written as plain rows (``model_rows_insert``):
    DBDC3's English evaluation set names 561 annotators, whose model instances took a fifth of its import."""
    if not keys:
        return {}
    User = get_user_model()
    usernames = _imported_usernames(project=project, keys=keys)
    model_rows_insert(
        User,
        [
            {"username": u, "password": _unusable_password(), "is_active": False, "first_name": f"Imported {k}"[:150]}
            for k, u in zip(keys, usernames)
        ],
    )
    ids: dict[str, int] = {}
    for start in range(0, len(usernames), 500):
        part = usernames[start : start + 500]
        ids.update(User.objects.filter(username__in=part).values_list("username", "pk"))
    model_rows_insert(
        Membership,
        [
            {"project_id": project.pk, "user_id": ids[u], "role": Role.ANNOTATOR, "imported": True, "source_key": k,
             "rank": first_rank + i}
            for i, (k, u) in enumerate(zip(keys, usernames))
        ],
    )  # fmt: skip
    return {k: ids[u] for k, u in zip(keys, usernames)}
