"""The processor: store, encode, embed and index incoming messages, idempotently and crash-safely.

A batch is written in two steps. First one SQLite transaction stores the rows and their keyword
entries (the batch becomes visible all at once, or not at all, and keyword search finds it from
then on); then the batch is embedded and upserted into LanceDB, and a second short transaction
stamps each row's embedding hash. Large imports defer the second step to the embedding backlog
(`app/core/index/backlog.py`), which drains in the background while storing goes on. A crash
between the two leaves rows without a stamp: the backlog (or repair) embeds them on the next run.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy.orm import Session

from app.core import aaak
from app.core.clock import Clock
from app.core.domain import IngestError, IngestResult, RawMessage, Tier
from app.core.embeddings.base import Embedder
from app.core.errors import InvalidInput
from app.core.events import Change, EventBus
from app.core.index import maintenance
from app.core.index.backlog import EmbeddingBacklog
from app.core.index.corpus import Corpus
from app.core.index.lease import WriterLeases
from app.core.index.maintenance import KindReport
from app.core.index.message_kind import MESSAGE_SPEC, MessageSource, keyword_body, message_doc
from app.core.privacy.injection import FLAG as INJECTION_FLAG
from app.core.privacy.injection import injection_signals
from app.core.sanitize import repair_text
from app.core.storage import audit
from app.core.storage.db import Database, chunked
from app.core.storage.keyword import KeywordIndex
from app.core.storage.messages import MessageRepository, vector_key
from app.core.storage.models import RawMessageRow, User
from app.core.storage.vectors import VectorCollection, VectorStore
from app.core.validation import clean_message

log = logging.getLogger(__name__)

Progress = Callable[[int, int | None], None]


@dataclass(frozen=True, slots=True)
class RepairReport:
    reembedded: int
    orphans_removed: int
    kind: KindReport | None = None


class Processor:
    """Ingests RawMessage batches into SQLite, the keyword index and the vector index."""

    def __init__(
        self,
        db: Database,
        vectors: VectorStore,
        embedder: Embedder,
        clock: Clock,
        *,
        keywords: KeywordIndex | None = None,
        events: EventBus | None = None,
        batch_size: int = 256,
        max_message_bytes: int = 10 * 1024 * 1024,
        flag_injections: bool = True,
        leases: WriterLeases | None = None,
    ) -> None:
        self.db = db
        self.vectors = vectors
        self.embedder = embedder
        self.clock = clock
        self.keywords = keywords or KeywordIndex()
        self.events = events
        self.batch_size = batch_size
        self.max_message_bytes = max_message_bytes
        self.flag_injections = flag_injections
        self.messages = MessageRepository()
        self.corpus = Corpus(MESSAGE_SPEC, vectors, embedder, self.keywords, leases=leases)
        self.source = MessageSource(clock)
        self.backlog = EmbeddingBacklog(db, self.corpus, self.source, leases, batch_size=batch_size)

    @property
    def collection(self) -> VectorCollection:
        return self.corpus.collection

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
        """Store messages in batches; IngestError items (from a parser) pass through as errors.

        Every item is validated before its batch is written, so a bad item is reported and the
        rest stored. `atomic` makes the whole input one batch (one transaction): a REST or MCP
        request is stored entirely or not at all, even when the disk fills up midway.
        `defer_embedding` returns once the rows are stored (keyword-searchable): their vectors
        come from the backlog worker, which starts on the first batch and overlaps the storing.
        """
        with self.corpus.writing():  # rows briefly without vectors are ours, not a crash's
            return self._ingest(messages, progress, total, actor, atomic, defer_embedding)

    def _ingest(
        self,
        messages: Iterable[RawMessage | IngestError],
        progress: Progress | None,
        total: int | None,
        actor: str,
        atomic: bool,
        defer: bool = False,
    ) -> IngestResult:
        result = IngestResult()
        batch: list[RawMessage] = []
        errors: list[IngestError] = []
        done = 0
        batch_size = float("inf") if atomic else self.batch_size
        for item in messages:
            if isinstance(item, IngestError):
                errors.append(item)
                continue
            batch.append(item)
            if len(batch) >= batch_size:
                result = result.merged(self._ingest_batch(batch, actor, defer))
                done += len(batch)
                batch = []
                if progress:
                    progress(done, total)
        if batch:
            result = result.merged(self._ingest_batch(batch, actor, defer))
            done += len(batch)
            if progress:
                progress(done, total)
        merged = result.merged(IngestResult(errors=tuple(errors)))
        # Parser errors and storage-time refusals arrive separately; report them in input order.
        ordered = sorted(merged.errors, key=lambda e: (e.line is None, e.line or 0))
        return dataclasses.replace(merged, errors=tuple(ordered))

    def _ingest_batch(self, batch: Sequence[RawMessage], actor: str, defer: bool = False) -> IngestResult:
        errors: list[IngestError] = []
        cleaned: dict[tuple[str, str, str], RawMessage] = {}
        duplicates = 0
        for raw in batch:
            try:
                msg = clean_message(raw, max_bytes=self.max_message_bytes)
            except InvalidInput as exc:
                # Repaired so the report itself can be printed or sent as JSON.
                message_id = repair_text(raw.message_id) if isinstance(raw.message_id, str) else None
                errors.append(IngestError(reason=str(exc), line=raw.line, message_id=message_id or None))
                continue
            key = (msg.user_id, msg.platform, msg.message_id)
            if key in cleaned:
                duplicates += 1  # the same message twice in one batch: the later copy wins
            cleaned[key] = msg
        if not cleaned:
            return IngestResult(duplicates=duplicates, errors=tuple(errors))

        if self._all_unchanged(cleaned):
            # Re-imports are mostly duplicates: answer them from a read, never taking the write lock.
            return IngestResult(duplicates=duplicates + len(cleaned), errors=tuple(errors))
        now = self.clock.now_ms()
        changed_rows: list[RawMessageRow] = []
        imported = updated = 0
        with self.db.write() as session:
            self._ensure_users(session, {k[0] for k in cleaned}, now)
            by_user: dict[str, list[RawMessage]] = {}
            for msg in cleaned.values():
                by_user.setdefault(msg.user_id, []).append(msg)
            for user_id, msgs in by_user.items():
                existing = self.messages.by_platform_keys(
                    session, user_id, [(m.platform, m.message_id) for m in msgs]
                )
                for msg in msgs:
                    text_hash = aaak.content_hash(msg.content)
                    row = existing.get((msg.platform, msg.message_id))
                    if row is None:
                        row = self._new_row(msg, text_hash, now)
                        session.add(row)
                        imported += 1
                    elif row.text_hash == text_hash:
                        duplicates += 1
                        continue
                    else:
                        self._apply_edit(session, row, msg, text_hash, now, actor)
                        updated += 1
                    changed_rows.append(row)
            session.flush()
            if self.flag_injections:
                self._flag_injections(session, changed_rows, now, actor)
            for user_id in {r.user_id for r in changed_rows}:
                self.corpus.index_text(
                    session,
                    user_id,
                    [(vector_key(r.id), keyword_body(r)) for r in changed_rows if r.user_id == user_id],
                )
            if imported:
                audit.record(
                    session,
                    user_id=changed_rows[0].user_id,
                    at=now,
                    actor=actor,
                    action="ingest",
                    entity_type="raw_messages",
                    entity_id=f"{changed_rows[0].id}..{changed_rows[-1].id}",
                    details={"imported": imported, "updated": updated},
                )
        ids = tuple(r.id for r in changed_rows)
        if changed_rows:
            if defer:
                self.backlog.notify()
            else:
                self._embed_rows(changed_rows)
            if self.events:
                self.events.publish(Change("message", "ingested", tuple(map(str, ids))))
        return IngestResult(
            imported=imported, duplicates=duplicates, updated=updated, errors=tuple(errors), ids=ids
        )

    @staticmethod
    def _flag_injections(session: Session, rows: Sequence[RawMessageRow], now: int, actor: str) -> None:
        """Flag, never block: text that reads like instructions to a model gets a metadata flag and
        an audit row, so agents and the UI can treat it as untrusted data."""
        for row in rows:
            signals = injection_signals(row.content)
            flags = [f for f in (row.metadata_ or {}).get("flags") or [] if f != INJECTION_FLAG]
            if signals:
                flags.append(INJECTION_FLAG)
                audit.record(
                    session, user_id=row.user_id, at=now, actor=actor, action="flag",
                    entity_type="raw_message", entity_id=row.id,
                    details={"flags": [INJECTION_FLAG], "signals": signals},
                )  # fmt: skip
            elif "flags" not in (row.metadata_ or {}):
                continue
            # A new dict: SQLAlchemy's JSON column notices reassignment, not in-place edits.
            meta = {k: v for k, v in (row.metadata_ or {}).items() if k != "flags"}
            row.metadata_ = {**meta, "flags": flags} if flags else meta

    def _all_unchanged(self, cleaned: dict[tuple[str, str, str], RawMessage]) -> bool:
        by_user: dict[str, list[RawMessage]] = {}
        for msg in cleaned.values():
            by_user.setdefault(msg.user_id, []).append(msg)
        with self.db.read() as session:
            for user_id, msgs in by_user.items():
                existing = self.messages.by_platform_keys(
                    session, user_id, [(m.platform, m.message_id) for m in msgs]
                )
                for msg in msgs:
                    row = existing.get((msg.platform, msg.message_id))
                    if row is None or row.text_hash != aaak.content_hash(msg.content):
                        return False
        return True

    def _new_row(self, msg: RawMessage, text_hash: str, now: int) -> RawMessageRow:
        return RawMessageRow(
            message_id=msg.message_id,
            platform=msg.platform,
            user_id=msg.user_id,
            bot_id=msg.bot_id,
            channel=msg.channel,
            person=msg.person,
            timestamp=msg.timestamp,
            created_at=now,
            content=msg.content,
            attachments=[a.to_dict() for a in msg.attachments],
            metadata_=dict(msg.metadata),
            memory_stage=Tier.SHORT.value,
            access_count=0,
            importance_score=msg.importance_score,
            is_pinned=False,
            text_hash=text_hash,
        )

    def _apply_edit(
        self, session: Session, row: RawMessageRow, msg: RawMessage, text_hash: str, now: int, actor: str
    ) -> None:
        """An edited message: new text in place, previous text kept in the audit log."""
        audit.record(
            session,
            user_id=row.user_id,
            at=now,
            actor=actor,
            action="edit",
            entity_type="raw_message",
            entity_id=row.id,
            details={"previous_content": row.content},
        )
        row.content = msg.content
        row.text_hash = text_hash
        row.attachments = [a.to_dict() for a in msg.attachments]
        row.metadata_ = {**(row.metadata_ or {}), **msg.metadata, "editedAt": now}
        row.embedding_content_hash = None

    @staticmethod
    def _ensure_users(session: Session, user_ids: set[str], now: int) -> None:
        for user_id in user_ids:
            if session.get(User, user_id) is None:
                session.add(User(id=user_id, display_name=user_id, created_at=now))
        session.flush()

    def _embed_rows(self, rows: Sequence[RawMessageRow]) -> None:
        """Embed rows, upsert their vectors, then stamp the hashes (second, short transaction)."""
        docs = [message_doc(r) for r in rows]
        self.corpus.embed(docs)
        with self.db.write() as session:
            self.source.stamp(session, docs, self.embedder.model_id, self.embedder.dimensions)

    def reembed(self, row_ids: Sequence[int]) -> int:
        """Recompute vectors for rows whose AAAK text changed (tier, content, metadata)."""
        done = 0
        for part in chunked(list(row_ids), self.batch_size):
            with self.db.read() as session:
                rows = list(self.messages.by_ids(session, part).values())
            if rows:
                self._embed_rows(rows)
                done += len(rows)
        return done

    def repair(self, *, full: bool = False, progress: Progress | None = None) -> RepairReport:
        """Re-embed rows with missing or stale vectors; drop vectors whose row is gone.

        The quick check looks at missing hashes, model changes and counts; `full` also recomputes
        every AAAK hash and compares the vector index's keys with SQLite. Deferred (nothing done,
        `kind.deferred_for` set) while another process is writing messages.
        """
        # Rows without a stamp are the backlog: the pipelined drain embeds them (or returns at
        # once when another process is busy with them); the generic repair does the rest.
        drained = self.backlog.drain().embedded
        report = maintenance.repair(self.db, self.corpus, self.source, full=full, progress=progress)
        report = dataclasses.replace(report, reembedded=report.reembedded + drained)
        return RepairReport(reembedded=report.reembedded, orphans_removed=report.orphans_removed, kind=report)
