"""The knowledge base: add (parse → split → embed → store), read, list, delete, repair.

An add is all or nothing. Everything that can fail on bad input (size, zip bomb, detection,
parsing, the character and chunk limits, empty text) runs, section by section, before the first
write; then the vectors are written as they are embedded, the original file, and finally the
SQLite rows (document, chunks, keyword entries, one transaction). The SQLite commit is what
makes a document exist: if any step fails, the steps before it are undone, and a crash in between
leaves only orphans that search ignores and `repair` removes.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import PurePath, PureWindowsPath
from typing import Any

import numpy as np
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session

from app.core.clock import Clock
from app.core.embeddings.base import Embedder
from app.core.errors import Conflict, InvalidInput, NotFound, StorageError
from app.core.index.corpus import Corpus
from app.core.index.lease import WriterLeases
from app.core.index.maintenance import KindReport
from app.core.privacy.injection import FLAG as INJECTION_FLAG
from app.core.privacy.injection import injection_signals
from app.core.storage import audit
from app.core.storage.db import Database
from app.core.storage.keyword import KeywordIndex
from app.core.storage.vectors import VectorCollection, VectorStore
from knowledge_base.blobs import BlobStore
from knowledge_base.budget import check_cancel
from knowledge_base.chunking import Chunk, Chunker
from knowledge_base.config import CHUNK_SPEC, KbConfig
from knowledge_base.models import RagDocumentRow
from knowledge_base.parsing import nested_too_deeply, open_document
from knowledge_base.reading import Progress, read_document
from knowledge_base.repository import DocumentRepository, to_info
from knowledge_base.values import DocumentContent, DocumentInfo

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RepairReport:
    orphan_vectors: int = 0
    orphan_files: int = 0
    reembedded_documents: int = 0
    # The corpus's per-kind account (doctor prints it); not part of the equality of two reports.
    kind: KindReport | None = field(default=None, compare=False)


def clean_file_name(name: str) -> str:
    """The base name only (uploads may carry client paths, Windows or POSIX); never empty."""
    base = PurePath(PureWindowsPath(name).name).name.strip().replace("\x00", "")
    if not base or base in (".", ".."):
        raise InvalidInput("the file needs a name", hint="upload it with its file name")
    return base[:255]


class KnowledgeBase:
    def __init__(
        self,
        db: Database,
        vectors: VectorStore,
        keywords: KeywordIndex,
        embedder: Embedder,
        clock: Clock,
        blobs: BlobStore,
        config: KbConfig | None = None,
        *,
        leases: WriterLeases | None = None,
    ) -> None:
        self.db = db
        self.vectors = vectors
        self.keywords = keywords
        self.embedder = embedder
        self.clock = clock
        self.blobs = blobs
        self.config = config or KbConfig()
        self.repo = DocumentRepository(self.config.insert_batch_size)
        self.chunker = Chunker(self.config.chunk_size, self.config.chunk_overlap)
        self.corpus = Corpus(CHUNK_SPEC, vectors, embedder, keywords, leases=leases)

    @property
    def collection(self) -> VectorCollection:
        return self.corpus.collection

    def collection_for(self, model_id: str, dimensions: int) -> VectorCollection:
        return self.corpus.collection_for(model_id, dimensions)

    # -- add ----------------------------------------------------------------------------------
    def add(
        self,
        data: bytes,
        file_name: str,
        *,
        progress: Progress | None = None,
        extra_metadata: dict[str, Any] | None = None,
        actor: str = "user",
        cancel: threading.Event | None = None,
    ) -> DocumentInfo:
        """Store one document; raises InvalidInput subclasses or Conflict (duplicate), storing nothing.

        `progress(stage, done, total)` reports "parse" (the parser's units: pages, slides, rows or
        bytes; total 0 when unknown), "embed" (chunks) and "store"; setting `cancel` stops the add
        before the next section, the next embedding batch or storing (Cancelled, nothing stored)."""
        # File and vectors are written before the rows: another process's repair must not take
        # them for orphans meanwhile.
        with self.corpus.writing():
            return self._add(data, file_name, progress, extra_metadata, actor, cancel)

    def _add(
        self,
        data: bytes,
        file_name: str,
        progress: Progress | None,
        extra_metadata: dict[str, Any] | None,
        actor: str,
        cancel: threading.Event | None = None,
    ) -> DocumentInfo:
        file_name = clean_file_name(file_name)
        report = progress or (lambda _stage, _done, _total: None)
        content_hash = hashlib.sha256(data).hexdigest()
        user_id = self.config.user_id
        with self.db.read() as session:
            existing = self.repo.by_hash(session, user_id, content_hash)
        if existing is not None:
            raise _duplicate(file_name, existing)
        stream = open_document(data, file_name, self.config.limits)
        report("parse", 0, stream.total)
        try:
            reading = read_document(
                stream, file_name, self.config.limits, chunker=self.chunker, progress=report, cancel=cancel
            )
        except RecursionError as exc:
            raise nested_too_deeply(file_name) from exc
        parsed, chunks = reading.document, reading.chunks
        report("parse", stream.total, stream.total)
        document_id = uuid.uuid4().hex
        chunk_ids = [f"{document_id}:{c.index}" for c in chunks]
        collection = self.collection
        blob_path = self.blobs.relative_path(document_id, file_name)
        try:
            # Vectors go to the collection as they are made: they are orphans (ignored by search,
            # removed by repair) until the rows below commit, and undone if anything fails first.
            self._embed_and_store(collection, chunks, chunk_ids, document_id, report, cancel, file_name)
            check_cancel(cancel, file_name)
        except BaseException:
            self._undo(collection, chunk_ids, blob_path)
            raise
        now = self.clock.now_ms()
        # Flag, never block: a document that reads like instructions to a model is marked untrusted.
        full_text = parsed.full_text()
        signals = injection_signals(full_text)
        flags = {"flags": [INJECTION_FLAG]} if signals else {}
        row = RagDocumentRow(
            id=document_id,
            user_id=user_id,
            file_name=file_name,
            content_type=parsed.content_type,
            size_bytes=len(data),
            total_chunks=len(chunks),
            blob_path=blob_path,
            uploaded_at=now,
            metadata_={**parsed.metadata, **(extra_metadata or {}), **flags},
            content_hash=content_hash,
            format=parsed.format.value,
            content=full_text,
            embedding_model=self.embedder.model_id,
            embedding_dimensions=self.embedder.dimensions,
        )
        chunk_rows = [
            {
                "id": cid,
                "document_id": document_id,
                "user_id": user_id,
                "chunk_index": c.index,
                "content": c.content,
                "metadata_": c.metadata(),
            }
            for cid, c in zip(chunk_ids, chunks, strict=True)
        ]
        info = to_info(row)
        report("store", 0, 1)
        try:
            self.blobs.write(row.blob_path, data)

            def work(session: Session) -> None:
                self.repo.add(session, row, chunk_rows)
                audit.record(
                    session,
                    user_id=user_id,
                    at=now,
                    actor=actor,
                    action="kb_add",
                    entity_type="rag_document",
                    entity_id=document_id,
                    details={"fileName": file_name, "chunks": len(chunks)},
                )
                if signals:
                    audit.record(
                        session, user_id=user_id, at=now, actor=actor, action="flag",
                        entity_type="rag_document", entity_id=document_id,
                        details={"flags": [INJECTION_FLAG], "signals": signals},
                    )  # fmt: skip
                self.corpus.index_text(
                    session,
                    user_id,
                    [(cid, c.embedding_text) for cid, c in zip(chunk_ids, chunks, strict=True)],
                )

            self.db.write_with_retry(work)
        except BaseException as exc:
            self._undo(collection, chunk_ids, row.blob_path)
            if isinstance(exc, IntegrityError):
                # Another process added the same bytes between our check and our commit.
                with self.db.read() as session:
                    existing = self.repo.by_hash(session, user_id, content_hash)
                if existing is not None:
                    raise _duplicate(file_name, existing) from exc
            if isinstance(exc, SQLAlchemyError):
                raise StorageError(f"{file_name}: could not store the document ({exc})") from exc
            raise
        report("store", 1, 1)
        return info

    def _embed_and_store(
        self,
        collection: VectorCollection,
        chunks: list[Chunk],
        chunk_ids: list[str],
        document_id: str,
        report: Progress,
        cancel: threading.Event | None,
        file_name: str,
    ) -> None:
        """Embed in small batches (ONNX's peak grows with the batch) and write the vectors in large
        ones (each LanceDB write is a fragment), so at most one write batch of vectors is held."""
        step = max(1, self.config.embed_batch_size)
        flush_at = max(step, self.config.insert_batch_size)
        pending: list[np.ndarray] = []
        written = 0
        report("embed", 0, len(chunks))
        for start in range(0, len(chunks), step):
            check_cancel(cancel, file_name)
            part = chunks[start : start + step]
            pending.append(
                np.asarray(self.embedder.embed_documents([c.embedding_text for c in part]), np.float32)
            )
            done = start + len(part)
            if done - written >= flush_at or done == len(chunks):
                self.upsert_vectors(collection, chunk_ids[written:done], np.concatenate(pending), document_id)
                pending.clear()
                written = done
            report("embed", done, len(chunks))

    def upsert_vectors(
        self, collection: VectorCollection, keys: list[str], vectors: np.ndarray, document_id: str
    ) -> None:
        step = max(1, self.config.insert_batch_size)
        column_values = {"user_id": self.config.user_id, "document_id": document_id}
        for start in range(0, len(keys), step):
            part = keys[start : start + step]
            collection.upsert(part, vectors[start : start + step], [column_values] * len(part))

    def _undo(self, collection: VectorCollection | None, chunk_ids: list[str], blob_path: str) -> None:
        """Best-effort rollback of the non-SQLite writes of a failed add (repair catches the rest)."""
        if collection is not None:
            try:
                collection.delete(chunk_ids)
            except Exception:
                log.warning("could not remove vectors of a failed upload; repair will", exc_info=True)
        self.blobs.delete(blob_path)

    # -- read ---------------------------------------------------------------------------------
    def get(self, document_id: str) -> DocumentContent:
        with self.db.read() as session:
            row = self.require_row(session, document_id)
            return DocumentContent(info=to_info(row), content=row.content)

    def info(self, document_id: str) -> DocumentInfo:
        with self.db.read() as session:
            return to_info(self.require_row(session, document_id))

    def list_documents(self, limit: int = 50, offset: int = 0) -> list[DocumentInfo]:
        if limit < 1 or offset < 0:
            raise InvalidInput("limit must be at least 1 and offset not negative")
        with self.db.read() as session:
            return [to_info(r) for r in self.repo.recent(session, self.config.user_id, limit, offset)]

    def count(self) -> int:
        with self.db.read() as session:
            return self.repo.count(session, self.config.user_id)

    def read_original(self, document_id: str) -> bytes:
        return self.blobs.read(self.info(document_id).blob_path)

    def require_row(self, session: Session, document_id: str) -> RagDocumentRow:
        row = self.repo.get(session, self.config.user_id, document_id)
        if row is None:
            raise NotFound(
                f"no knowledge-base document with id {document_id!r}",
                hint="list documents with `strata kb list` or listKnowledgeBaseDocuments",
            )
        return row

    # -- delete -------------------------------------------------------------------------------
    def delete(self, document_id: str, *, actor: str = "user") -> DocumentInfo:
        """Remove rows and keyword entries (one transaction), then vectors, then the original file."""

        def work(session: Session) -> tuple[DocumentInfo, list[str], str, int]:
            row = self.require_row(session, document_id)
            ids = self.repo.chunk_ids(session, document_id)
            self.corpus.unindex_text(session, ids)
            found = (to_info(row), ids, row.embedding_model, row.embedding_dimensions)
            self.repo.delete(session, document_id)
            audit.record(
                session,
                user_id=row.user_id,
                at=self.clock.now_ms(),
                actor=actor,
                action="kb_delete",
                entity_type="rag_document",
                entity_id=document_id,
                details={"fileName": row.file_name},
            )
            return found

        info, ids, model_id, dimensions = self.db.write_with_retry(work)
        try:
            self.collection_for(model_id, dimensions).delete(ids)
        except Exception:
            # The rows are gone, so search already ignores these vectors; repair removes them.
            log.warning(
                "vectors of deleted document %s remain; repair will remove them", document_id, exc_info=True
            )
        self.blobs.delete(info.blob_path)
        return info


def _duplicate(file_name: str, existing: RagDocumentRow) -> Conflict:
    return Conflict(
        f"{file_name}: the same file is already in the knowledge base as {existing.file_name!r} "
        f"(id {existing.id})",
        hint="remove that document first if you want to add it again",
    )
