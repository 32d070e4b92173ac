"""Summaries as search results: their vectors (LanceDB) and BM25 entries, and the fallback search."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import bindparam, or_, select, update

from app.core import aaak
from app.core.clock import Clock
from app.core.domain import SearchFilters, SearchHit
from app.core.embeddings.base import Embedder
from app.core.search.fusion import rrf_fuse
from app.core.storage.db import Database, chunked
from app.core.storage.keyword import KeywordIndex
from app.core.storage.models import MemorySummaryRow
from app.core.storage.vectors import VectorCollection, VectorStore, sql_quote

SUMMARY_KIND = "summary"
SUMMARY_VECTOR_COLUMNS = ("user_id", "platform", "channel", "person", "tier", "timestamp")
MAX_SOURCE_IDS_IN_HIT = 50


def encode_summary(row: MemorySummaryRow) -> aaak.EncodedRecord:
    """A summary is embedded as an AAAK document too: its text, key points and keywords."""
    dims = row.dimensions or {}
    body = " ".join([row.summary_text, *(row.key_points or []), row.keywords_text])
    return aaak.encode_record(
        content=body,
        timestamp=row.end_timestamp,
        tier=row.summary_tier,
        platform=dims.get("platform"),
        channel=dims.get("channel"),
        person=dims.get("person"),
        bot_id=dims.get("botId"),
        metadata={"kind": "summary", "messageCount": row.message_count, "sourceTier": row.source_tier},
    )


class SummaryIndex:
    def __init__(
        self,
        db: Database,
        vectors: VectorStore,
        embedder: Embedder,
        clock: Clock,
        *,
        keywords: KeywordIndex | None = None,
        rrf_k: int = 60,
    ) -> None:
        self.db = db
        self.vectors = vectors
        self.embedder = embedder
        self.clock = clock
        self.keywords = keywords or KeywordIndex()
        self.rrf_k = rrf_k

    @property
    def collection(self) -> VectorCollection:
        return self.vectors.collection(
            "summaries", self.embedder.model_id, self.embedder.dimensions, SUMMARY_VECTOR_COLUMNS
        )

    def embed_pending(self, user_id: str | None = None, batch: int = 128) -> int:
        """Embed summaries without a current vector (new, or left by a crash); returns how many."""
        model = self.embedder.model_id
        with self.db.read() as session:
            stmt = select(MemorySummaryRow.summary_id).where(
                or_(
                    MemorySummaryRow.embedding_content_hash.is_(None),
                    MemorySummaryRow.embedding_model.is_(None),
                    MemorySummaryRow.embedding_model != model,
                )
            )
            if user_id is not None:
                stmt = stmt.where(MemorySummaryRow.user_id == user_id)
            ids = list(session.scalars(stmt))
        done = 0
        for part in chunked(ids, batch):
            done += self.embed(part)
        return done

    def embed(self, summary_ids: Sequence[str]) -> int:
        if not summary_ids:
            return 0
        with self.db.read() as session:
            rows = list(
                session.scalars(
                    select(MemorySummaryRow).where(MemorySummaryRow.summary_id.in_(list(summary_ids)))
                )
            )
        if not rows:
            return 0
        encoded = [encode_summary(r) for r in rows]
        vectors = self.embedder.embed_documents([e.document for e in encoded])
        self.collection.upsert(
            [r.summary_id for r in rows],
            vectors,
            [
                {
                    "user_id": r.user_id,
                    "platform": (r.dimensions or {}).get("platform"),
                    "channel": (r.dimensions or {}).get("channel"),
                    "person": (r.dimensions or {}).get("person"),
                    "tier": r.summary_tier,
                    "timestamp": r.end_timestamp,
                }
                for r in rows
            ],
        )
        stamp = (
            update(MemorySummaryRow)
            .where(MemorySummaryRow.summary_id == bindparam("sid"))
            .values(embedding_model=self.embedder.model_id, embedding_content_hash=bindparam("hash"))
        )
        with self.db.write() as session:
            session.connection().execute(
                stamp,
                [{"sid": r.summary_id, "hash": e.content_hash} for r, e in zip(rows, encoded, strict=True)],
            )
        return len(rows)

    def delete_vectors(self, summary_ids: Sequence[str]) -> None:
        if summary_ids:
            self.collection.delete(list(summary_ids))

    def search(self, user_id: str, text: str, filters: SearchFilters, limit: int) -> list[SearchHit]:
        """Hybrid search over summaries (vectors + keywordsText/summary BM25), filtered like messages."""
        text = text.strip()
        if not text:
            return []
        pool = max(20, limit * 3)
        where = [f"user_id = {sql_quote(user_id)}"]
        if filters.since is not None:
            where.append(f"timestamp >= {int(filters.since)}")  # timestamp holds endTimestamp
        vector_ranked = [
            h.key for h in self.collection.search(self.embedder.embed_query(text), pool, " AND ".join(where))
        ]
        with self.db.read() as session:
            keyword_ranked = [h.ref for h in self.keywords.search(session, SUMMARY_KIND, user_id, text, pool)]
        fused = rrf_fuse([vector_ranked, keyword_ranked], k=self.rrf_k)
        if not fused:
            return []
        with self.db.read() as session:
            rows = {
                r.summary_id: r
                for r in session.scalars(
                    select(MemorySummaryRow).where(MemorySummaryRow.summary_id.in_(list(fused)[:900]))
                )
            }
        hits = [
            summary_hit(row, score)
            for key, score in fused.items()
            if (row := rows.get(key)) is not None and _passes(row, user_id, filters)
        ]
        hits.sort(key=lambda h: (-h.score, -(h.timestamp or 0)))
        return hits[:limit]


def _passes(row: MemorySummaryRow, user_id: str, f: SearchFilters) -> bool:
    dims = row.dimensions or {}
    if row.user_id != user_id:
        return False
    if f.platforms and dims.get("platform") not in f.platforms:
        return False
    if f.channels and dims.get("channel") not in f.channels:
        return False
    if f.persons and dims.get("person") not in f.persons:
        return False
    # Time-bounded: the summary's window must overlap the filter's range.
    if f.since is not None and row.end_timestamp < f.since:
        return False
    return not (f.until is not None and row.start_timestamp > f.until)


def summary_hit(row: MemorySummaryRow, score: float) -> SearchHit:
    dims: dict[str, Any] = row.dimensions or {}
    ids = list(row.source_record_ids or [])
    return SearchHit(
        id=row.summary_id,
        kind="summary",
        content=row.summary_text,
        score=score,
        platform=dims.get("platform"),
        channel=dims.get("channel"),
        person=dims.get("person"),
        timestamp=row.end_timestamp,
        tier=row.summary_tier,
        summary_id=row.summary_id,
        extra={
            "start_timestamp": row.start_timestamp,
            "end_timestamp": row.end_timestamp,
            "message_count": row.message_count,
            "key_points": list(row.key_points or []),
            "keywords": list(row.keywords or []),
            "source_record_ids": ids[:MAX_SOURCE_IDS_IN_HIT],
            "quality_score": round(row.quality_score, 4),
        },
    )
