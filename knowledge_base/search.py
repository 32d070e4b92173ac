"""Hybrid chunk search: LanceDB cosine similarity (≥ threshold) + FTS5 BM25, fused by reciprocal rank fusion.

The similarity threshold (spec: 0.7) applies to the semantic side. Keyword matches on the
query's terms are admitted on their own (`hybrid`, default on): an exact name or figure in a
document is strong evidence even when the embedding disagrees. `hybrid = false` gives the
specification's pure vector search.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.core.embeddings.base import Embedder
from app.core.errors import InvalidInput, NotFound
from app.core.search.fusion import rrf_fuse
from app.core.storage.db import Database
from app.core.storage.keyword import KeywordIndex
from app.core.storage.vectors import VectorCollection, sql_quote
from knowledge_base.config import CHUNK_KIND, KbConfig
from knowledge_base.repository import DocumentRepository
from knowledge_base.values import ChunkHit


class ChunkSearcher:
    def __init__(
        self,
        db: Database,
        keywords: KeywordIndex,
        embedder: Embedder,
        collection: VectorCollection,
        config: KbConfig | None = None,
    ) -> None:
        self.db = db
        self.keywords = keywords
        self.embedder = embedder
        self.collection = collection
        self.config = config or KbConfig()
        self.repo = DocumentRepository()

    def search(
        self,
        query: str,
        limit: int | None = None,
        document_ids: Sequence[str] | None = None,
        *,
        threshold: float | None = None,
    ) -> list[ChunkHit]:
        """Best chunks for `query`, at most `limit` (default 5), optionally only from `document_ids`."""
        text = query.strip()
        if not text:
            raise InvalidInput("the search query is empty", hint="pass some words to look for")
        limit = self.config.default_limit if limit is None else limit
        if not 1 <= limit <= self.config.max_limit:
            raise InvalidInput(f"limit must be between 1 and {self.config.max_limit}, got {limit}")
        threshold = self.config.similarity_threshold if threshold is None else threshold
        ids = sorted(set(document_ids or ()))
        if ids:
            self._check_documents(ids)
        pool = max(self.config.candidate_pool, limit * 4)
        similarities = self._vector_candidates(text, pool, ids, threshold)
        keyword_ranked = self._keyword_candidates(text, pool, ids) if self.config.hybrid else []
        fused = rrf_fuse([list(similarities), keyword_ranked], k=self.config.rrf_k)
        if not fused:
            return []
        with self.db.read() as session:
            chunks = self.repo.chunks_by_ids(session, list(fused))
            documents = self.repo.documents_by_ids(session, sorted({c.document_id for c in chunks.values()}))
        hits: list[ChunkHit] = []
        for chunk_id, score in fused.items():
            chunk = chunks.get(chunk_id)
            # A vector whose rows are gone (failed add, crash) or a row of another user: skip it.
            if chunk is None or chunk.user_id != self.config.user_id:
                continue
            document = documents.get(chunk.document_id)
            if document is None or (ids and chunk.document_id not in ids):
                continue
            hits.append(
                ChunkHit(
                    chunk_id=chunk.id,
                    document_id=chunk.document_id,
                    file_name=document.file_name,
                    chunk_index=chunk.chunk_index,
                    content=chunk.content,
                    score=score,
                    similarity=similarities.get(chunk_id),
                    uploaded_at=document.uploaded_at,
                    location=dict(chunk.metadata_ or {}),
                )
            )
        hits.sort(key=lambda h: (-h.score, -(h.similarity or 0.0), h.document_id, h.chunk_index))
        return hits[:limit]

    def _check_documents(self, ids: list[str]) -> None:
        with self.db.read() as session:
            known = self.repo.existing_ids(session, self.config.user_id, ids)
        missing = [i for i in ids if i not in known]
        if missing:
            raise NotFound(
                f"unknown knowledge-base document id(s): {', '.join(missing)}",
                hint="list documents with `strata kb list` or listKnowledgeBaseDocuments",
            )

    def _vector_candidates(self, text: str, pool: int, ids: list[str], threshold: float) -> dict[str, float]:
        """Chunk id → cosine similarity, best first, only at or above the threshold."""
        where = f"user_id = {sql_quote(self.config.user_id)}"
        if ids:
            where += " AND document_id IN (" + ", ".join(sql_quote(i) for i in ids) + ")"
        hits = self.collection.search(self.embedder.embed_query(text), pool, where)
        return {h.key: h.similarity for h in hits if h.similarity >= threshold}

    def _keyword_candidates(self, text: str, pool: int, ids: list[str]) -> list[str]:
        params: dict[str, object] = {f"d{i}": value for i, value in enumerate(ids)}
        join = where = ""
        if ids:
            # Join rag_chunks only to filter: on large indexes the join costs as much as the match.
            join = "JOIN rag_chunks c ON c.id = keyword_fts.ref"
            where = " AND c.document_id IN (" + ", ".join(f":d{i}" for i in range(len(ids))) + ")"
        with self.db.read() as session:
            hits = self.keywords.search(
                session,
                CHUNK_KIND,
                self.config.user_id,
                text,
                pool,
                join_sql=join,
                where_sql=where,
                params=params,
            )
        return [h.ref for h in hits]
