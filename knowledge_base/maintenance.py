"""Bring LanceDB, the keyword index and the documents folder back in line with SQLite."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.core import aaak
from app.core.index import maintenance
from app.core.index.corpus import IndexDoc
from app.core.index.maintenance import Progress
from knowledge_base.chunking import Chunk
from knowledge_base.models import RagChunkRow, RagDocumentRow
from knowledge_base.store import KnowledgeBase, RepairReport

log = logging.getLogger(__name__)


def chunk_doc(row: RagChunkRow) -> IndexDoc:
    location = {k: v for k, v in (row.metadata_ or {}).items() if k != "chars"}
    text = Chunk(row.chunk_index, row.content, location).embedding_text
    return IndexDoc(
        key=row.id,
        user_id=row.user_id,
        document=text,
        keyword_text=text,
        content_hash=aaak.content_hash(text),
        columns={"document_id": row.document_id},
    )


class ChunkSource:
    """rag_chunks as the corpus's source of truth; the model is stamped per document."""

    def __init__(self) -> None:
        self.stamped_documents: set[str] = set()

    def keys(self, session: Session) -> set[str]:
        return set(session.scalars(select(RagChunkRow.id)))

    def unembedded(self, session: Session, model_id: str, dimensions: int) -> list[str]:
        stale = select(RagDocumentRow.id).where(
            (RagDocumentRow.embedding_model != model_id) | (RagDocumentRow.embedding_dimensions != dimensions)
        )
        return list(session.scalars(select(RagChunkRow.id).where(RagChunkRow.document_id.in_(stale))))

    def documents(self, session: Session, keys: Sequence[str]) -> list[IndexDoc]:
        rows = session.scalars(select(RagChunkRow).where(RagChunkRow.id.in_(list(keys))))
        return [chunk_doc(r) for r in rows]

    def restamp(self, session: Session, old_model: str, model_id: str, dimensions: int) -> None:
        session.execute(
            update(RagDocumentRow)
            .where(RagDocumentRow.embedding_model == old_model)
            .values(embedding_model=model_id, embedding_dimensions=dimensions)
        )

    def stamp(self, session: Session, docs: Sequence[IndexDoc], model_id: str, dimensions: int) -> None:
        ids = sorted({str(d.columns["document_id"]) for d in docs})
        if ids:
            session.execute(
                update(RagDocumentRow)
                .where(RagDocumentRow.id.in_(ids))
                .values(embedding_model=model_id, embedding_dimensions=dimensions)
            )
            self.stamped_documents.update(ids)


def repair(kb: KnowledgeBase, *, full: bool = False, progress: Progress | None = None) -> RepairReport:
    """Re-embed chunks without a current vector, drop vectors and files no row refers to.

    Deferred while another process adds a document (its file and vectors exist before its rows)."""
    current = (kb.embedder.model_id, kb.embedder.dimensions)
    with kb.db.read() as session:
        blob_paths = kb.repo.all_blob_paths(session)
        # Documents embedded by another model: their old vectors go once the new ones exist.
        previous = {
            r.id: (r.embedding_model, r.embedding_dimensions)
            for r in session.scalars(select(RagDocumentRow))
            if (r.embedding_model, r.embedding_dimensions) != current
        }
    source = ChunkSource()
    report = maintenance.repair(kb.db, kb.corpus, source, full=full, progress=progress)
    if report.deferred_for:
        return RepairReport(kind=report)
    for document_id in sorted(source.stamped_documents & set(previous)):
        model_id, dimensions = previous[document_id]
        with kb.db.read() as session:
            ids = kb.repo.chunk_ids(session, document_id)
        kb.corpus.remove_vectors(ids, kb.collection_for(model_id, dimensions))
    orphan_files = [path for path in kb.blobs.stored() if path not in blob_paths]
    for path in orphan_files:
        kb.blobs.delete(path)
    result = RepairReport(report.orphans_removed, len(orphan_files), len(source.stamped_documents), report)
    if report.reembedded or orphan_files or report.orphans_removed:
        log.warning("knowledge base repaired: %s", result)
    return result
