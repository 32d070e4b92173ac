"""Hybrid chunk search over the chunk corpus: cosine similarity (≥ the gate) + BM25, one fusion.

The similarity gate applies to the semantic side. The specification's 0.7 cosine was set for
text-embedding-3-small; for other models the setting is mapped onto the active model's
calibrated scale (`relevance.similarity_gate`: the default asks a meaning-only match to reach
the relevance floor). Keyword matches on the query's terms are admitted on their own (`hybrid`,
default on): an exact name or figure in a document is strong evidence even when the embedding
disagrees. `hybrid = false` gives the specification's pure vector search. Every hit reports its
raw cosine (`similarity`) whenever the chunk has a vector, whether or not it passed the gate.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from app.core.embeddings.base import Embedder
from app.core.errors import InvalidInput, NotFound
from app.core.index.corpus import Corpus
from app.core.index.filters import Eq, Filter, one_of
from app.core.index.legs import FusionParams, LegHit, Legs, fuse
from app.core.search.relevance import similarity_gate
from app.core.storage.db import Database
from knowledge_base.config import KbConfig
from knowledge_base.repository import DocumentRepository
from knowledge_base.values import ChunkHit


class ChunkSearcher:
    def __init__(
        self,
        db: Database,
        corpus: Corpus,
        embedder: Embedder,
        config: KbConfig | None = None,
        *,
        fusion: FusionParams | None = None,
    ) -> None:
        self.fusion = fusion or FusionParams()
        self.db = db
        self.corpus = corpus
        self.embedder = embedder
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
        if threshold is None:
            threshold = self.gate()
        ids = sorted(set(document_ids or ()))
        if ids:
            self._check_documents(ids)
        pool = max(self.config.candidate_pool, limit * 4)
        where = Filter((Eq("user_id", self.config.user_id),)).and_(one_of("document_id", ids))
        vector = self.embedder.embed_query(text)
        vector_leg = self.corpus.vector_leg(vector, pool, where)
        similarities = {h.key: h.value for h in vector_leg}
        # The gate applies to the semantic side; ranks are renumbered over what passed.
        vector_leg = tuple(
            LegHit(h.key, rank, h.value)
            for rank, h in enumerate((h for h in vector_leg if h.value >= threshold), start=1)
        )
        keyword_leg: tuple[LegHit, ...] = ()
        if self.config.hybrid:
            with self.db.read() as session:
                keyword_leg = self.corpus.keyword_leg(session, self.config.user_id, text, pool, where)
        legs = Legs(vector=vector_leg, keyword=keyword_leg)
        if not legs.keys:
            return []
        # Keyword-only matches outside the vector pool still report their cosine.
        similarities |= self._cosines(vector, [k for k in legs.keys if k not in similarities])
        with self.db.read() as session:
            chunks = self.repo.chunks_by_ids(session, legs.keys)
            documents = self.repo.documents_by_ids(session, sorted({c.document_id for c in chunks.values()}))
        fused = fuse(
            legs,
            query=text,
            # The heading path ("Press kit > Legal") is part of what a passage is about.
            texts={k: f"{(c.metadata_ or {}).get('heading', '')} {c.content}" for k, c in chunks.items()},
            params=self.fusion,
        )
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

    def gate(self) -> float:
        """The raw cosine a vector match needs: `similarity_threshold` on the active model's scale."""
        fusion = self.fusion.config
        return similarity_gate(
            self.config.similarity_threshold, self.embedder.model_id, fusion.relevance, fusion.floor
        )

    def _cosines(self, vector: np.ndarray, keys: Sequence[str]) -> dict[str, float]:
        """Cosines of `keys` from the in-memory vector copy (the vector leg has just loaded it)."""
        view = self.corpus.matrix().view() if keys else None
        if view is None:
            return {}
        wanted = np.isin(view.keys, np.asarray(keys, dtype=object))
        if view.alive is not None:  # a chunk deleted since the copy was loaded keeps its old row
            wanted &= view.alive
        rows = np.flatnonzero(wanted)
        scores = view.matrix[rows] @ vector.astype(np.float32)
        return {str(view.keys[r]): float(s) for r, s in zip(rows, scores, strict=True)}

    def _check_documents(self, ids: list[str]) -> None:
        with self.db.read() as session:
            known = self.repo.existing_ids(session, self.config.user_id, ids)
        missing = [i for i in ids if i not in known]
        if missing:
            raise NotFound(
                f"unknown knowledge-base document id(s): {', '.join(missing)}",
                hint="list documents with `strata kb list` or listKnowledgeBaseDocuments",
            )
