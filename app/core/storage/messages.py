"""Reading and writing raw_messages rows; conversion to MessageRecord values."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import and_, func, select, tuple_
from sqlalchemy.orm import Session

from app.core.domain import Attachment, MessageRecord, Tier
from app.core.storage.db import chunked
from app.core.storage.keyword import MESSAGE_KIND as MESSAGE_KIND  # re-exported
from app.core.storage.models import RawMessageRow


def to_record(row: RawMessageRow, *, reveal_archived: bool = False) -> MessageRecord:
    hidden = row.archived_at is not None and not reveal_archived
    return MessageRecord(
        id=row.id,
        user_id=row.user_id,
        platform=row.platform,
        message_id=row.message_id,
        channel=row.channel,
        person=row.person,
        bot_id=row.bot_id,
        timestamp=row.timestamp,
        created_at=row.created_at,
        content=None if hidden else row.content,
        attachments=tuple(Attachment.from_dict(a) for a in (row.attachments or [])),
        metadata=dict(row.metadata_ or {}),
        memory_stage=Tier(row.memory_stage),
        access_count=row.access_count,
        last_access_at=row.last_access_at,
        importance_score=row.importance_score,
        archived_at=row.archived_at,
        is_pinned=bool(row.is_pinned),
        summary_ref_id=row.summary_ref_id,
        embedding_model=row.embedding_model,
        embedding_content_hash=row.embedding_content_hash,
        embedding_dimensions=row.embedding_dimensions,
        embedding_updated_at=row.embedding_updated_at,
    )


def vector_key(row_id: int) -> str:
    """Vector and keyword-index key of a stored message."""
    return str(row_id)


class MessageRepository:
    """Queries over raw_messages; every call takes the caller's session (the caller owns the transaction)."""

    def by_ids(self, session: Session, ids: Sequence[int]) -> dict[int, RawMessageRow]:
        found: dict[int, RawMessageRow] = {}
        for part in chunked(list(ids)):
            for row in session.scalars(select(RawMessageRow).where(RawMessageRow.id.in_(part))):
                found[row.id] = row
        return found

    def by_platform_keys(
        self, session: Session, user_id: str, keys: Iterable[tuple[str, str]]
    ) -> dict[tuple[str, str], RawMessageRow]:
        found: dict[tuple[str, str], RawMessageRow] = {}
        for part in chunked(list(set(keys)), 400):
            stmt = select(RawMessageRow).where(
                RawMessageRow.user_id == user_id,
                tuple_(RawMessageRow.platform, RawMessageRow.message_id).in_(part),
            )
            for row in session.scalars(stmt):
                found[(row.platform, row.message_id)] = row
        return found

    def get(self, session: Session, row_id: int) -> RawMessageRow | None:
        return session.get(RawMessageRow, row_id)

    def find_by_message_id(
        self, session: Session, user_id: str, message_id: str, platform: str | None = None
    ) -> RawMessageRow | None:
        stmt = select(RawMessageRow).where(
            RawMessageRow.user_id == user_id, RawMessageRow.message_id == message_id
        )
        if platform:
            stmt = stmt.where(RawMessageRow.platform == platform)
        return session.scalars(stmt.limit(1)).first()

    def neighbours(
        self, session: Session, row: RawMessageRow, before: int, after: int
    ) -> list[RawMessageRow]:
        """Messages around `row` in the same conversation (same platform + channel), in time order."""
        same = and_(
            RawMessageRow.user_id == row.user_id,
            RawMessageRow.platform == row.platform,
            RawMessageRow.channel == row.channel,
        )
        earlier = session.scalars(
            select(RawMessageRow)
            .where(
                same,
                (RawMessageRow.timestamp < row.timestamp)
                | ((RawMessageRow.timestamp == row.timestamp) & (RawMessageRow.id < row.id)),
            )
            .order_by(RawMessageRow.timestamp.desc(), RawMessageRow.id.desc())
            .limit(before)
        ).all()
        later = session.scalars(
            select(RawMessageRow)
            .where(
                same,
                (RawMessageRow.timestamp > row.timestamp)
                | ((RawMessageRow.timestamp == row.timestamp) & (RawMessageRow.id > row.id)),
            )
            .order_by(RawMessageRow.timestamp, RawMessageRow.id)
            .limit(after)
        ).all()
        return [*reversed(earlier), row, *later]

    def count(self, session: Session, user_id: str) -> int:
        return int(
            session.scalar(
                select(func.count()).select_from(RawMessageRow).where(RawMessageRow.user_id == user_id)
            )
            or 0
        )

    def count_all(self, session: Session) -> int:
        return int(session.scalar(select(func.count()).select_from(RawMessageRow)) or 0)

    def counts_by(self, session: Session, user_id: str, column: str) -> dict[str, int]:
        col = getattr(RawMessageRow, column)
        rows = session.execute(
            select(col, func.count()).where(RawMessageRow.user_id == user_id).group_by(col)
        ).all()
        return {str(k): int(v) for k, v in rows}

    def time_range(self, session: Session, user_id: str) -> tuple[int | None, int | None]:
        row = session.execute(
            select(func.min(RawMessageRow.timestamp), func.max(RawMessageRow.timestamp)).where(
                RawMessageRow.user_id == user_id
            )
        ).one()
        return row[0], row[1]
