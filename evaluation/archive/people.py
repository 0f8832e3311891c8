"""Who the people an archive names become in the restored project: the one rule, whoever restores.

An archive names people by username: the members with their roles, the annotators of its assignments, the
studies' participants, and those who did something (excluded an annotator, settled a unit, created a judge).
What those names become depends on who restores it:

- **The operator** (``manage.py import_project``) **and staff** restore a backup: an existing account with the
  name becomes a member with the archived role (never a superuser: no restore grants one a role); a missing one
  is created without a usable password (an administrator sets one, or the person resets it).
- **A lead** (``POST /api/archives/``, the lead's projects page) restores only what the study needs:

  - the lead restoring becomes the project's lead, and no one else does: an archived lead becomes an annotator
    if the lead could add the account, else as anyone else (add leads on the members page);
  - an existing account the lead could add on the members page (its owner agreed to be found by leads, or it
    is a member of a project the lead leads) becomes an annotator or adjudicator as archived; its roles in
    other projects never change;
  - everyone else who holds work in the archive (assignments) becomes an **imported annotator** of the new
    project: an account of its own named ``<project>.imported.<name>``, inactive, without a usable password,
    never a lead and never staff, whose judgements are kept under the archived name;
  - a name that holds no work gets nothing: no account is created for it.

- Either way, **no account is ever created under a reserved name** (``annotator.usernames``): such a person
  becomes an imported annotator; and each study participant gets a new participant account of their own, bound
  to the restored participant, under the archived name when it is a participant's name (``study<n>-<16 hex>``)
  no account has yet, else a fresh one.

Whatever a restore did not grant is said in its notes (``People.notes``).
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import AbstractBaseUser
from django.utils.translation import gettext, ngettext

from annotator.models import Membership, Project, Role
from annotator.services.accounts import accounts_addable
from annotator.services.imports.annotators import accounts_create, imported_accounts
from annotator.usernames import username_reserved
from scoring.input import Record

INT32 = (0, 2_147_483_647)


@dataclass
class People:
    """The restored project's people: archived name -> user id, for every name that became someone."""

    users: dict[str, int] = field(default_factory=dict)
    by: dict[str, int] = field(default_factory=dict)  # also the accounts history fields may name (created_by...)
    notes: list[str] = field(default_factory=list)

    def user(self, r: Record, name, where: str) -> int | None:
        """The user id the archived ``name`` became, None if nobody (a lead's restore of a name without work)."""
        r.value(name, str, where)
        return self.users.get(name)

    def someone(self, r: Record, name, where: str) -> int | None:
        """A history field's person (``excluded_by``, ``created_by``...): their account if the restore may name
        it, else None."""
        r.value(name, str, where, optional=True)
        return None if name is None else self.by.get(name, self.users.get(name))


def _member(r: Record, m, where: str, limit: int) -> tuple[str, Membership]:
    name = r.text(m, "username", where, max_length=limit, non_empty=True)
    return name, Membership(
        role=r.choice(m, "role", Role.values, where),
        imported=r.field(m, "imported", bool, where),
        source_key=r.text(m, "source_key", where, max_length=Membership._meta.get_field("source_key").max_length),
        rank=r.integer(m, "rank", where, bounds=INT32),
        active=r.field(m, "active", bool, where),
    )


def people_restore(
    *,
    r: Record,
    document: dict,
    project: Project,
    actor: AbstractBaseUser | None,
    participants: dict[str, int],
    named: set[str],
) -> People:
    """Map every name of the archive as the module says, creating what the rule allows; ``participants`` are the
    participants' archived usernames with their restored study's id, ``named`` the names history fields hold."""
    User = get_user_model()
    limit = User._meta.get_field(User.USERNAME_FIELD).max_length
    members: dict[str, Membership] = {}
    for i, m in enumerate(r.field(document, "members", list)):
        name, membership = _member(r, m, f"members[{i}]", limit)
        members[name] = membership
    workers: dict[str, None] = {}
    for i, a in enumerate(r.field(document, "assignments", list)):
        workers[r.text(a, "annotator", f"assignments[{i}]", max_length=limit, non_empty=True)] = None
    names = list(dict.fromkeys([*members, *workers, *participants]))
    existing = dict(User.objects.filter(username__in=names).values_list("username", "pk"))
    trusted = actor is None or actor.is_staff
    addable = set(
        accounts_addable(actor=actor)
        .filter(pk__in=existing.values(), is_superuser=False)
        .values_list("username", flat=True)
    )
    people = People()
    live: list[str] = []  # member under the archived name (an existing account, or one created here)
    imported: list[str] = []
    dropped: list[str] = []
    not_leads: list[str] = []
    for name in names:
        if name in participants:
            continue
        membership = members.get(name)
        role = membership.role if membership is not None else Role.ANNOTATOR
        if trusted:
            if name in addable or (name not in existing and not username_reserved(name)):
                live.append(name)
            else:
                imported.append(name)
        elif actor is not None and name == actor.get_username():
            live.append(name)
        elif name in addable and not (membership is not None and membership.imported):
            live.append(name)  # as an annotator if archived as a lead: no one but the lead restoring leads
            if role == Role.LEAD:
                not_leads.append(name)
        else:
            if role == Role.LEAD:
                not_leads.append(name)
            (imported if name in workers else dropped).append(name)
    leads = set(live) if trusted else {actor.get_username()}  # who may keep an archived lead's role
    _accounts_create(project, members, names, participants, set(live), imported, existing, leads, people)
    if trusted:  # the operator and staff may name any account in history fields, as they may add any
        wanted = [n for n in named if n not in people.users]
        people.by = dict(User.objects.filter(username__in=wanted).values_list("username", "pk"))
    if not_leads:
        people.notes.append(
            gettext("Not made leads (you lead the restored project; add others on the members page): %(names)s.")
            % {"names": ", ".join(sorted(not_leads)[:20])}
        )
    if dropped:
        people.notes.append(
            ngettext(
                "%(count)d person named by the archive holds no work in it and was not added: %(names)s.",
                "%(count)d people named by the archive hold no work in it and were not added: %(names)s.",
                len(dropped),
            )
            % {"count": len(dropped), "names": ", ".join(sorted(dropped)[:20]) + (" ..." if len(dropped) > 20 else "")}
        )
    return people


PARTICIPANT_NAME = re.compile(r"study[0-9]+-[0-9a-f]{16}")  # as a study's first visit names its account


def _accounts_create(project, members, names, participants, live, imported, existing, leads, people: People) -> None:
    """The accounts the mapping needs, created in the archive's order of names (so that people keep their order,
    which figures listing annotators follow), and the memberships:

    - a live name: the existing account, or one created under the name without a usable password;
    - a participant: an account of their own under the archived name when it is a participant's name no account
      has (exports name annotators by it), else a fresh one, as a study's first visit makes;
    - an imported annotator: an inactive account ``<project>.imported.<name>`` (an imported member keeps its
      source key) with an imported annotator's membership ranked after the archived members.
    """
    User = get_user_model()

    def key(name: str) -> str:
        m = members.get(name)
        return (m.source_key if m is not None and m.imported and m.source_key else name)[:100]

    keys = {n: key(n) for n in imported}
    if len(set(keys.values())) < len(keys):
        keys = {n: n[:100] for n in imported}
    imported_users = dict(zip(imported, imported_accounts(project=project, keys=list(keys.values()))))
    new: dict[str, object] = {}
    for name in names:
        if name in participants:
            own = PARTICIPANT_NAME.fullmatch(name) and name not in existing
            username = name if own else f"study{participants[name]}-{secrets.token_hex(8)}"
            new[name] = User(username=username, password=make_password(None))
        elif name in imported_users:
            new[name] = imported_users[name]
        elif name in live and name not in existing:
            new[name] = User(username=name, password=make_password(None))
    made = dict(zip(new, accounts_create(list(new.values()))))
    people.users.update({n: existing[n] for n in live if n in existing})
    people.users.update({n: user.pk for n, user in made.items()})
    rank = max((m.rank for m in members.values()), default=0) + 1
    ranks = {name: rank + i for i, name in enumerate(imported)}
    rows = []
    for name in names:
        if name not in people.users:  # dropped: nothing for them
            continue
        if name in imported_users:
            rows.append(Membership(project=project, user_id=people.users[name], role=Role.ANNOTATOR, imported=True,
                                   source_key=keys[name], rank=ranks[name]))  # fmt: skip
        elif name in members:
            rows.append(_membership(members[name], project, people.users[name], keep_lead=name in leads))
        elif name in participants:
            rows.append(Membership(project=project, user_id=people.users[name], role=Role.ANNOTATOR))
    Membership.objects.bulk_create(rows)


def _membership(archived: Membership, project: Project, user_id: int, *, keep_lead: bool) -> Membership:
    role = archived.role if keep_lead or archived.role != Role.LEAD else Role.ANNOTATOR
    return Membership(
        project=project,
        user_id=user_id,
        role=role,
        imported=archived.imported,
        source_key=archived.source_key,
        rank=archived.rank,
        active=archived.active,
    )


def people_named(r: Record, rows: list, fields: tuple[str, ...], where: str) -> set[str]:
    """The usernames ``rows``' history ``fields`` hold (each a string or null)."""
    named = set()
    for i, row in enumerate(rows):
        for name in fields:
            value = r.field(row, name, str, f"{where}[{i}]", optional=True)
            if value:
                named.add(value)
    return named
