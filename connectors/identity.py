"""Identity: one contact for a person seen on several platforms, merged by the user or suggested.

A contact groups (platform, person) names exactly as raw_messages stores them, so search can
widen a person filter to every name of the contact without rewriting any message.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select

from app.core.errors import InvalidInput, NotFound
from app.core.storage.db import Database
from app.core.storage.models import RawMessageRow
from connectors.models import ContactIdentityRow, ContactRow


@dataclass(frozen=True, slots=True)
class Identity:
    platform: str
    person: str
    email: str | None = None
    messages: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "platform": self.platform,
            "person": self.person,
            "email": self.email,
            "messages": self.messages,
        }


@dataclass(frozen=True, slots=True)
class Contact:
    id: int
    display_name: str
    identities: tuple[Identity, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "display_name": self.display_name,
            "identities": [i.to_dict() for i in self.identities],
        }


@dataclass(frozen=True, slots=True)
class MergeSuggestion:
    display_name: str
    reason: str  # "same e-mail" | "same name"
    identities: tuple[Identity, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "display_name": self.display_name,
            "reason": self.reason,
            "identities": [i.to_dict() for i in self.identities],
        }


def name_keys(name: str) -> set[str]:
    """Comparable forms of a name: "Bob Stone", "stone, bob", "bob.stone" and "bobstone" meet."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode() or name
    words = [w for w in re.split(r"[^0-9a-z]+|(?<=[a-z])(?=[A-Z])", plain.casefold()) if w]
    if not words:
        return set()
    if len(words) == 1 and len(words[0]) < 4:
        return set()  # "al", "me": too short to mean the same person
    return {" ".join(sorted(words)), "".join(words)}


class IdentityStore:
    def __init__(self, db: Database, user_id: str) -> None:
        self.db = db
        self.user_id = user_id

    # -- reading -------------------------------------------------------------------------------
    def contacts(self) -> list[Contact]:
        with self.db.read() as session:
            rows = session.scalars(
                select(ContactRow).where(ContactRow.user_id == self.user_id).order_by(ContactRow.display_name)
            ).all()
            idents = session.scalars(
                select(ContactIdentityRow).where(ContactIdentityRow.user_id == self.user_id)
            ).all()
        by_contact: dict[int, list[Identity]] = defaultdict(list)
        for i in idents:
            by_contact[i.contact_id].append(Identity(i.platform, i.person, i.email))
        return [Contact(r.id, r.display_name, tuple(by_contact[r.id])) for r in rows]

    def observed(self) -> list[Identity]:
        """Every (platform, person) in stored messages, with an e-mail where a connector saw one."""
        email = RawMessageRow.metadata_["email"].as_string()
        with self.db.read() as session:
            rows = session.execute(
                select(RawMessageRow.platform, RawMessageRow.person, func.max(email), func.count())
                .where(RawMessageRow.user_id == self.user_id, RawMessageRow.person != "")
                .group_by(RawMessageRow.platform, RawMessageRow.person)
            ).all()
        return [Identity(p, n, e, int(c)) for p, n, e, c in rows]

    def aliases(self, person: str) -> tuple[str, ...]:
        """All names of the contact(s) `person` names (by identity or display name), itself first."""
        with self.db.read() as session:
            contact_ids = set(
                session.scalars(
                    select(ContactIdentityRow.contact_id).where(
                        ContactIdentityRow.user_id == self.user_id, ContactIdentityRow.person == person
                    )
                ).all()
            )
            contact_ids |= set(
                session.scalars(
                    select(ContactRow.id).where(
                        ContactRow.user_id == self.user_id,
                        func.lower(ContactRow.display_name) == person.lower(),
                    )
                ).all()
            )
            if not contact_ids:
                return (person,)
            names = session.scalars(
                select(ContactIdentityRow.person).where(ContactIdentityRow.contact_id.in_(contact_ids))
            ).all()
        return (person, *sorted(set(names) - {person}))

    # -- changing ------------------------------------------------------------------------------
    def merge(self, identities: Iterable[tuple[str, str]], display_name: str | None = None) -> Contact:
        """Make one contact of these (platform, person) names, absorbing contacts they belonged to."""
        wanted = list(dict.fromkeys((p.strip(), n.strip()) for p, n in identities))
        if len(wanted) < 2 and display_name is None:
            raise InvalidInput("merging needs at least two (platform, person) identities")
        observed = {(i.platform, i.person): i for i in self.observed()}
        with self.db.write() as session:
            existing = session.scalars(
                select(ContactIdentityRow).where(ContactIdentityRow.user_id == self.user_id)
            ).all()
            by_key = {(r.platform, r.person): r for r in existing}
            absorbed = {by_key[k].contact_id for k in wanted if k in by_key}
            name = display_name or max(wanted, key=lambda k: observed.get(k, Identity(*k)).messages)[1]
            contact = ContactRow(user_id=self.user_id, display_name=name, created_at=0)
            session.add(contact)
            session.flush()
            for row in existing:
                if row.contact_id in absorbed:
                    row.contact_id = contact.id
            for platform, person in wanted:
                if (platform, person) not in by_key:
                    email = observed.get((platform, person), Identity(platform, person)).email
                    session.add(
                        ContactIdentityRow(
                            contact_id=contact.id,
                            user_id=self.user_id,
                            platform=platform,
                            person=person,
                            email=email,
                        )
                    )
            session.flush()
            for old in absorbed:
                stale = session.get(ContactRow, old)
                if stale is not None:
                    session.delete(stale)
            contact_id = contact.id
        return self.contact(contact_id)

    def contact(self, contact_id: int) -> Contact:
        for contact in self.contacts():
            if contact.id == contact_id:
                return contact
        raise NotFound(f"no contact with id {contact_id}", hint="see `strata connectors contacts`")

    def unmerge(self, contact_id: int) -> bool:
        with self.db.write() as session:
            row = session.get(ContactRow, contact_id)
            if row is None or row.user_id != self.user_id:
                return False
            for ident in session.scalars(
                select(ContactIdentityRow).where(ContactIdentityRow.contact_id == contact_id)
            ).all():
                session.delete(ident)
            session.delete(row)
            return True

    # -- suggestions ---------------------------------------------------------------------------
    def suggestions(self) -> list[MergeSuggestion]:
        """Groups of names that look like one person: same e-mail, or the same name on another platform."""
        merged = {(i.platform, i.person): c.id for c in self.contacts() for i in c.identities}
        observed = self.observed()
        groups: dict[tuple[str, str], dict[tuple[str, str], Identity]] = defaultdict(dict)
        for ident in observed:
            if ident.email:
                groups[("same e-mail", ident.email.casefold())][(ident.platform, ident.person)] = ident
            for key in name_keys(ident.person):
                groups[("same name", key)][(ident.platform, ident.person)] = ident
        seen: set[frozenset[tuple[str, str]]] = set()
        out: list[MergeSuggestion] = []
        for (reason, _), members in sorted(groups.items(), key=lambda kv: kv[0][0] != "same e-mail"):
            keys = frozenset(members)
            platforms = {p for p, _ in keys}
            if len(keys) < 2 or keys in seen:
                continue
            if reason == "same name" and len(platforms) < 2:
                continue  # the same name twice on one platform is more likely two people
            contacts = {merged.get(k) for k in keys}
            if len(contacts) == 1 and None not in contacts:
                continue  # already one contact
            seen.add(keys)
            idents = tuple(sorted(members.values(), key=lambda i: (-i.messages, i.platform, i.person)))
            out.append(MergeSuggestion(idents[0].person, reason, idents))
        return out
