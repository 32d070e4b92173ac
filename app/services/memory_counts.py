"""Single counts over a user's messages and summaries, for callers that need one number, not stats()."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.storage.models import MemorySummaryRow, RawMessageRow


def has_messages(session: Session, user_id: str) -> bool:
    """Whether anything is stored: one indexed row lookup instead of a count."""
    return (
        session.scalar(select(RawMessageRow.id).where(RawMessageRow.user_id == user_id).limit(1)) is not None
    )


def archived_count(session: Session, user_id: str) -> int:
    stmt = select(func.count()).select_from(RawMessageRow)
    stmt = stmt.where(RawMessageRow.user_id == user_id, RawMessageRow.archived_at.is_not(None))
    return int(session.scalar(stmt) or 0)


def pinned_count(session: Session, user_id: str) -> int:
    stmt = select(func.count()).select_from(RawMessageRow)
    stmt = stmt.where(RawMessageRow.user_id == user_id, RawMessageRow.is_pinned.is_(True))
    return int(session.scalar(stmt) or 0)


def summary_count(session: Session, user_id: str) -> int:
    stmt = select(func.count()).select_from(MemorySummaryRow).where(MemorySummaryRow.user_id == user_id)
    return int(session.scalar(stmt) or 0)
