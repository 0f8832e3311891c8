"""Imported annotators: people known to a project only by a name in what was imported.

A collection's annotator ids, and the people a restored archive names whom the import may not make
members (``annotator.services.accounts.accounts_addable``), get an account of their own that nobody
can log in to (``<project>.imported.<name>``, inactive, without a usable password) and an imported membership
that keeps the name (``source_key``): exports show their judgements under it.
"""

from __future__ import annotations

import re

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password

from annotator.models import Membership, Project, Role


def _safe_username(text: str) -> str:
    return re.sub(r"[^\w.@+-]", "_", text)[:100]


def imported_accounts(*, project: Project, keys: list[str]) -> list:
    """An unsaved account for each of ``keys`` (distinct names, at most 100 characters), under a username no
    account has: inactive, without a usable password."""
    User = get_user_model()
    prefix = f"{project.slug}.imported."
    # usernames hold 150 characters: room for the suffix that tells two truncated keys apart
    wanted = {k: (prefix + _safe_username(k))[:140] for k in keys}
    taken = set(User.objects.filter(username__in=wanted.values()).values_list("username", flat=True))
    users = []
    for key in keys:
        username = wanted[key]
        suffix = 2
        while username in taken:
            username = f"{wanted[key]}-{suffix}"
            suffix += 1
        taken.add(username)
        users.append(
            User(username=username, password=make_password(None), is_active=False, first_name=f"Imported {key}"[:150])
        )
    return users


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
    """An account (``imported_accounts``) and an imported annotator's membership (ranked from ``first_rank``)
    for each of ``keys``; their user ids by name."""
    if not keys:
        return {}
    created = accounts_create(imported_accounts(project=project, keys=keys))
    Membership.objects.bulk_create(
        Membership(
            project=project, user_id=user.pk, role=Role.ANNOTATOR, imported=True, source_key=key, rank=first_rank + i
        )
        for i, (key, user) in enumerate(zip(keys, created))
    )
    return {key: user.pk for key, user in zip(keys, created)}
