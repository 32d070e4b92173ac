"""Insights made searchable: one embedding per insight in LanceDB plus BM25 text in the keyword index."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.orm import Session

from app.core.clock import iso
from app.core.embeddings.base import Embedder
from app.core.search.fusion import rrf_fuse
from app.core.storage.db import Database
from app.core.storage.keyword import KeywordIndex
from app.core.storage.vectors import VectorCollection, VectorStore, sql_quote
from insights.model import InsightDraft

INSIGHT_KIND = "insight"
COLUMNS = ("user_id", "kind", "platform", "channel", "timestamp")


def document_text(draft: InsightDraft) -> str:
    """What gets embedded and keyword-indexed: the insight as a reader would describe it."""
    parts = [draft.title, draft.description, f"kind: {draft.kind.value.replace('_', ' ')}"]
    parts.append(f"label: {draft.task_label.replace('_', ' ')}")
    if draft.owner:
        parts.append(f"owner: {draft.owner}")
    if draft.due_at:
        parts.append(f"due: {iso(draft.due_at)}")
    parts.extend(draft.details)
    return "\n".join(parts)


class InsightIndex:
    def __init__(
        self, vectors: VectorStore, embedder: Embedder, keywords: KeywordIndex | None = None
    ) -> None:
        self._vectors = vectors
        self._embedder = embedder
        self._keywords = keywords or KeywordIndex()

    @property
    def collection(self) -> VectorCollection:
        return self._vectors.collection(
            INSIGHT_KIND, self._embedder.model_id, self._embedder.dimensions, COLUMNS
        )

    def index_keywords(
        self, session: Session, user_id: str, items: Sequence[tuple[str, InsightDraft]]
    ) -> None:
        """Inside the caller's write transaction, so the rows and their text commit together."""
        self._keywords.upsert(session, INSIGHT_KIND, user_id, [(i, document_text(d)) for i, d in items])

    def embed(self, user_id: str, items: Sequence[tuple[str, InsightDraft]]) -> None:
        """After the commit: vectors can always be rebuilt from SQLite, never the other way round."""
        if not items:
            return
        vectors = self._embedder.embed_documents([document_text(d) for _, d in items])
        rows = [
            {"user_id": user_id, "kind": d.kind.value, "platform": d.platform, "channel": d.channel,
             "timestamp": d.occurred_at}
            for _, d in items
        ]  # fmt: skip
        self.collection.upsert([i for i, _ in items], vectors, rows)

    def search(self, db: Database, user_id: str, query: str, limit: int) -> list[tuple[str, float]]:
        """Hybrid: vector and BM25 rankings fused by reciprocal rank; best first."""
        pool = max(limit * 3, 20)
        where = f"user_id = {sql_quote(user_id)}"
        vector_hits = self.collection.search(self._embedder.embed_query(query), pool, where)
        with db.read() as session:
            keyword_hits = self._keywords.search(session, INSIGHT_KIND, user_id, query, pool)
        fused = rrf_fuse([[h.key for h in vector_hits], [h.ref for h in keyword_hits]])
        return sorted(fused.items(), key=lambda kv: -kv[1])[:limit]

    def count(self) -> int:
        return self.collection.count()
