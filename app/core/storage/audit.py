"""The audit log: one row per mutation, written in the same transaction as the change."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.storage.models import AuditRow


def record(
    session: Session,
    *,
    user_id: str,
    at: int,
    actor: str,
    action: str,
    entity_type: str,
    entity_id: str | int,
    details: dict[str, Any] | None = None,
) -> None:
    session.add(
        AuditRow(
            user_id=user_id,
            at=at,
            actor=actor,
            action=action,
            entity_type=entity_type,
            entity_id=str(entity_id),
            details=details or {},
        )
    )


def recent(session: Session, user_id: str, limit: int = 50) -> list[AuditRow]:
    stmt = select(AuditRow).where(AuditRow.user_id == user_id).order_by(AuditRow.id.desc()).limit(limit)
    return list(session.scalars(stmt))
