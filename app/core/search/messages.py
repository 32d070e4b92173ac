"""Hybrid message search over the message corpus: both legs under one typed filter, one fusion."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import select

from app.core.access import AccessTracker
from app.core.clock import DAY_MS, Clock
from app.core.domain import SearchFilters, SearchHit
from app.core.embeddings.base import Embedder
from app.core.index.corpus import Corpus
from app.core.index.filters import Eq, Filter, between, one_of
from app.core.index.legs import FusionParams, LegHit, Legs, fuse
from app.core.search.dates import parse_query_dates
from app.core.search.fusion import near_duplicate_key
from app.core.search.people import PeopleDirectory
from app.core.storage.db import Database
from app.core.storage.keyword_budget import DEFAULT_ROW_BUDGET
from app.core.storage.models import RawMessageRow


@dataclass(frozen=True, slots=True)
class SearchConfig:
    candidate_pool: int = 50
    # k = 10 rather than the customary 60: sharper preference for each list's top ranks gave
    # +0.03 evidence recall@10 on LoCoMo (docs/benchmarks.md).
    rrf_k: int = 10
    vector_weight: float = 1.0
    keyword_weight: float = 1.0
    # A gentle preference for recent and still-short-tier memories; RRF scores are ~0.03 at best.
    recency_weight: float = 0.002
    recency_half_life_days: float = 180.0
    # Bonus for hits in a conversation of a person the query names, and for that person's own
    # messages; about one top rank's worth of RRF score (1 / (k + 1)).
    mentioned_channel_bonus: float = 0.06
    mentioned_person_bonus: float = 0.02
    parse_dates: bool = True
    # Rows FTS5 may score per query (None = score every match); see keyword_budget.
    keyword_row_budget: int | None = DEFAULT_ROW_BUDGET

    fusion: FusionParams = field(default_factory=FusionParams)


@dataclass(frozen=True, slots=True)
class MessageQuery:
    text: str
    filters: SearchFilters
    limit: int
    user_id: str


class MessageSearcher:
    def __init__(
        self,
        db: Database,
        corpus: Corpus,
        embedder: Embedder,
        clock: Clock,
        *,
        access: AccessTracker | None = None,
        config: SearchConfig | None = None,
        people: PeopleDirectory | None = None,
    ) -> None:
        self.db = db
        self.corpus = corpus
        self.embedder = embedder
        self.clock = clock
        self.access = access
        self.config = config or SearchConfig()
        self.people = people or PeopleDirectory(db)
        # BM25 runs beside the query embedding and vector scan: SQLite, ONNX Runtime and NumPy
        # all release the GIL, so on two cores the keyword leg costs almost no wall time.
        self._keyword_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="strata-bm25")

    def close(self) -> None:
        self._keyword_pool.shutdown(wait=True)

    def search(self, query: MessageQuery) -> list[SearchHit]:
        filters, text = query.filters, query.text.strip()
        if not text:
            return []
        if self.config.parse_dates and filters.since is None and filters.until is None:
            parsed = parse_query_dates(text, self.clock.now_ms())
            if parsed.range is not None:
                dated = replace(filters, since=parsed.range.since, until=parsed.range.until)
                hits = self._search(replace(query, text=parsed.text, filters=dated))
                if hits:
                    return hits
                # The phrase may not have been meant as a date filter: fall back to the plain query.
        return self._search(replace(query, text=text))

    def _search(self, query: MessageQuery) -> list[SearchHit]:
        pool = max(self.config.candidate_pool, query.limit * 3)
        where = message_filter(query)
        keyword_future = self._keyword_pool.submit(self._keyword_candidates, query, where, pool)
        vector_leg = self.corpus.vector_leg(self.embedder.embed_query(query.text), pool, where)
        legs = Legs(vector=vector_leg, keyword=keyword_future.result())
        candidates = [int(k) for k in legs.keys]
        if not candidates:
            return []
        with self.db.read() as session:
            # Plain column tuples: building ORM objects (and decoding their JSON columns) for a
            # hundred candidates cost more than the query itself.
            found = session.execute(select(*_HIT_COLUMNS).where(RawMessageRow.id.in_(candidates)))
            rows = {r.id: r for r in found}
        fused = {
            int(key): score
            for key, score in fuse(
                legs,
                query=query.text,
                texts={str(i): r.content for i, r in rows.items()},
                params=self.config.fusion,
            ).items()
        }
        now = self.clock.now_ms()
        mentions = self.people.mentions(query.user_id, query.text)
        scored: list[tuple[float, Any]] = []
        for row_id, score in fused.items():
            row = rows.get(row_id)
            if row is None or not self._passes(row, query):
                continue  # a vector whose row is gone (crash leftovers) or filtered after the fact
            age_days = max(0.0, (now - row.timestamp) / DAY_MS)
            score += self.config.recency_weight * math.exp(-age_days / self.config.recency_half_life_days)
            if (row.platform, row.channel) in mentions.channels:
                score += self.config.mentioned_channel_bonus
            if row.person in mentions.persons:
                score += self.config.mentioned_person_bonus
            scored.append((score, row))
        scored.sort(key=lambda pair: (-pair[0], -pair[1].timestamp))
        hits: list[SearchHit] = []
        seen: set[str] = set()
        for score, row in scored:
            dup = near_duplicate_key(row.content)
            if dup in seen:
                continue
            seen.add(dup)
            hits.append(_hit(row, score))
            if len(hits) >= query.limit:
                break
        if self.access is not None and hits:
            self.access.record(int(h.id) for h in hits)
        return hits

    def _keyword_candidates(self, query: MessageQuery, where: Filter, pool: int) -> tuple[LegHit, ...]:
        with self.db.read() as session:
            # One user and no filters: skip the join; rows of other users cannot exist, and
            # archived rows are dropped after hydration.
            plain = not where.without("user_id", "archived").terms and not self.corpus.several_users(session)
            return self.corpus.keyword_leg(
                session,
                query.user_id,
                query.text,
                pool,
                None if plain else where,
                row_budget=self.config.keyword_row_budget,
            )

    @staticmethod
    def _passes(row: Any, query: MessageQuery) -> bool:
        f = query.filters
        if row.user_id != query.user_id:
            return False
        if row.archived_at is not None and not f.include_archived:
            return False
        if f.platforms and row.platform not in f.platforms:
            return False
        if f.channels and row.channel not in f.channels:
            return False
        if f.persons and row.person not in f.persons:
            return False
        if f.since is not None and row.timestamp < f.since:
            return False
        return not (f.until is not None and row.timestamp > f.until)


_HIT_COLUMNS = (
    RawMessageRow.id,
    RawMessageRow.user_id,
    RawMessageRow.archived_at,
    RawMessageRow.platform,
    RawMessageRow.channel,
    RawMessageRow.person,
    RawMessageRow.timestamp,
    RawMessageRow.content,
    RawMessageRow.memory_stage,
    RawMessageRow.message_id,
    RawMessageRow.summary_ref_id,
    RawMessageRow.is_pinned,
)


def _hit(row: Any, score: float) -> SearchHit:
    extra: dict[str, Any] = {}
    if row.is_pinned:
        extra["is_pinned"] = True
    if row.archived_at is not None:  # only with include_archived: replaced by summary_id
        extra["archived_at"] = row.archived_at
    return SearchHit(
        id=str(row.id),
        kind="message",
        content=row.content,
        score=score,
        platform=row.platform,
        channel=row.channel,
        person=row.person,
        timestamp=row.timestamp,
        tier=row.memory_stage,
        message_id=row.message_id,
        summary_id=row.summary_ref_id,
        extra=extra,
    )


def message_filter(query: MessageQuery) -> Filter:
    """The query's filters as typed terms over the message corpus's columns."""
    f = query.filters
    return Filter(
        tuple(
            t
            for t in (
                Eq("user_id", query.user_id),
                None if f.include_archived else Eq("archived", False),
                one_of("platform", f.platforms),
                one_of("channel", f.channels),
                one_of("person", f.persons),
                between("timestamp", f.since, f.until),
            )
            if t is not None
        )
    )
