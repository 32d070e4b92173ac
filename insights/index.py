"""Insights as a corpus kind: one embedding per insight in LanceDB plus BM25 text in the keyword index."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core import aaak
from app.core.clock import iso
from app.core.embeddings.base import Embedder
from app.core.index.corpus import Corpus, IndexDoc, KindSpec
from app.core.index.filters import Eq, Filter
from app.core.index.lease import WriterLeases
from app.core.index.legs import FusionParams, Legs, fuse
from app.core.storage.db import Database
from app.core.storage.keyword import KeywordIndex
from app.core.storage.vectors import VectorCollection, VectorStore
from insights.model import InsightDraft
from insights.repository import to_draft
from insights.tables import InsightRow

INSIGHT_KIND = "insight"
COLUMNS = ("user_id", "kind", "platform", "channel", "timestamp")
INSIGHT_SPEC = KindSpec(kind=INSIGHT_KIND, collection=INSIGHT_KIND, columns=COLUMNS)


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


def insight_doc(key: str, user_id: str, draft: InsightDraft) -> IndexDoc:
    text = document_text(draft)
    return IndexDoc(
        key=key,
        user_id=user_id,
        document=text,
        keyword_text=text,
        content_hash=aaak.content_hash(text),
        columns={
            "kind": draft.kind.value,
            "platform": draft.platform,
            "channel": draft.channel,
            "timestamp": draft.occurred_at,
        },
    )


class InsightSource:
    """The insights table as the corpus's source of truth (no per-row embedding stamps)."""

    def keys(self, session: Session) -> set[str]:
        return set(session.scalars(select(InsightRow.id)))

    def unembedded(self, session: Session, model_id: str, dimensions: int) -> list[str]:
        del session, model_id, dimensions  # no stamps: missing vectors show up as missing keys
        return []

    def documents(self, session: Session, keys: Sequence[str]) -> list[IndexDoc]:
        rows = session.scalars(select(InsightRow).where(InsightRow.id.in_(list(keys))))
        return [insight_doc(r.id, r.user_id, to_draft(r)) for r in rows]

    def restamp(self, session: Session, old_model: str, model_id: str, dimensions: int) -> None:
        del session, old_model, model_id, dimensions  # no stamps

    def stamp(self, session: Session, docs: Sequence[IndexDoc], model_id: str, dimensions: int) -> None:
        del session, docs, model_id, dimensions  # nothing to record: see `unembedded`


class InsightIndex:
    def __init__(
        self,
        vectors: VectorStore,
        embedder: Embedder,
        keywords: KeywordIndex | None = None,
        *,
        leases: WriterLeases | None = None,
        fusion: FusionParams | None = None,
    ) -> None:
        self._embedder = embedder
        self.corpus = Corpus(INSIGHT_SPEC, vectors, embedder, keywords or KeywordIndex(), leases=leases)
        self.source = InsightSource()
        self.fusion = fusion or FusionParams()

    @property
    def collection(self) -> VectorCollection:
        return self.corpus.collection

    def index_keywords(
        self, session: Session, user_id: str, items: Sequence[tuple[str, InsightDraft]]
    ) -> None:
        """Inside the caller's write transaction, so the rows and their text commit together."""
        self.corpus.index_text(session, user_id, [(i, document_text(d)) for i, d in items])

    def embed(self, user_id: str, items: Sequence[tuple[str, InsightDraft]]) -> None:
        """After the commit: vectors can always be rebuilt from SQLite, never the other way round."""
        self.corpus.embed([insight_doc(i, user_id, d) for i, d in items])

    def search(self, db: Database, user_id: str, query: str, limit: int) -> list[tuple[str, float]]:
        """Hybrid: vector and BM25 legs fused by the corpus's one fusion; best first."""
        pool = max(limit * 3, 20)
        vector_leg = self.corpus.vector_leg(
            self._embedder.embed_query(query), pool, Filter((Eq("user_id", user_id),))
        )
        with db.read() as session:
            keyword_leg = self.corpus.keyword_leg(session, user_id, query, pool)
            legs = Legs(vector=vector_leg, keyword=keyword_leg)
            # The insights' own text: exact word evidence on the scale every other kind uses, so
            # unified search can merge insights with messages and documents on one relevance.
            texts = {d.key: d.document for d in self.source.documents(session, list(legs.keys))}
        fused = fuse(legs, query=query, texts=texts, params=self.fusion)
        return sorted(fused.items(), key=lambda kv: -kv[1])[:limit]

    def count(self) -> int:
        return self.collection.count()
