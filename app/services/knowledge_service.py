"""Knowledge-base use cases for every shell: add files, list, read, remove, search, personalization."""

from __future__ import annotations

import io
import threading
import zipfile
from collections.abc import Sequence
from pathlib import Path

from app.core.clock import Clock
from app.core.domain import SearchFilters, SearchHit
from app.core.embeddings.base import Embedder
from app.core.errors import InvalidInput, NotFound, PayloadTooLarge
from app.core.events import Change, EventBus
from app.core.index.lease import WriterLeases
from app.core.index.legs import FusionParams
from app.core.search.message_query import MessageQuery
from app.core.settings import Settings
from app.core.storage.db import Database
from app.core.storage.keyword import KeywordIndex
from app.core.storage.vectors import VectorStore
from knowledge_base.blobs import BlobStore
from knowledge_base.config import KbConfig
from knowledge_base.guards import check_size
from knowledge_base.maintenance import repair
from knowledge_base.memory_document import MemoryDocument
from knowledge_base.models import RagChunkRow
from knowledge_base.personalization import InsightSettings
from knowledge_base.search import ChunkSearcher
from knowledge_base.store import KnowledgeBase, Progress, RepairReport
from knowledge_base.values import ChunkHit, DocumentContent, DocumentInfo

DOCUMENTS_SOURCE = "documents"  # the name unified search uses for knowledge-base chunks
DOCUMENTS_PLATFORM = "knowledge_base"  # the platform a chunk hit reports (and a platform filter names)
_IWORK_BUNDLE_SUFFIXES = (".pages", ".numbers", ".key")


class KnowledgeService:
    def __init__(
        self,
        kb: KnowledgeBase,
        searcher: ChunkSearcher,
        *,
        events: EventBus | None = None,
    ) -> None:
        self.kb = kb
        self.searcher = searcher
        self.memory_document = MemoryDocument(kb)
        self.events = events

    @classmethod
    def build(
        cls,
        settings: Settings,
        db: Database,
        vectors: VectorStore,
        keywords: KeywordIndex,
        embedder: Embedder,
        clock: Clock,
        *,
        events: EventBus | None = None,
        leases: WriterLeases | None = None,
        fusion: FusionParams | None = None,
    ) -> KnowledgeService:
        """Wire the knowledge base from settings (`kb.*`, `user_id`, `search.rrf_k`) and the shared stores."""
        config = KbConfig.from_settings(settings.kb, user_id=settings.user_id, rrf_k=settings.search.rrf_k)
        layout = settings.layout
        blobs = BlobStore(layout.root, layout.documents)
        kb = KnowledgeBase(db, vectors, keywords, embedder, clock, blobs, config, leases=leases)
        return cls(kb, ChunkSearcher(db, kb.corpus, embedder, config, fusion=fusion), events=events)

    @property
    def config(self) -> KbConfig:
        return self.kb.config

    # -- documents ----------------------------------------------------------------------------
    def add_file(
        self,
        path: Path,
        *,
        progress: Progress | None = None,
        actor: str = "user",
        cancel: threading.Event | None = None,
    ) -> DocumentInfo:
        """Add a file from disk; an iWork package folder (macOS bundle) is read as its zip equivalent."""
        if path.is_dir():
            data = self._read_bundle(path)
        elif path.is_file():
            check_size(path.stat().st_size, path.name, self.config.limits)  # before reading it all
            data = path.read_bytes()
        else:
            raise NotFound(f"{path}: no such file", hint="check the path")
        return self.add_bytes(data, path.name, progress=progress, actor=actor, cancel=cancel)

    def add_bytes(
        self,
        data: bytes,
        file_name: str,
        *,
        progress: Progress | None = None,
        actor: str = "user",
        cancel: threading.Event | None = None,
    ) -> DocumentInfo:
        """Add one document. `progress(stage, done, total)` and `cancel` (set it from any thread to
        stop before the next section or embedding batch; Cancelled, nothing stored) are for long
        documents."""
        info = self.kb.add(data, file_name, progress=progress, actor=actor, cancel=cancel)
        self._publish("created", info.id)
        return info

    def list_documents(self, limit: int = 50, offset: int = 0) -> list[DocumentInfo]:
        return self.kb.list_documents(limit, offset)

    def count(self) -> int:
        return self.kb.count()

    def get(self, document_id: str) -> DocumentContent:
        return self.kb.get(document_id)

    def chunk(self, chunk_id: str) -> dict[str, object]:
        """One chunk's whole text with its document and position: what a chunk search hit points to."""
        with self.kb.db.read() as session:
            row = session.get(RagChunkRow, chunk_id)
            if row is None or row.user_id != self.kb.config.user_id:
                raise NotFound(f"no knowledge-base chunk {chunk_id!r}", hint="search again for current ids")
            info = self.kb.info(row.document_id)
            return {
                "chunkId": row.id,
                "documentId": row.document_id,
                "fileName": info.file_name,
                "chunkIndex": row.chunk_index,
                "totalChunks": info.total_chunks,
                "content": row.content,
            }

    def remove(self, document_id: str, *, actor: str = "user") -> DocumentInfo:
        info = self.kb.delete(document_id, actor=actor)
        self._publish("deleted", info.id)
        return info

    def search(
        self, query: str, limit: int | None = None, document_ids: Sequence[str] | None = None
    ) -> list[ChunkHit]:
        return self.searcher.search(query, limit, document_ids)

    def repair(self, *, full: bool = False) -> RepairReport:
        return repair(self.kb, full=full)

    # -- personalization ----------------------------------------------------------------------
    def insight_settings(self) -> tuple[InsightSettings, str | None]:
        return self.memory_document.get()

    def set_insight_settings(
        self, focus_people: Sequence[str] = (), topics: Sequence[str] = (), about_me: str = ""
    ) -> DocumentInfo | None:
        """Store personalization and re-render memory.txt; returns the memory.txt document (None if empty)."""
        _, old_id = self.memory_document.get()
        settings = InsightSettings.create(tuple(focus_people), tuple(topics), about_me)
        document = self.memory_document.set(settings)
        if old_id and (document is None or document.id != old_id):
            self._publish("deleted", old_id)
        if document is not None and document.id != old_id:
            self._publish("created", document.id)
        return document

    # -- unified search -----------------------------------------------------------------------
    def memory_hits(self, query: MessageQuery) -> list[SearchHit]:
        """Knowledge-base chunks as memory search hits (kind "chunk"), for `include=["documents"]`."""
        if not query.text.strip():
            return []
        document_ids = self._filtered_documents(query.filters)
        if document_ids == []:
            return []
        limit = max(1, min(query.limit, self.config.max_limit))
        # No cosine threshold here: unified search cuts every kind at one relevance floor instead.
        hits = self.searcher.search(query.text, limit, document_ids, threshold=-1.0)
        return [chunk_to_search_hit(hit) for hit in hits]

    def _filtered_documents(self, filters: SearchFilters) -> list[str] | None:
        """The documents a unified-search filter leaves (None: all of them), judged on the fields
        a chunk hit shows: no person (a document has no author), platform `knowledge_base`,
        the file name as channel, the upload time as date."""
        if filters.persons or (filters.platforms and DOCUMENTS_PLATFORM not in filters.platforms):
            return []
        if not filters.channels and filters.since is None and filters.until is None:
            return None
        kb = self.kb
        with kb.db.read() as session:
            return kb.repo.ids_where(
                session,
                kb.config.user_id,
                file_names=filters.channels,
                since=filters.since,
                until=filters.until,
            )

    # -- helpers ------------------------------------------------------------------------------
    def _read_bundle(self, path: Path) -> bytes:
        if path.suffix.lower() not in _IWORK_BUNDLE_SUFFIXES:
            raise InvalidInput(
                f"{path.name}: is a folder, not a file", hint="add the files inside it instead"
            )
        buffer = io.BytesIO()
        total = 0
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
            for member in sorted(p for p in path.rglob("*") if p.is_file()):
                total += member.stat().st_size
                if total > self.config.limits.max_file_bytes:
                    raise PayloadTooLarge(f"{path.name}: the package is over the size limit")
                archive.write(member, member.relative_to(path).as_posix())
        return buffer.getvalue()

    def _publish(self, action: str, document_id: str) -> None:
        if self.events is not None:
            self.events.publish(Change("document", action, (document_id,)))


def chunk_to_search_hit(hit: ChunkHit) -> SearchHit:
    """Provenance for unified search: the document (file name as channel), chunk index and location."""
    extra: dict[str, object] = {"file_name": hit.file_name, "chunk_index": hit.chunk_index}
    if hit.similarity is not None:
        extra["similarity"] = round(hit.similarity, 4)
    extra.update({k: v for k, v in hit.location.items() if k != "chars"})
    return SearchHit(
        id=f"chunk:{hit.chunk_id}",
        kind="chunk",
        content=hit.content,
        score=hit.score,
        platform=DOCUMENTS_PLATFORM,
        channel=hit.file_name,
        person=None,
        timestamp=hit.uploaded_at,
        tier=None,
        document_id=hit.document_id,
        extra=extra,
    )
