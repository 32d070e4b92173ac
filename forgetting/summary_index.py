"""Summaries as a corpus kind: their index document, the fallback search, and the rows as index source."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import bindparam, or_, select, update
from sqlalchemy.orm import Session

from app.core import aaak
from app.core.clock import Clock
from app.core.domain import SearchFilters, SearchHit
from app.core.embeddings.base import Embedder
from app.core.index.corpus import Corpus, IndexDoc, KindSpec
from app.core.index.filters import Eq, Filter, between
from app.core.index.lease import WriterLeases
from app.core.index.legs import FusionParams, Legs, fuse
from app.core.storage.db import Database, chunked
from app.core.storage.keyword import KeywordIndex
from app.core.storage.models import MemorySummaryRow
from app.core.storage.vectors import VectorCollection, VectorStore

SUMMARY_KIND = "summary"
SUMMARY_VECTOR_COLUMNS = ("user_id", "platform", "channel", "person", "tier", "timestamp")
SUMMARY_SPEC = KindSpec(kind=SUMMARY_KIND, collection="summaries", columns=SUMMARY_VECTOR_COLUMNS)
MAX_SOURCE_IDS_IN_HIT = 50
# Summaries are long documents (up to the model's 256 tokens). Measured on the int8 MiniLM with
# 256-token texts: 32 at a time peaked at +650 MB and 0.125 s CPU a text, 8 at +290 MB and
# 0.10 s, 2 at +75 MB and 0.08 s (padding and attention grow with the batch). A forgetting run at
# 1M messages went past 1 GB on this alone (docs/benchmarks.md, "Forgetting cycle at 1M").
EMBED_BATCH = 2


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


def summary_doc(row: MemorySummaryRow) -> IndexDoc:
    dims = row.dimensions or {}
    encoded = encode_summary(row)
    return IndexDoc(
        key=row.summary_id,
        user_id=row.user_id,
        document=encoded.document,
        # The same text the applier indexes when it writes the summary.
        keyword_text=" ".join(
            p for p in (row.keywords_text, row.summary_text, " ".join(row.key_points or [])) if p
        ),
        columns={
            "platform": dims.get("platform"),
            "channel": dims.get("channel"),
            "person": dims.get("person"),
            "tier": row.summary_tier,
            "timestamp": row.end_timestamp,  # endTimestamp: "since" keeps windows that reach it
        },
        content_hash=encoded.content_hash,
        stamped_hash=row.embedding_content_hash,
    )


class SummarySource:
    """memory_summaries as the corpus's source of truth for the summary kind."""

    def keys(self, session: Session) -> set[str]:
        return set(session.scalars(select(MemorySummaryRow.summary_id)))

    def unembedded(self, session: Session, model_id: str, dimensions: int) -> list[str]:
        del dimensions  # summaries stamp the model id only; the collection name carries the size
        return list(
            session.scalars(
                select(MemorySummaryRow.summary_id).where(
                    or_(
                        MemorySummaryRow.embedding_content_hash.is_(None),
                        MemorySummaryRow.embedding_model.is_(None),
                        MemorySummaryRow.embedding_model != model_id,
                    )
                )
            )
        )

    def documents(self, session: Session, keys: Sequence[str]) -> list[IndexDoc]:
        rows = session.scalars(select(MemorySummaryRow).where(MemorySummaryRow.summary_id.in_(list(keys))))
        return [summary_doc(r) for r in rows]

    def restamp(self, session: Session, old_model: str, model_id: str, dimensions: int) -> None:
        del dimensions  # summaries stamp the model id only
        session.execute(
            update(MemorySummaryRow)
            .where(MemorySummaryRow.embedding_model == old_model)
            .values(embedding_model=model_id)
        )

    def stamp(self, session: Session, docs: Sequence[IndexDoc], model_id: str, dimensions: int) -> None:
        if not docs:
            return
        session.connection().execute(
            update(MemorySummaryRow)
            .where(MemorySummaryRow.summary_id == bindparam("sid"))
            .values(embedding_model=model_id, embedding_content_hash=bindparam("hash")),
            [{"sid": d.key, "hash": d.content_hash} for d in docs],
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
        rrf_k: int = 10,
        leases: WriterLeases | None = None,
        fusion: FusionParams | None = None,
    ) -> None:
        self.db = db
        self.embedder = embedder
        self.clock = clock
        self.keywords = keywords or KeywordIndex()
        self.corpus = Corpus(SUMMARY_SPEC, vectors, embedder, self.keywords, leases=leases)
        self.source = SummarySource()
        del rrf_k  # kept for callers; fusion is score-level now (one FusionParams for every kind)
        self.fusion = fusion or FusionParams()

    @property
    def collection(self) -> VectorCollection:
        return self.corpus.collection

    def embed_pending(self, user_id: str | None = None, batch: int = 128) -> int:
        """Embed summaries without a current vector (new, or left by a crash); returns how many."""
        with self.db.read() as session:
            ids = self.source.unembedded(session, self.embedder.model_id, self.embedder.dimensions)
            if user_id is not None and ids:
                ids = list(
                    session.scalars(
                        select(MemorySummaryRow.summary_id).where(
                            MemorySummaryRow.summary_id.in_(ids), MemorySummaryRow.user_id == user_id
                        )
                    )
                )
        done = 0
        for part in chunked(ids, batch):
            done += self.embed(part)
        return done

    def embed(self, summary_ids: Sequence[str]) -> int:
        if not summary_ids:
            return 0
        with self.db.read() as session:
            docs = self.source.documents(session, summary_ids)
        if not docs:
            return 0
        vectors = np.concatenate(
            [
                self.embedder.embed_documents([d.document for d in docs[start : start + EMBED_BATCH]])
                for start in range(0, len(docs), EMBED_BATCH)
            ]
        )
        self.corpus.put_vectors(docs, vectors)  # one upsert: one new LanceDB fragment, not one a batch
        with self.db.write() as session:
            self.source.stamp(session, docs, self.embedder.model_id, self.embedder.dimensions)
        return len(docs)

    def delete_vectors(self, summary_ids: Sequence[str]) -> None:
        self.corpus.remove_vectors(list(summary_ids))

    def search(self, user_id: str, text: str, filters: SearchFilters, limit: int) -> list[SearchHit]:
        """Hybrid search over summaries (vectors + keywordsText/summary BM25), filtered like messages."""
        text = text.strip()
        if not text:
            return []
        pool = max(20, limit * 3)
        # Summaries span a window: only "since" can prefilter on the stored endTimestamp; the
        # other filters are checked on the rows (their dimensions live in a JSON column).
        where = Filter((Eq("user_id", user_id),)).and_(between("timestamp", filters.since, None))
        vector_leg = self.corpus.vector_leg(self.embedder.embed_query(text), pool, where)
        with self.db.read() as session:
            keyword_leg = self.corpus.keyword_leg(session, user_id, text, pool)
        legs = Legs(vector=vector_leg, keyword=keyword_leg)
        if not legs.keys:
            return []
        with self.db.read() as session:
            rows = {
                r.summary_id: r
                for r in session.scalars(
                    select(MemorySummaryRow).where(MemorySummaryRow.summary_id.in_(legs.keys[:900]))
                )
            }
        fused = fuse(legs, query=text, texts={k: r.summary_text for k, r in rows.items()}, params=self.fusion)
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
