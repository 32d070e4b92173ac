"""Tables of the forgetting engine: one row per run and one per record a run changed (for undo)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.core.storage.models import Base


class ForgetRunRow(Base):
    """A forgetting run: who, when, how it ended, and its per-tier counts."""

    __tablename__ = "forget_runs"

    run_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(64))
    trigger: Mapped[str] = mapped_column(String(32), default="manual")
    dry_run: Mapped[bool] = mapped_column(Boolean, default=False)
    # running | completed | completed_with_errors | skipped_locked | lock_lost | failed | interrupted
    status: Mapped[str] = mapped_column(String(32))
    started_at: Mapped[int] = mapped_column(BigInteger)
    finished_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    undone_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    lock_token: Mapped[str | None] = mapped_column(String(512), nullable=True)
    counts: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    errors: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    summary_ids: Mapped[list[str]] = mapped_column(JSON, default=list)
    message: Mapped[str] = mapped_column(Text, default="")

    __table_args__ = (Index("ix_forget_runs_user_started", "user_id", "started_at"),)


class ForgetRunItemRow(Base):
    """One record changed by one run, with the values needed to put it back."""

    __tablename__ = "forget_run_items"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(String(64))
    record_id: Mapped[int] = mapped_column(Integer)
    summary_id: Mapped[str] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(16))  # promote | archive
    prev_stage: Mapped[str] = mapped_column(String(8))
    new_stage: Mapped[str] = mapped_column(String(8))
    prev_summary_ref_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    applied_at: Mapped[int] = mapped_column(BigInteger)

    __table_args__ = (
        Index("ix_forget_run_items_run", "run_id"),
        Index("ix_forget_run_items_record", "record_id"),
    )


class ForgetScheduleRow(Base):
    """Where the scheduled job lives and when it fires next, visible to every process."""

    __tablename__ = "forget_schedule"

    job_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    host: Mapped[str] = mapped_column(String(256), default="")
    pid: Mapped[int] = mapped_column(Integer, default=0)
    interval_minutes: Mapped[int] = mapped_column(Integer, default=60)
    next_run_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    last_run_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    last_status: Mapped[str | None] = mapped_column(String(32), nullable=True)
    updated_at: Mapped[int] = mapped_column(BigInteger, default=0)
