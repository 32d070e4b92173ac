"""Tables the connectors feature owns: per-connector sync state, and merged contacts (identity)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.core.storage.models import Base


class ConnectorStateRow(Base):
    """One configured connector: its options, cursor and the outcome of its last sync.

    The token is not here: it lives in the secret store (connectors/secrets.py).
    """

    __tablename__ = "connector_state"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(64), default="local")
    kind: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    interval_minutes: Mapped[int] = mapped_column(Integer, default=15)
    cursor: Mapped[str | None] = mapped_column(Text, nullable=True)
    status: Mapped[str] = mapped_column(String(16), default="never")
    last_sync_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    last_success_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    last_error_code: Mapped[str | None] = mapped_column(String(64), nullable=True)
    messages_total: Mapped[int] = mapped_column(Integer, default=0)
    last_run_imported: Mapped[int] = mapped_column(Integer, default=0)
    last_run_updated: Mapped[int] = mapped_column(Integer, default=0)
    last_run_deleted: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[int] = mapped_column(BigInteger)
    updated_at: Mapped[int] = mapped_column(BigInteger)


class ContactRow(Base):
    """A person as the user knows them, possibly seen on several platforms."""

    __tablename__ = "contacts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    user_id: Mapped[str] = mapped_column(String(64))
    display_name: Mapped[str] = mapped_column(String(512))
    created_at: Mapped[int] = mapped_column(BigInteger)


class ContactIdentityRow(Base):
    """One (platform, person) name that belongs to a contact; `person` matches raw_messages.person."""

    __tablename__ = "contact_identities"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    contact_id: Mapped[int] = mapped_column(Integer, ForeignKey("contacts.id", ondelete="CASCADE"))
    user_id: Mapped[str] = mapped_column(String(64))
    platform: Mapped[str] = mapped_column(String(64))
    person: Mapped[str] = mapped_column(String(512))
    email: Mapped[str | None] = mapped_column(String(512), nullable=True)

    __table_args__ = (
        Index("ux_contact_identities_user_platform_person", "user_id", "platform", "person", unique=True),
        Index("ix_contact_identities_contact", "contact_id"),
    )
