"""Adapters from features to the page builder's plain values: insights as Items, contacts as ContactInfo."""

from __future__ import annotations

from collections.abc import Callable

from app.core.storage.db import Database
from app.services.insights_service import InsightsService
from app.services.memory_files import snapshot
from app.services.memory_files.plan import ContactInfo
from app.services.memory_files.render import Item
from connectors.identity import IdentityStore
from insights.model import InsightStatus

PAGE = 500  # the insights service's largest page


def insight_items(insights: InsightsService, db: Database, user_id: str) -> Callable[[], list[Item]]:
    """Every insight, newest first, each with the record id of its first evidence message."""

    def load() -> list[Item]:
        ranked = []
        offset = 0
        while True:
            page = insights.list_insights(sort="recent", limit=PAGE, offset=offset)
            ranked.extend(page)
            if len(page) < PAGE:
                break
            offset += PAGE
        drafts = [r.insight.draft for r in ranked]
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
