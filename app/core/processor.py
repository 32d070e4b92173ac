"""The processor: store, encode, embed and index incoming messages, idempotently and crash-safely.

A batch is written in two steps. First one SQLite transaction stores the rows and their keyword
entries (the batch becomes visible all at once, or not at all); then the batch is embedded and
upserted into LanceDB, and a second short transaction stamps each row's embedding hash. A crash
between the two leaves rows whose hash is missing or stale, which `repair()` re-embeds at start-up.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import bindparam, or_, select, update
from sqlalchemy.orm import Session

from app.core import aaak
from app.core.clock import Clock
from app.core.domain import Attachment, IngestError, IngestResult, RawMessage, Tier
from app.core.embeddings.base import Embedder
from app.core.errors import InvalidInput
from app.core.events import Change, EventBus
from app.core.privacy.injection import FLAG as INJECTION_FLAG
from app.core.privacy.injection import injection_signals
from app.core.storage import audit
from app.core.storage.db import Database, chunked
from app.core.storage.keyword import KeywordIndex
from app.core.storage.messages import MESSAGE_KIND, MessageRepository, vector_key
from app.core.storage.models import RawMessageRow, User
from app.core.storage.vectors import VectorCollection, VectorStore
from app.core.validation import clean_message

log = logging.getLogger(__name__)

Progress = Callable[[int, int | None], None]
MESSAGE_VECTOR_COLUMNS = ("user_id", "platform", "channel", "person", "tier", "timestamp", "archived")


@dataclass(frozen=True, slots=True)
class RepairReport:
    reembedded: int
    orphans_removed: int


def encode_row(row: RawMessageRow) -> aaak.EncodedRecord:
    return aaak.encode_record(
        content=row.content,
        timestamp=row.timestamp,
        tier=row.memory_stage,
        platform=row.platform,
        channel=row.channel,
        person=row.person,
        bot_id=row.bot_id,
        attachments=[Attachment.from_dict(a) for a in row.attachments or []],
        metadata=row.metadata_ or {},
    )


def keyword_body(row: RawMessageRow) -> str:
    """What exact-match search sees: the normalized text plus who and where."""
    return " ".join(p for p in (aaak.normalize_whitespace(row.content), row.person, row.channel) if p)


def vector_columns(row: RawMessageRow) -> dict[str, object]:
    return {
        "user_id": row.user_id,
        "platform": row.platform,
        "channel": row.channel,
        "person": row.person,
        "tier": row.memory_stage,
        "timestamp": row.timestamp,
        "archived": row.archived_at is not None,
    }


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

    @property
    def collection(self) -> VectorCollection:
        return self.vectors.collection(
            "messages", self.embedder.model_id, self.embedder.dimensions, MESSAGE_VECTOR_COLUMNS
        )

    def ingest(
        self,
        messages: Iterable[RawMessage | IngestError],
        *,
        progress: Progress | None = None,
        total: int | None = None,
        actor: str = "ingest",
    ) -> IngestResult:
        """Store messages in batches; IngestError items (from a parser) pass through as errors."""
        result = IngestResult()
        batch: list[RawMessage] = []
        errors: list[IngestError] = []
        done = 0
        for item in messages:
            if isinstance(item, IngestError):
                errors.append(item)
                continue
            batch.append(item)
            if len(batch) >= self.batch_size:
                result = result.merged(self._ingest_batch(batch, actor))
                done += len(batch)
                batch = []
                if progress:
                    progress(done, total)
        if batch:
            result = result.merged(self._ingest_batch(batch, actor))
            done += len(batch)
            if progress:
                progress(done, total)
        return result.merged(IngestResult(errors=tuple(errors)))

    def _ingest_batch(self, batch: Sequence[RawMessage], actor: str) -> IngestResult:
        errors: list[IngestError] = []
        cleaned: dict[tuple[str, str, str], RawMessage] = {}
        duplicates = 0
        for raw in batch:
            try:
                msg = clean_message(raw, max_bytes=self.max_message_bytes)
            except InvalidInput as exc:
                errors.append(IngestError(reason=str(exc), message_id=raw.message_id or None))
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
                self.keywords.upsert(
                    session,
                    MESSAGE_KIND,
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
        encoded = [encode_row(r) for r in rows]
        vectors = self.embedder.embed_documents([e.document for e in encoded])
        self.collection.upsert([vector_key(r.id) for r in rows], vectors, [vector_columns(r) for r in rows])
        now = self.clock.now_ms()
        stamps = [
            {
                "row_id": row.id,
                "hash": enc.content_hash,
                "model": self.embedder.model_id,
                "dims": self.embedder.dimensions,
                "now": now,
            }
            for row, enc in zip(rows, encoded, strict=True)
        ]
        with self.db.write() as session:
            # One executemany, not an ORM update per row: this runs for every ingested message.
            session.connection().execute(
                update(RawMessageRow.__table__)
                .where(RawMessageRow.__table__.c.id == bindparam("row_id"))
                .values(
                    embedding_model=bindparam("model"),
                    embedding_content_hash=bindparam("hash"),
                    embedding_dimensions=bindparam("dims"),
                    embedding_updated_at=bindparam("now"),
                ),
                stamps,
            )

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

        The quick check (start-up) looks at missing hashes and model changes; `full` also
        recomputes every AAAK hash and compares the vector index's keys with SQLite.
        """
        model = self.embedder.model_id
        with self.db.read() as session:
            stale_ids = list(
                session.scalars(
                    select(RawMessageRow.id).where(
                        or_(
                            RawMessageRow.embedding_content_hash.is_(None),
                            RawMessageRow.embedding_model.is_(None),
                            RawMessageRow.embedding_model != model,
                        )
                    )
                )
            )
            total_rows = self.messages.count_all(session)
        orphans = 0
        collection = self.collection
        if full or collection.count() != total_rows - len(stale_ids):
            with self.db.read() as session:
                all_ids = {str(i) for i in session.scalars(select(RawMessageRow.id))}
                if full:
                    for row in session.scalars(select(RawMessageRow)):
                        if (
                            row.embedding_content_hash
                            and encode_row(row).content_hash != row.embedding_content_hash
                        ):
                            stale_ids.append(row.id)
            keys = set(collection.keys())
            orphan_keys = sorted(keys - all_ids)
            if orphan_keys:
                collection.delete(orphan_keys)
                orphans = len(orphan_keys)
            missing = {int(k) for k in all_ids - keys}
            stale_ids = sorted(set(stale_ids) | missing)
        done = 0
        for part in chunked(stale_ids, self.batch_size):
            done += self.reembed(part)
            if progress:
                progress(done, len(stale_ids))
        return RepairReport(reembedded=done, orphans_removed=orphans)
