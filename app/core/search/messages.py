"""Hybrid message search: LanceDB vectors + FTS5 BM25, fused by reciprocal rank fusion."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from sqlalchemy import select, text

from app.core.access import AccessTracker
from app.core.clock import DAY_MS, Clock
from app.core.domain import SearchFilters, SearchHit
from app.core.embeddings.base import Embedder
from app.core.search.dates import parse_query_dates
from app.core.search.fusion import near_duplicate_key, rrf_fuse
from app.core.search.people import PeopleDirectory
from app.core.storage.db import Database
from app.core.storage.keyword import KeywordIndex
from app.core.storage.keyword_budget import DEFAULT_ROW_BUDGET
from app.core.storage.models import RawMessageRow
from app.core.storage.vector_cache import VectorMatrixCache
from app.core.storage.vectors import VectorCollection, sql_quote


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
        collection: VectorCollection,
        embedder: Embedder,
        clock: Clock,
        *,
        keywords: KeywordIndex | None = None,
        access: AccessTracker | None = None,
        config: SearchConfig | None = None,
        people: PeopleDirectory | None = None,
    ) -> None:
        self.db = db
        self.collection = collection
        self.embedder = embedder
        self.clock = clock
        self.keywords = keywords or KeywordIndex()
        self.access = access
        self.config = config or SearchConfig()
        self.people = people or PeopleDirectory(db)
        self.matrix = VectorMatrixCache(collection)
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
        keyword_future = self._keyword_pool.submit(self._keyword_candidates, query, pool)
        vector_ranked = self._vector_candidates(query, pool)
        keyword_ranked = keyword_future.result()
        fused = rrf_fuse(
            [vector_ranked, keyword_ranked],
            k=self.config.rrf_k,
            weights=[self.config.vector_weight, self.config.keyword_weight],
        )
        if not fused:
            return []
        with self.db.read() as session:
            # Plain column tuples: building ORM objects (and decoding their JSON columns) for a
            # hundred candidates cost more than the query itself.
            found = session.execute(select(*_HIT_COLUMNS).where(RawMessageRow.id.in_(list(fused))))
            rows = {r.id: r for r in found}
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

    def _vector_candidates(self, query: MessageQuery, pool: int) -> list[int]:
        vector = self.embedder.embed_query(query.text)
        hits = self.matrix.search(
            vector,
            pool,
            lambda columns: _numpy_mask(columns, query),
            mask_key=(query.user_id, query.filters),
        )
        if hits is None:  # too many rows to hold in memory: let LanceDB scan
            hits = self.collection.search(vector, pool, _lance_where(query))
        return [int(h.key) for h in hits]

    def _keyword_candidates(self, query: MessageQuery, pool: int) -> list[int]:
        clauses, params = _sql_filters(query.filters)
        with self.db.read() as session:
            if clauses or self._several_users(session):
                clauses.append("m.user_id = :user_id")
                if not query.filters.include_archived:
                    clauses.append("m.archived_at IS NULL")
                params["user_id"] = query.user_id
                hits = self.keywords.search_messages(
                    session,
                    query.text,
                    pool,
                    join_sql="JOIN raw_messages m ON m.id = messages_fts.rowid",
                    where_sql="".join(f" AND {c}" for c in clauses),
                    params=params,
                    row_budget=self.config.keyword_row_budget,
                )
            else:
                # One user and no filters: skip the join; rows of other users cannot exist, and
                # archived rows are dropped after hydration.
                hits = self.keywords.search_messages(
                    session, query.text, pool, row_budget=self.config.keyword_row_budget
                )
        return [int(h.ref) for h in hits]

    def _several_users(self, session: Any) -> bool:
        return bool(session.execute(text("SELECT count(*) > 1 FROM users")).scalar_one())

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


def _in_list(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN (" + ", ".join(sql_quote(v) for v in values) + ")"


def _numpy_mask(columns: dict[str, np.ndarray], query: MessageQuery) -> np.ndarray:
    """The same filter as `_lance_where`, over the in-memory columns."""
    f = query.filters
    mask = columns["user_id"] == query.user_id
    if not f.include_archived:
        mask &= ~columns["archived"].astype(bool)
    for name, values in (("platform", f.platforms), ("channel", f.channels), ("person", f.persons)):
        if values:
            mask &= np.isin(columns[name], list(values))
    if f.since is not None:
        mask &= columns["timestamp"] >= f.since
    if f.until is not None:
        mask &= columns["timestamp"] <= f.until
    return mask


def _lance_where(query: MessageQuery) -> str:
    f = query.filters
    parts = [f"user_id = {sql_quote(query.user_id)}"]
    if not f.include_archived:
        parts.append("archived = false")
    if f.platforms:
        parts.append(_in_list("platform", f.platforms))
    if f.channels:
        parts.append(_in_list("channel", f.channels))
    if f.persons:
        parts.append(_in_list("person", f.persons))
    if f.since is not None:
        parts.append(f"timestamp >= {int(f.since)}")
    if f.until is not None:
        parts.append(f"timestamp <= {int(f.until)}")
    return " AND ".join(parts)


def _sql_filters(f: SearchFilters) -> tuple[list[str], dict[str, object]]:
    clauses: list[str] = []
    params: dict[str, object] = {}
    for column, values in (("platform", f.platforms), ("channel", f.channels), ("person", f.persons)):
        if values:
            names = []
            for i, value in enumerate(values):
                params[f"{column}{i}"] = value
                names.append(f":{column}{i}")
            clauses.append(f"m.{column} IN ({', '.join(names)})")
    if f.since is not None:
        clauses.append("m.timestamp >= :since")
        params["since"] = f.since
    if f.until is not None:
        clauses.append("m.timestamp <= :until")
        params["until"] = f.until
    return clauses, params
