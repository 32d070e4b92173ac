"""Bring LanceDB and the documents folder back in line with SQLite (the source of truth)."""

from __future__ import annotations

import logging

from sqlalchemy import select

from knowledge_base.chunking import Chunk
from knowledge_base.models import RagChunkRow, RagDocumentRow
from knowledge_base.store import KnowledgeBase, RepairReport

log = logging.getLogger(__name__)


def repair(kb: KnowledgeBase) -> RepairReport:
    """Drop vectors and files no row refers to; re-embed documents stored under another model.

    Safe to run while nothing else writes to the knowledge base (start-up, `strata doctor`): an
    add in flight has its file and vectors written just before its rows, and would look orphaned.
    """
    with kb.db.read() as session:
        chunk_ids = kb.repo.all_chunk_ids(session)
        blob_paths = kb.repo.all_blob_paths(session)
        stale = list(
            session.scalars(
                select(RagDocumentRow.id).where(
                    (RagDocumentRow.embedding_model != kb.embedder.model_id)
                    | (RagDocumentRow.embedding_dimensions != kb.embedder.dimensions)
                )
            )
        )
    collection = kb.collection
    stored_keys = collection.keys() if collection.count() else []
    orphan_keys = [key for key in stored_keys if key not in chunk_ids]
    if orphan_keys:
        collection.delete(orphan_keys)
    orphan_files = [path for path in kb.blobs.stored() if path not in blob_paths]
    for path in orphan_files:
        kb.blobs.delete(path)
    for document_id in stale:
        reembed_document(kb, document_id)
    report = RepairReport(len(orphan_keys), len(orphan_files), len(stale))
    if orphan_keys or orphan_files or stale:
        log.warning("knowledge base repaired: %s", report)
    return report


def reembed_document(kb: KnowledgeBase, document_id: str) -> None:
    """Embed a document's stored chunks with the current model, then drop its old-model vectors."""
    with kb.db.read() as session:
        document = kb.require_row(session, document_id)
        old_model, old_dims = document.embedding_model, document.embedding_dimensions
        rows = list(
            session.scalars(
                select(RagChunkRow)
                .where(RagChunkRow.document_id == document_id)
                .order_by(RagChunkRow.chunk_index)
            )
        )
    chunks = [
        Chunk(r.chunk_index, r.content, {k: v for k, v in (r.metadata_ or {}).items() if k != "chars"})
        for r in rows
    ]
    vectors = kb.embedder.embed_documents([c.embedding_text for c in chunks])
    kb.upsert_vectors(kb.collection, [r.id for r in rows], vectors, document_id)

    def work(session):  # type: ignore[no-untyped-def]
        row = kb.require_row(session, document_id)
        row.embedding_model = kb.embedder.model_id
        row.embedding_dimensions = kb.embedder.dimensions

    kb.db.write_with_retry(work)
    if (old_model, old_dims) != (kb.embedder.model_id, kb.embedder.dimensions):
        kb.collection_for(old_model, old_dims).delete([r.id for r in rows])
