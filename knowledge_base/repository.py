"""SQL for the knowledge-base tables: batched chunk inserts, lookups, listing, deletion."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, func, insert, select
from sqlalchemy.orm import Session

from app.core.storage.db import chunked
from knowledge_base.models import KbInsightSettingsRow, RagChunkRow, RagDocumentRow
from knowledge_base.values import DocumentInfo


def to_info(row: RagDocumentRow) -> DocumentInfo:
    return DocumentInfo(
        id=row.id,
        user_id=row.user_id,
        file_name=row.file_name,
        content_type=row.content_type,
        format=row.format,
        size_bytes=row.size_bytes,
        total_chunks=row.total_chunks,
        uploaded_at=row.uploaded_at,
        content_hash=row.content_hash,
        blob_path=row.blob_path,
        metadata=dict(row.metadata_ or {}),
    )


class DocumentRepository:
    def __init__(self, insert_batch_size: int = 1000) -> None:
        self.insert_batch_size = max(1, insert_batch_size)

    def add(self, session: Session, document: RagDocumentRow, chunks: Sequence[dict[str, Any]]) -> None:
        """Insert the document, then its chunks in executemany batches (spec: batches of 1000)."""
        session.add(document)
        session.flush()
        for start in range(0, len(chunks), self.insert_batch_size):
            session.execute(insert(RagChunkRow), list(chunks[start : start + self.insert_batch_size]))

    def by_hash(self, session: Session, user_id: str, content_hash: str) -> RagDocumentRow | None:
        return session.scalars(
            select(RagDocumentRow).where(
                RagDocumentRow.user_id == user_id, RagDocumentRow.content_hash == content_hash
            )
        ).first()

    def get(self, session: Session, user_id: str, document_id: str) -> RagDocumentRow | None:
        row = session.get(RagDocumentRow, document_id)
        return row if row is not None and row.user_id == user_id else None

    def recent(self, session: Session, user_id: str, limit: int, offset: int = 0) -> list[RagDocumentRow]:
        """Most recently uploaded first (the MCP tool lists "recently uploaded documents")."""
        return list(
            session.scalars(
                select(RagDocumentRow)
                .where(RagDocumentRow.user_id == user_id)
                .order_by(RagDocumentRow.uploaded_at.desc(), RagDocumentRow.id)
                .limit(limit)
                .offset(offset)
            )
        )

    def count(self, session: Session, user_id: str) -> int:
        stmt = select(func.count()).select_from(RagDocumentRow).where(RagDocumentRow.user_id == user_id)
        return int(session.scalar(stmt) or 0)

    def ids_where(
        self,
        session: Session,
        user_id: str,
        *,
        file_names: Sequence[str] = (),
        since: int | None = None,
        until: int | None = None,
    ) -> list[str]:
        """Documents named one of `file_names` (when given) uploaded within [since, until] (ms, inclusive)."""
        stmt = select(RagDocumentRow.id).where(RagDocumentRow.user_id == user_id)
        if file_names:
            stmt = stmt.where(RagDocumentRow.file_name.in_(list(file_names)))
        if since is not None:
            stmt = stmt.where(RagDocumentRow.uploaded_at >= since)
        if until is not None:
            stmt = stmt.where(RagDocumentRow.uploaded_at <= until)
        return list(session.scalars(stmt.order_by(RagDocumentRow.id)))

    def existing_ids(self, session: Session, user_id: str, ids: Sequence[str]) -> set[str]:
        found: set[str] = set()
        for part in chunked(list(ids)):
            found.update(
                session.scalars(
                    select(RagDocumentRow.id).where(
                        RagDocumentRow.user_id == user_id, RagDocumentRow.id.in_(part)
                    )
                )
            )
        return found

    def chunk_ids(self, session: Session, document_id: str) -> list[str]:
        return list(
            session.scalars(
                select(RagChunkRow.id)
                .where(RagChunkRow.document_id == document_id)
                .order_by(RagChunkRow.chunk_index)
            )
        )

    def chunks_by_ids(self, session: Session, ids: Sequence[str]) -> dict[str, RagChunkRow]:
        rows: dict[str, RagChunkRow] = {}
        for part in chunked(list(ids)):
            rows.update(
                (r.id, r) for r in session.scalars(select(RagChunkRow).where(RagChunkRow.id.in_(part)))
            )
        return rows

    def documents_by_ids(self, session: Session, ids: Sequence[str]) -> dict[str, RagDocumentRow]:
        rows: dict[str, RagDocumentRow] = {}
        for part in chunked(list(ids)):
            rows.update(
                (r.id, r) for r in session.scalars(select(RagDocumentRow).where(RagDocumentRow.id.in_(part)))
            )
        return rows

    def delete(self, session: Session, document_id: str) -> None:
        # Explicit chunk delete: SQLite only cascades when foreign keys are on, and we do not rely on it.
        session.execute(delete(RagChunkRow).where(RagChunkRow.document_id == document_id))
        session.execute(delete(RagDocumentRow).where(RagDocumentRow.id == document_id))

    def all_chunk_ids(self, session: Session) -> set[str]:
        return set(session.scalars(select(RagChunkRow.id)))

    def all_blob_paths(self, session: Session) -> set[str]:
        return set(session.scalars(select(RagDocumentRow.blob_path)))

    # -- insight settings ---------------------------------------------------------------------
    def settings(self, session: Session, user_id: str) -> KbInsightSettingsRow | None:
        return session.get(KbInsightSettingsRow, user_id)
