"""Memory use cases: ingest, search, look up, pin, delete, remember, stats — the API every shell calls."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from app.core.clock import Clock, iso
from app.core.domain import IngestError, IngestResult, MessageRecord, RawMessage, SearchFilters, SearchHit
from app.core.errors import InvalidInput, NotFound
from app.core.events import Change, EventBus
from app.core.index.key_index import MessageKeys
from app.core.processor import Processor, Progress, RepairReport
from app.core.sanitize import repair_text
from app.core.search.merge import merge_hits
from app.core.search.message_query import MessageQuery
from app.core.search.messages import MessageSearcher
from app.core.search.understanding import ALL_PARTS, SearchOutcome
from app.core.storage import audit
from app.core.storage.db import Database
from app.core.storage.keyword import KeywordIndex
from app.core.storage.messages import MessageRepository, to_record
from app.core.storage.models import RawMessageRow
from app.services import memory_counts as counts
from app.services.deletion_service import DeletionService
from app.services.insight_hits import annotate_insight_twins
from app.services.search_facets import Facets, known_facets
from app.services.understood_sources import as_understood, without_people

MAX_SEARCH_LIMIT = 200
# Writes of at most this many messages build their sentence keys inline (about 1 key a message).
INLINE_KEYS = 64

# Extra result sources (summaries, knowledge-base chunks) plug in here without the memory
# service importing the features: each gets the query and returns hits of its own kind.
HitSource = Callable[[MessageQuery], list[SearchHit]]


@dataclass(frozen=True, slots=True)
class MessageContext:
    record: MessageRecord
    neighbours: tuple[MessageRecord, ...]


class MemoryService:
    def __init__(
        self,
        db: Database,
        processor: Processor,
        searcher: MessageSearcher,
        clock: Clock,
        *,
        user_id: str,
        events: EventBus | None = None,
        min_raw_results_without_fallback: int = 3,
    ) -> None:
        self.db = db
        self.processor = processor
        self.searcher = searcher
        self.clock = clock
        self.user_id = user_id
        self.events = events
        self.messages = MessageRepository()
        self.keywords = KeywordIndex()
        self.min_raw_results_without_fallback = min_raw_results_without_fallback
        self.fallback_sources: list[HitSource] = []
        # Identity hook (connectors feature): every name of the contact a person filter names.
        self.person_aliases: Callable[[str], tuple[str, ...]] | None = None
        self.extra_sources: dict[str, HitSource] = {}
        # Sources whose records have no author (documents): searched without the people's names.
        self.authorless_sources: set[str] = set()
        # Sentence keys of messages (app/core/index/key_index.py), built after ingest.
        self.keys: MessageKeys | None = None
        self.deletion = DeletionService(
            db, processor, clock, user_id=user_id, keywords=self.keywords, events=events
        )
        self.relevance_floor = searcher.config.fusion.config.floor

    # -- ingest -------------------------------------------------------------------------------
    def ingest(
        self,
        messages: Iterable[RawMessage | IngestError],
        *,
        progress: Progress | None = None,
        total: int | None = None,
        actor: str = "ingest",
        atomic: bool = False,
        defer_embedding: bool = False,
    ) -> IngestResult:
        """Store messages; `defer_embedding` leaves their vectors to the background backlog."""
        result = self.processor.ingest(
            messages,
            progress=progress,
            total=total,
            actor=actor,
            atomic=atomic,
            defer_embedding=defer_embedding,
        )
        if result.ids and self.keys is not None:
            if not defer_embedding and len(result.ids) <= INLINE_KEYS:
                # A small write (REST, MCP remember, a live sync) gets its keys at once, like its
                # vector: the next search sees them. Imports leave them to the background.
                self.keys.build_now(result.ids)
            else:
                self.keys.notify()  # sentence keys, in the background once the vectors exist
        return result

    def remember(
        self,
        text: str,
        *,
        channel: str = "notes",
        person: str = "me",
        tags: list[str] | None = None,
        actor: str = "remember",
    ) -> MessageRecord:
        """Store a note as a message of platform `note`; the same text twice is stored once."""
        if not text or not text.strip():
            raise InvalidInput("a note needs some text")
        # Repaired before hashing: the note id is derived from the text.
        text, channel, person = repair_text(text), repair_text(channel), repair_text(person)
        now = self.clock.now_ms()
        digest = hashlib.sha256(f"{channel}\x1f{text.strip()}".encode()).hexdigest()[:24]
        note = RawMessage(
            platform="note",
            message_id=f"note:{digest}",
            channel=channel,
            person=person,
            timestamp=now,
            content=text,
            user_id=self.user_id,
            metadata={"tags": tags} if tags else {},
        )
        result = self.ingest([note], actor=actor)
        if result.errors:
            raise InvalidInput(result.errors[0].reason)
        with self.db.read() as session:
            row = self.messages.find_by_message_id(session, self.user_id, note.message_id, "note")
            assert row is not None
            return to_record(row)

    # -- search -------------------------------------------------------------------------------
    def search(
        self,
        text: str,
        filters: SearchFilters | None = None,
        limit: int = 10,
        *,
        include: Iterable[str] = (),
        loose: bool = False,
    ) -> list[SearchHit]:
        """Hybrid search over messages; `include` adds other registered sources (e.g. "documents")."""
        return self.search_outcome(text, filters, limit, include=include, loose=loose).hits

    def search_outcome(
        self,
        text: str,
        filters: SearchFilters | None = None,
        limit: int = 10,
        *,
        include: Iterable[str] = (),
        loose: bool = False,
        understand: frozenset[str] = ALL_PARTS,
    ) -> SearchOutcome:
        """Hits of every included kind merged on one relevance and cut at the relevance floor
        (`loose` shows the nearest anyway), with the query understanding that was applied."""
        if limit < 1 or limit > MAX_SEARCH_LIMIT:
            raise InvalidInput(f"limit must be between 1 and {MAX_SEARCH_LIMIT}, got {limit}")
        unknown = sorted(set(include) - set(self.extra_sources))
        if unknown:
            raise InvalidInput(
                f"unknown search source {unknown[0]!r}", hint=f"one of {sorted(self.extra_sources)}"
            )
        filters = filters or SearchFilters()
        if filters.persons and self.person_aliases is not None:
            expand = self.person_aliases
            persons = tuple(dict.fromkeys(alias for p in filters.persons for alias in expand(p)))
            filters = dataclasses.replace(filters, persons=persons)
        query = MessageQuery(
            text=text, filters=filters, limit=limit, user_id=self.user_id, loose=loose, understand=understand
        )
        outcome = self.searcher.search_understood(query)
        hits = list(outcome.hits)
        others = as_understood(query, outcome.understood)  # the date chip narrows every kind
        if len(hits) < self.min_raw_results_without_fallback:
            for source in self.fallback_sources:
                hits += source(others)
        for name in include:
            hits += self.extra_sources[name](
                without_people(others, outcome.understood) if name in self.authorless_sources else others
            )
        merged, hidden = merge_hits(hits, limit=limit, floor=self.relevance_floor, loose=loose)
        merged = annotate_insight_twins(merged)
        return dataclasses.replace(outcome, hits=merged, hidden=outcome.hidden + hidden)

    def query_texts(self, text: str, dated: bool) -> tuple[str, ...] | None:
        """The texts a search for `text` embeds before its first ranking, to embed ahead of it
        with other searches' (`MessageSearcher.texts_to_embed`; `dated`: the request's own range)."""
        return self.searcher.texts_to_embed(text, self.user_id, dated=dated)

    # -- records ------------------------------------------------------------------------------
    def get(self, record_id: int, *, reveal_archived: bool = False) -> MessageRecord:
        with self.db.read() as session:
            return to_record(self._row(session, record_id), reveal_archived=reveal_archived)

    def get_many(self, record_ids: Iterable[int]) -> list[MessageRecord]:
        with self.db.read() as session:
            rows = self.messages.by_ids(session, list(record_ids))
        return [to_record(r) for r in rows.values() if r.user_id == self.user_id]

    def find(self, platform: str, message_ids: Iterable[str]) -> list[MessageRecord]:
        """Stored messages by platform message id (e.g. an insight's evidence), in the order given."""
        with self.db.read() as session:
            rows = (self.messages.find_by_message_id(session, self.user_id, m, platform) for m in message_ids)
            return [to_record(r) for r in rows if r is not None]

    def context(
        self, record_id: int, *, before: int = 3, after: int = 3, reveal_archived: bool = False
    ) -> MessageContext:
        """A message with its neighbours in the same conversation (archived text only on request)."""
        with self.db.read() as session:
            row = self._row(session, record_id)
            rows = self.messages.neighbours(session, row, before, after)
            return MessageContext(
                record=to_record(row, reveal_archived=reveal_archived),
                neighbours=tuple(
                    to_record(r, reveal_archived=reveal_archived) for r in rows if r.id != row.id
                ),
            )

    def pin(self, record_id: int, pinned: bool = True, *, actor: str = "user") -> MessageRecord:
        now = self.clock.now_ms()
        with self.db.write() as session:
            row = self._row(session, record_id)
            row.is_pinned = pinned
            audit.record(
                session,
                user_id=row.user_id,
                at=now,
                actor=actor,
                action="pin" if pinned else "unpin",
                entity_type="raw_message",
                entity_id=row.id,
            )
            record = to_record(row)
        if self.events:
            self.events.publish(Change("message", "pinned" if pinned else "unpinned", (str(record_id),)))
        return record

    def delete(self, record_id: int, *, actor: str = "user") -> None:
        """Delete a message for good: row, keyword entry, vector, earlier versions, quotes (audited)."""
        self.deletion.delete([record_id], actor=actor)

    def _row(self, session: Any, record_id: int) -> RawMessageRow:
        row = self.messages.get(session, record_id)
        if row is None or row.user_id != self.user_id:
            raise NotFound(f"no message with id {record_id}")
        return row

    # -- health -------------------------------------------------------------------------------
    def stats(self) -> dict[str, Any]:
        backlog = self.processor.backlog.status()
        with self.db.read() as session:
            total = self.messages.count(session, self.user_id)
            first, last = self.messages.time_range(session, self.user_id)
            return {
                "messages": total,
                "archived": counts.archived_count(session, self.user_id),
                "pinned": counts.pinned_count(session, self.user_id),
                "summaries": counts.summary_count(session, self.user_id),
                "by_platform": self.messages.counts_by(session, self.user_id, "platform"),
                "by_tier": self.messages.counts_by(session, self.user_id, "memory_stage"),
                "first_message_at": iso(first),
                "last_message_at": iso(last),
                "vectors": self.processor.collection.count(),
                "embedding_model": self.processor.embedder.model_id,
                "embedding_dimensions": self.processor.embedder.dimensions,
                # Stored, keyword-searchable, not yet embedded (all users: one model, one index).
                "embedding_backlog": backlog.pending,
                "embedding_eta_seconds": backlog.to_dict()["eta_seconds"],
            }

    def has_messages(self) -> bool:
        """Whether any message is stored (the first-run check), without counting them."""
        with self.db.read() as session:
            return counts.has_messages(session, self.user_id)

    def pinned_and_summaries(self) -> tuple[int, int]:
        """Pinned messages and summaries: the two numbers of stats() the Memory screen shows."""
        with self.db.read() as session:
            return counts.pinned_count(session, self.user_id), counts.summary_count(session, self.user_id)

    def embedding_model(self) -> tuple[str, int]:
        """The model search really uses and its dimensions (no database read)."""
        return self.processor.embedder.model_id, self.processor.embedder.dimensions

    def facets(self) -> Facets:
        """Known people, conversations and platforms with message counts (the search pickers)."""
        return known_facets(self.db, self.user_id)

    def embedding_backlog(self) -> dict[str, Any]:
        """Messages stored but not embedded yet, and how fast they are going: cheap enough to poll
        (a partial index), for the UI's status line, `strata stats` and REST."""
        return self.processor.backlog.status().to_dict()

    def repair(self, *, full: bool = False, progress: Progress | None = None) -> RepairReport:
        return self.processor.repair(full=full, progress=progress)
