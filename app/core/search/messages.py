"""Hybrid message search: LanceDB vectors + FTS5 BM25, fused into one calibrated relevance (fusion.py)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from sqlalchemy import select, text

from app.core.access import AccessTracker
from app.core.clock import Clock
from app.core.domain import SearchFilters, SearchHit
from app.core.embeddings.base import Embedder
from app.core.search.context import ConversationWindows
from app.core.search.dates import parse_query_dates
from app.core.search.fusion import FusionConfig, LegHit
from app.core.search.people import Mentions, PeopleDirectory
from app.core.search.ranking import RankedMessages, rank_messages
from app.core.search.understanding import ALL_PARTS, DATES, PEOPLE, DateUnderstood, SearchOutcome, Understood
from app.core.storage.db import Database
from app.core.storage.keyword import KeywordIndex
from app.core.storage.keyword_budget import DEFAULT_ROW_BUDGET
from app.core.storage.models import RawMessageRow
from app.core.storage.vector_cache import VectorMatrixCache
from app.core.storage.vectors import VectorCollection, sql_quote


@dataclass(frozen=True, slots=True)
class SearchConfig:
    candidate_pool: int = 50
    # Kept for settings compatibility; ranking is score-level fusion now (fusion.py), not RRF.
    rrf_k: int = 10
    fusion: FusionConfig = field(default_factory=FusionConfig)
    # A tie-breaker for recent memories, on the relevance scale.
    recency_weight: float = 0.002
    recency_half_life_days: float = 180.0
    # Relevance added for hits in a conversation of a person the query names, and for that
    # person's own messages (tuned on LoCoMo: docs/benchmarks.md, "Retrieval engine: ranking").
    mentioned_channel_bonus: float = 0.05
    mentioned_person_bonus: float = 0.15
    # Score each candidate with its conversation neighbours (context.py).
    windows: bool = True
    parse_dates: bool = True
    # Rows FTS5 may score per query (None = score every match); see keyword_budget.
    keyword_row_budget: int | None = DEFAULT_ROW_BUDGET


@dataclass(frozen=True, slots=True)
class MessageQuery:
    text: str
    filters: SearchFilters
    limit: int
    user_id: str
    # Show the nearest hits even below the relevance floor.
    loose: bool = False
    # Which parts of query understanding to apply (the UI's chips can take each back).
    understand: frozenset[str] = ALL_PARTS


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
        self.windows = ConversationWindows(self.matrix)
        # BM25 runs beside the query embedding and vector scan: SQLite, ONNX Runtime and NumPy
        # all release the GIL, so on two cores the keyword leg costs almost no wall time.
        self._keyword_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="strata-bm25")

    def close(self) -> None:
        self._keyword_pool.shutdown(wait=True)

    def search(self, query: MessageQuery) -> list[SearchHit]:
        return self.search_understood(query).hits

    def search_understood(self, query: MessageQuery) -> SearchOutcome:
        """Hits above the relevance floor (all nearest ones when `loose`), with what was understood."""
        filters, text = query.filters, query.text.strip()
        if not text:
            return SearchOutcome(hits=[], loose=query.loose)
        mentions = (
            self.people.mentions(query.user_id, text) if PEOPLE in query.understand else Mentions.none()
        )
        people = Understood(people=tuple(sorted(mentions.persons)), channels=tuple(sorted(mentions.channels)))
        dates = self.config.parse_dates and DATES in query.understand
        if dates and filters.since is None and filters.until is None:
            parsed = parse_query_dates(text, self.clock.now_ms())
            if parsed.range is not None:
                dated = replace(filters, since=parsed.range.since, until=parsed.range.until)
                found = self._search(replace(query, text=parsed.text, filters=dated), mentions)
                date = DateUnderstood(parsed.range.phrase, parsed.range.since, parsed.range.until)
                if found.hits:
                    return self._outcome(query, found, replace(people, date=date))
                # Nothing in the range: say so, and offer the undated result instead.
                found = self._search(replace(query, text=text), mentions)
                return self._outcome(query, found, replace(people, date=replace(date, applied=False)))
        return self._outcome(query, self._search(replace(query, text=text), mentions), people)

    def _outcome(self, query: MessageQuery, found: RankedMessages, understood: Understood) -> SearchOutcome:
        if self.access is not None and found.hits:
            self.access.record(int(h.id) for h in found.hits)
        return SearchOutcome(hits=found.hits, understood=understood, loose=query.loose, hidden=found.hidden)

    def _search(self, query: MessageQuery, mentions: Mentions) -> RankedMessages:
        pool = max(self.config.candidate_pool, query.limit * 3)
        keyword_future = self._keyword_pool.submit(self._keyword_candidates, query, pool)
        vector, vector_hits = self._vector_candidates(query, pool)
        keyword_hits = keyword_future.result()
        keys = list(dict.fromkeys([*(h.key for h in vector_hits), *(h.key for h in keyword_hits)]))
        if not keys:
            return RankedMessages([], 0)
        context = self.windows.around(vector, keys) if self.config.windows else None
        wanted = {int(k) for k in keys}
        if context is not None:
            wanted.update(int(n) for around in context.neighbours.values() for n in around)
        with self.db.read() as session:
            # Plain column tuples: building ORM objects (and decoding their JSON columns) for a
            # hundred candidates cost more than the query itself.
            found = session.execute(select(*_HIT_COLUMNS).where(RawMessageRow.id.in_(list(wanted))))
            rows = {str(r.id): r for r in found}
        return rank_messages(
            query_text=query.text,
            vector=vector_hits,
            keyword=keyword_hits,
            rows=rows,
            context=context,
            passes=lambda row: self._passes(row, query),
            mentions=mentions,
            now_ms=self.clock.now_ms(),
            config=self.config,
            limit=query.limit,
            loose=query.loose,
            to_hit=_hit,
        )

    def _vector_candidates(self, query: MessageQuery, pool: int) -> tuple[np.ndarray, list[LegHit]]:
        vector = self.embedder.embed_query(query.text)
        hits = self.matrix.search(
            vector,
            pool,
            lambda columns: _numpy_mask(columns, query),
            mask_key=(query.user_id, query.filters),
        )
        if hits is None:  # too many rows to hold in memory: let LanceDB scan
            hits = self.collection.search(vector, pool, _lance_where(query))
        return vector, [LegHit(h.key, rank, h.similarity) for rank, h in enumerate(hits, start=1)]

    def _keyword_candidates(self, query: MessageQuery, pool: int) -> list[LegHit]:
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
        return [LegHit(h.ref, rank, h.score) for rank, h in enumerate(hits, start=1)]

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


def _hit(row: Any, score: float, relevance: float) -> SearchHit:
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
        relevance=relevance,
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
