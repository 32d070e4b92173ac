"""A stored summary as a value: what replaced a group of archived messages, and over which span."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.clock import iso
from app.core.storage.models import MemorySummaryRow


@dataclass(frozen=True, slots=True)
class StoredSummary:
    summary_id: str
    tier: str
    source_tier: str
    start_timestamp: int
    end_timestamp: int
    message_count: int
    summary_text: str
    key_points: tuple[str, ...]
    keywords: tuple[str, ...]
    source_record_ids: tuple[int, ...]
    platform: str | None
    channel: str | None
    person: str | None
    created_at: int

    @classmethod
    def from_row(cls, row: MemorySummaryRow) -> StoredSummary:
        dims: dict[str, Any] = row.dimensions or {}
        return cls(
            summary_id=row.summary_id,
            tier=row.summary_tier,
            source_tier=row.source_tier,
            start_timestamp=row.start_timestamp,
            end_timestamp=row.end_timestamp,
            message_count=row.message_count,
            summary_text=row.summary_text,
            key_points=tuple(row.key_points or ()),
            keywords=tuple(row.keywords or ()),
            source_record_ids=tuple(int(i) for i in row.source_record_ids or ()),
            platform=dims.get("platform"),
            channel=dims.get("channel"),
            person=dims.get("person"),
            created_at=row.created_at,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "summaryId": self.summary_id,
            "tier": self.tier,
            "sourceTier": self.source_tier,
            "startAt": iso(self.start_timestamp),
            "endAt": iso(self.end_timestamp),
            "messageCount": self.message_count,
            "summaryText": self.summary_text,
            "keyPoints": list(self.key_points),
            "keywords": list(self.keywords),
            "sourceRecordIds": list(self.source_record_ids),
            "platform": self.platform,
            "channel": self.channel,
            "person": self.person,
            "createdAt": iso(self.created_at),
        }


def load(session: Session, user_id: str, summary_id: str) -> StoredSummary | None:
    row = session.scalar(
        select(MemorySummaryRow).where(
            MemorySummaryRow.summary_id == summary_id, MemorySummaryRow.user_id == user_id
        )
    )
    return StoredSummary.from_row(row) if row is not None else None
