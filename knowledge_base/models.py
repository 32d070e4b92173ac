"""Tables of the knowledge base: rag_documents, rag_chunks (per the specification) and insight settings.

Chunk vectors live in LanceDB (collection `chunk__<model>__<dims>`, keyed by chunk id), not in a
SQLite column: SQLite stays the source of truth for text, LanceDB can be rebuilt from it.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, BigInteger, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.core.storage.models import Base


class RagDocumentRow(Base):
    __tablename__ = "rag_documents"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(64))
    file_name: Mapped[str] = mapped_column(String(512))
    content_type: Mapped[str] = mapped_column(String(200))
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    total_chunks: Mapped[int] = mapped_column(Integer)
    # Relative to the data dir, so a moved data dir keeps working.
    blob_path: Mapped[str] = mapped_column(String(1024))
    uploaded_at: Mapped[int] = mapped_column(BigInteger)
    metadata_: Mapped[dict[str, Any]] = mapped_column("metadata", JSON, default=dict)
    # sha256 of the uploaded bytes: the same file twice is refused.
    content_hash: Mapped[str] = mapped_column(String(64))
    format: Mapped[str] = mapped_column(String(16))
    # The extracted text with page/slide/sheet markers, served by getFullDocumentContent.
    content: Mapped[str] = mapped_column(Text)
    embedding_model: Mapped[str] = mapped_column(String(200))
    embedding_dimensions: Mapped[int] = mapped_column(Integer)

    __table_args__ = (
        Index("ux_rag_documents_user_hash", "user_id", "content_hash", unique=True),
        Index("ix_rag_documents_user_uploaded", "user_id", "uploaded_at"),
    )


class RagChunkRow(Base):
    __tablename__ = "rag_chunks"

    id: Mapped[str] = mapped_column(String(48), primary_key=True)
    document_id: Mapped[str] = mapped_column(String(36), ForeignKey("rag_documents.id", ondelete="CASCADE"))
    user_id: Mapped[str] = mapped_column(String(64))
    chunk_index: Mapped[int] = mapped_column(Integer)
    content: Mapped[str] = mapped_column(Text)
    metadata_: Mapped[dict[str, Any]] = mapped_column("metadata", JSON, default=dict)

    __table_args__ = (Index("ux_rag_chunks_document_index", "document_id", "chunk_index", unique=True),)


class KbInsightSettingsRow(Base):
    """Personalization (focus people, topics, about me) and the memory.txt document it renders to."""

    __tablename__ = "kb_insight_settings"

    user_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    focus_people: Mapped[list[str]] = mapped_column(JSON, default=list)
    topics: Mapped[list[str]] = mapped_column(JSON, default=list)
    about_me: Mapped[str] = mapped_column(Text, default="")
    updated_at: Mapped[int] = mapped_column(BigInteger)
    document_id: Mapped[str | None] = mapped_column(String(36), nullable=True)
