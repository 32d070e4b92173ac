"""SQLAlchemy tables owned by the core: users, raw_messages, memory_summaries, audit_log, locks.

Feature packages declare their own tables on the same `Base` and ship their own migrations.
Column names are snake_case; the specification's camelCase names map one to one.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class User(Base):
    __tablename__ = "users"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    display_name: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[int] = mapped_column(BigInteger)


class RawMessageRow(Base):
    """Verbatim message record: the ground truth every other layer derives from."""

    __tablename__ = "raw_messages"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    message_id: Mapped[str] = mapped_column(String(512))
    platform: Mapped[str] = mapped_column(String(64))
    user_id: Mapped[str] = mapped_column(String(64), ForeignKey("users.id"))
    bot_id: Mapped[str | None] = mapped_column(String(256), nullable=True)
    channel: Mapped[str] = mapped_column(String(512), default="")
    person: Mapped[str] = mapped_column(String(512), default="")
    timestamp: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[int] = mapped_column(BigInteger)
    content: Mapped[str] = mapped_column(Text)
    attachments: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    embedding_model: Mapped[str | None] = mapped_column(String(200), nullable=True)
    embedding_content_hash: Mapped[str | None] = mapped_column(String(32), nullable=True)
    embedding_dimensions: Mapped[int | None] = mapped_column(Integer, nullable=True)
    embedding_updated_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    metadata_: Mapped[dict[str, Any]] = mapped_column("metadata", JSON, default=dict)
    memory_stage: Mapped[str] = mapped_column(String(8), default="short")
    access_count: Mapped[int] = mapped_column(Integer, default=0)
    last_access_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    importance_score: Mapped[float | None] = mapped_column(Float, nullable=True)
    archived_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    is_pinned: Mapped[bool] = mapped_column(Boolean, default=False)
    summary_ref_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    # Hash of the sanitized content alone: tells an edit from a re-delivery of the same message.
    text_hash: Mapped[str] = mapped_column(String(32), default="")

    __table_args__ = (
        Index("ux_raw_messages_user_platform_message", "user_id", "platform", "message_id", unique=True),
        Index("ix_raw_messages_user_stage", "user_id", "memory_stage"),
        Index("ix_raw_messages_user_timestamp", "user_id", "timestamp"),
        Index("ix_raw_messages_archived_at", "archived_at"),
        Index("ix_raw_messages_is_pinned", "is_pinned"),
        Index("ix_raw_messages_user_channel_timestamp", "user_id", "channel", "timestamp"),
        Index("ix_raw_messages_summary_ref", "summary_ref_id"),
    )


class MemorySummaryRow(Base):
    """Compressed representation of a group of raw messages, written by the forgetting engine."""

    __tablename__ = "memory_summaries"

    summary_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(64), ForeignKey("users.id"))
    summary_tier: Mapped[str] = mapped_column(String(4))
    source_tier: Mapped[str] = mapped_column(String(8))
    start_timestamp: Mapped[int] = mapped_column(BigInteger)
    end_timestamp: Mapped[int] = mapped_column(BigInteger)
    message_count: Mapped[int] = mapped_column(Integer)
    source_record_ids: Mapped[list[int]] = mapped_column(JSON, default=list)
    key_points: Mapped[list[str]] = mapped_column(JSON, default=list)
    keywords: Mapped[list[str]] = mapped_column(JSON, default=list)
    keywords_text: Mapped[str] = mapped_column(Text, default="")
    summary_text: Mapped[str] = mapped_column(Text, default="")
    dimensions: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    quality_score: Mapped[float] = mapped_column(Float, default=0.0)
    embedding_model: Mapped[str | None] = mapped_column(String(200), nullable=True)
    embedding_content_hash: Mapped[str | None] = mapped_column(String(32), nullable=True)
    created_at: Mapped[int] = mapped_column(BigInteger)
    updated_at: Mapped[int] = mapped_column(BigInteger)

    __table_args__ = (
        Index("ix_memory_summaries_user_tier", "user_id", "summary_tier"),
        Index("ix_memory_summaries_user_end", "user_id", "end_timestamp"),
    )


class AuditRow(Base):
    """One mutation: who did what to which record, when, with a small JSON detail."""

    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    user_id: Mapped[str] = mapped_column(String(64))
    at: Mapped[int] = mapped_column(BigInteger)
    actor: Mapped[str] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(64))
    entity_type: Mapped[str] = mapped_column(String(64))
    entity_id: Mapped[str] = mapped_column(String(512))
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)

    __table_args__ = (
        Index("ix_audit_user_at", "user_id", "at"),
        Index("ix_audit_entity", "entity_type", "entity_id"),
    )


class LockRow(Base):
    """A named lease shared by every process on the data dir (compare-and-set with expiry)."""

    __tablename__ = "locks"

    key: Mapped[str] = mapped_column(String(256), primary_key=True)
    # Whose work the lease serializes (the key names the user too; the column makes it queryable).
    user_id: Mapped[str] = mapped_column(String(64), default="local")
    token: Mapped[str] = mapped_column(String(512))
    acquired_at: Mapped[int] = mapped_column(BigInteger)
    expires_at: Mapped[int] = mapped_column(BigInteger)
