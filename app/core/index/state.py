"""Which embedding model the corpus searches with (`index_state`), kept apart from the settings.

Changing the model in the settings does not switch search at once: the old vectors stay in use
until a re-embed job has built the new model's full set, then one transaction switches every
kind (see app/services/reembed_service.py). The row also keeps the settings that build the
active model again, so a process started after the settings changed still searches correctly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import JSON, BigInteger, Integer, String
from sqlalchemy.orm import Mapped, Session, mapped_column

from app.core.storage.models import Base

STATE_NAME = "corpus"


class IndexStateRow(Base):
    __tablename__ = "index_state"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    active_model: Mapped[str] = mapped_column(String(200))
    active_dimensions: Mapped[int] = mapped_column(Integer)
    active_embedding: Mapped[dict[str, Any]] = mapped_column(JSON)
    updated_at: Mapped[int] = mapped_column(BigInteger)


@dataclass(frozen=True, slots=True)
class ActiveModel:
    model_id: str
    dimensions: int
    embedding: dict[str, Any]  # EmbeddingSettings as a dict


def read_active(session: Session) -> ActiveModel | None:
    row = session.get(IndexStateRow, STATE_NAME)
    if row is None:
        return None
    return ActiveModel(row.active_model, row.active_dimensions, dict(row.active_embedding or {}))


def write_active(session: Session, active: ActiveModel, now: int) -> None:
    row = session.get(IndexStateRow, STATE_NAME)
    if row is None:
        session.add(
            IndexStateRow(
                name=STATE_NAME,
                active_model=active.model_id,
                active_dimensions=active.dimensions,
                active_embedding=active.embedding,
                updated_at=now,
            )
        )
        return
    row.active_model, row.active_dimensions = active.model_id, active.dimensions
    row.active_embedding, row.updated_at = active.embedding, now
