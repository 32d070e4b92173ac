"""Adapters from features to the page builder's plain values: insights as Items, contacts as ContactInfo."""

from __future__ import annotations

from collections.abc import Callable

from app.core.storage.db import Database
from app.services.memory_files import snapshot
from app.services.memory_files.plan import ContactInfo
from app.services.memory_files.render import Item
from connectors.identity import IdentityStore
from insights.model import InsightStatus
from insights.repository import InsightRepository, to_draft


def insight_items(db: Database, user_id: str) -> Callable[[], list[Item]]:
    """Every insight, newest first, each with the record id of its first evidence message.

    Reads the stored drafts in one query: pages need what an insight says, not its ranking, and
    ranking tens of thousands of insights page by page through the service cost seconds.
    """
    repo = InsightRepository()

    def load() -> list[Item]:
        with db.read() as session:
            drafts = [to_draft(row) for row in repo.rows(session, user_id)]
        drafts.sort(key=lambda d: -d.occurred_at)
        ids = snapshot.message_ids(db, user_id, [(d.platform, d.evidence[0]) for d in drafts if d.evidence])
        return [
            Item(
                kind=d.kind.value,
                title=d.title,
                open=d.status is InsightStatus.OPEN,
                occurred_at=d.occurred_at,
                platform=d.platform,
                channel=d.channel,
                owner=d.owner,
                author=d.author,
                addressed_to=tuple(d.addressed_to),
                due_at=d.due_at,
                source_id=ids.get((d.platform, d.evidence[0])) if d.evidence else None,
            )
            for d in drafts
        ]

    return load


def contact_infos(identities: IdentityStore) -> Callable[[], list[ContactInfo]]:
    def load() -> list[ContactInfo]:
        return [
            ContactInfo(c.id, c.display_name, tuple((i.platform, i.person) for i in c.identities))
            for c in identities.contacts()
        ]

    return load
