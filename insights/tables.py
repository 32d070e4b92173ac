"""SQLAlchemy tables of the insights feature (migrations: insights_0001_tables, insights_0002_lifecycle)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, Float, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.core.storage.models import Base


class InsightRow(Base):
    """One insight; `id` = uuid5(botId, dedupeKey), so re-extraction updates instead of duplicating."""

    __tablename__ = "insights"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(64))
    bot_id: Mapped[str] = mapped_column(String(256))
    dedupe_key: Mapped[str] = mapped_column(String(1024))
    kind: Mapped[str] = mapped_column(String(32))
    title: Mapped[str] = mapped_column(String(500))
    description: Mapped[str] = mapped_column(Text)
    importance: Mapped[str] = mapped_column(String(16))
    urgency: Mapped[str] = mapped_column(String(16))
    task_label: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16))
    owner: Mapped[str | None] = mapped_column(String(256), nullable=True)
    author: Mapped[str | None] = mapped_column(String(256), nullable=True)
    addressed_to: Mapped[list[str]] = mapped_column(JSON, default=list)
    due_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    occurred_at: Mapped[int] = mapped_column(BigInteger)
    platform: Mapped[str] = mapped_column(String(64))
    channel: Mapped[str] = mapped_column(String(512))
    details: Mapped[list[str]] = mapped_column(JSON, default=list)
    timeline: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    evidence: Mapped[list[str]] = mapped_column(JSON, default=list)
    extractor: Mapped[str] = mapped_column(String(16))
    content_hash: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[int] = mapped_column(BigInteger)
    updated_at: Mapped[int] = mapped_column(BigInteger)

    __table_args__ = (
        Index("ux_insights_user_bot_dedupe", "user_id", "bot_id", "dedupe_key", unique=True),
        Index("ix_insights_user_kind_status", "user_id", "kind", "status"),
        Index("ix_insights_user_updated", "user_id", "updated_at"),
    )


class InsightWeightRow(Base):
    """Per-user insightWeights; access counts are derived from insight_access_events."""

    __tablename__ = "insight_weights"

    insight_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    custom_weight_multiplier: Mapped[float] = mapped_column(Float, default=1.0)
    favorite: Mapped[bool] = mapped_column(Boolean, default=False)
    favorited_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    last_viewed_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    view_boost_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    current_event_rank: Mapped[int | None] = mapped_column(Integer, nullable=True)


class InsightAccessRow(Base):
    """The access-event log behind accessCount7d / accessCount30d and the trend."""

    __tablename__ = "insight_access_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    insight_id: Mapped[str] = mapped_column(String(36))
    user_id: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(16))
    at: Mapped[int] = mapped_column(BigInteger)

    __table_args__ = (Index("ix_insight_access_insight_at", "insight_id", "at"),)


class InsightCursorRow(Base):
    """Incremental generation: the newest raw_messages row id already analysed, per group."""

    __tablename__ = "insight_group_cursors"

    user_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    platform: Mapped[str] = mapped_column(String(64), primary_key=True)
    channel: Mapped[str] = mapped_column(String(512), primary_key=True)
    last_row_id: Mapped[int] = mapped_column(Integer, default=0)
    last_run_at: Mapped[int] = mapped_column(BigInteger)


class InsightAliasRow(Base):
    """A restatement merged into another insight: (botId, dedupeKey) of the draft → the insight it joined.

    Kept so a later run merges the same draft into the same insight instead of re-creating it.
    """

    __tablename__ = "insight_aliases"

    bot_id: Mapped[str] = mapped_column(String(256), primary_key=True)
    dedupe_key: Mapped[str] = mapped_column(String(1024), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(64))
    insight_id: Mapped[str] = mapped_column(String(36))
    content_hash: Mapped[str] = mapped_column(String(32))

    __table_args__ = (Index("ix_insight_aliases_insight", "insight_id"),)


class InsightStateRow(Base):
    """The lifecycle a user set on an insight (done, dismissed, snoozed until, open again).

    Separate from the extracted row so re-extraction never overwrites what the user decided.
    """

    __tablename__ = "insight_states"

    insight_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    state: Mapped[str] = mapped_column(String(16))
    until: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    at: Mapped[int] = mapped_column(BigInteger)


class InsightIdentityRow(Base):
    """A name the user goes by in chats (the first-run "who are you?" answer); drives open loops."""

    __tablename__ = "insight_identities"

    user_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(256), primary_key=True)
    at: Mapped[int] = mapped_column(BigInteger)
