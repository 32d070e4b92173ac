"""Keyword reindex: when what a message's keyword entry holds changes, existing entries catch up once.

A message's keyword entry is written from `message_kind.keyword_body` when it is stored or
edited. When that body changes (session 6 added attachment names: "the forecast deck" finds the
message that shared `Quarterly-forecast-deck.pdf`), older messages keep their old entries, and
`doctor --repair` rebuilds only *missing* entries. So the body has a format number
(`message_kind.KEYWORD_FORMAT`), the data dir records which format its entries have
(`keyword_formats`), and a background job rewrites the entries written before, in id order:

- in batches, each read and rewritten in one short write transaction, so a message edited at
  the same moment is never overwritten with its older text, and search (which only reads) never
  waits for more than one batch;
- resumable: the highest id done is committed with each batch, and a restarted job (or another
  process) goes on from there; one process at a time (a lease of its own);
- only entries that exist are rewritten (an erased message's entry stays gone).

A data dir whose table has no row for the kind (every archive from before this job) starts at
format 0: the job runs once. A new data dir is stamped with the current format when the
services start on it (`stamp_new_archive`), so it never shows a reindex in progress.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import BigInteger, Integer, String, func, select, text
from sqlalchemy.orm import Mapped, Session, mapped_column

from app.core.clock import Clock
from app.core.index.lease import WriterLeases
from app.core.storage.db import Database
from app.core.storage.keyword import MESSAGE_KIND, KeywordIndex
from app.core.storage.models import Base, RawMessageRow

log = logging.getLogger(__name__)

BATCH = 250
# The pause after a batch, at least: as long as the batch took, so the job takes at most half of
# a core and of the write lock, and other writers (an import, a connector) get it in between
# (docs/benchmarks.md, "Trust": search during the reindex of 100k messages).
PAUSE_S = 0.02
LEASE = "keyword-reindex:message"


class KeywordFormatRow(Base):
    __tablename__ = "keyword_formats"

    kind: Mapped[str] = mapped_column(String(32), primary_key=True)
    # The format every entry up to `done_through` has, or (with `done_through` NULL) all entries.
    format: Mapped[int] = mapped_column(Integer)
    # While a reindex runs: the highest message id rewritten in the target format.
    done_through: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    target: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[int] = mapped_column(BigInteger)


@dataclass(frozen=True, slots=True)
class ReindexStatus:
    """Where the keyword entries of a kind stand against the current body format."""

    format: int  # the format all entries had before the running reindex (0: unknown, pre-stamp)
    target: int  # the format the code writes
    done: int  # rows rewritten in the target format so far (this pass)
    total: int  # rows of the kind

    @property
    def pending(self) -> bool:
        return self.format < self.target

    def to_dict(self) -> dict[str, object]:
        return {
            "format": self.target if not self.pending else self.format,
            "target": self.target,
            "pending": self.pending,
            "done": self.total if not self.pending else self.done,
            "total": self.total,
        }


class KeywordReindex:
    """Rewrite messages' keyword entries written in an older body format (see the module doc)."""

    def __init__(
        self,
        db: Database,
        clock: Clock,
        keywords: KeywordIndex,
        body: Callable[[RawMessageRow], str],
        target: int,
        *,
        leases: WriterLeases | None = None,
        batch: int = BATCH,
        pause_s: float = PAUSE_S,
    ) -> None:
        self.db = db
        self.clock = clock
        self.keywords = keywords
        self.body = body
        self.target = target
        self.leases = leases
        self.batch = batch
        self.pause_s = pause_s

    def stamp_new_archive(self) -> bool:
        """Record the current format for an archive with no messages yet (all its entries will be
        written in it), so a new data dir never shows nor runs a reindex; whether it stamped."""
        with self.db.read() as session:
            if session.get(KeywordFormatRow, MESSAGE_KIND) is not None:
                return False
            if session.scalar(select(RawMessageRow.id).limit(1)) is not None:
                return False  # an archive from before the stamp: the reindex has work
        if self.db.read_only:
            return False
        with self.db.write() as session:
            if session.scalar(select(RawMessageRow.id).limit(1)) is not None:
                return False  # another process stored messages meanwhile
            session.execute(
                text(
                    "INSERT OR IGNORE INTO keyword_formats(kind, format, done_through, target, updated_at) "
                    "VALUES (:k, :f, NULL, :f, :t)"
                ),
                {"k": MESSAGE_KIND, "f": self.target, "t": self.clock.now_ms()},
            )
        return True

    def status(self) -> ReindexStatus:
        with self.db.read() as session:
            row = session.get(KeywordFormatRow, MESSAGE_KIND)
            total = int(session.execute(select(func.count()).select_from(RawMessageRow)).scalar_one())
            if row is None:
                return ReindexStatus(0, self.target, 0, total)
            if row.format >= self.target or row.done_through is None or row.target != self.target:
                return ReindexStatus(row.format, self.target, 0, total)
            done = session.execute(
                select(func.count()).select_from(RawMessageRow).where(RawMessageRow.id <= row.done_through)
            ).scalar_one()
            return ReindexStatus(row.format, self.target, int(done), total)

    def run(
        self,
        *,
        stop: threading.Event | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> int:
        """Rewrite what is left, batch by batch, until done or `stop` is set; the entries rewritten.
        Returns 0 at once when the entries are current or another process is at it."""
        if not self.status().pending:
            return 0
        if self.leases is None:
            return self._run(stop, progress)
        if self.leases.live(LEASE):
            return 0
        with self.leases.hold(LEASE):
            if len(self.leases.live(LEASE)) > 1:
                return 0  # another process started at the same moment; it does the work
            return self._run(stop, progress)

    def _run(self, stop: threading.Event | None, progress: Callable[[int, int], None] | None) -> int:
        status = self.status()
        rewritten = 0
        started = time.perf_counter()
        while stop is None or not stop.is_set():
            began = time.perf_counter()
            count, finished = self.db.write_with_retry(self._batch)
            rewritten += count
            if progress is not None:
                progress(min(status.total, status.done + rewritten), status.total)
            if finished:
                log.info(
                    "keyword entries at format %d: %d rewritten in %.1f s",
                    self.target,
                    rewritten,
                    time.perf_counter() - started,
                )
                break
            if self.pause_s:
                time.sleep(max(self.pause_s, time.perf_counter() - began))
        return rewritten

    def _batch(self, session: Session) -> tuple[int, bool]:
        """One batch in one write transaction: (entries rewritten, whether the pass is complete)."""
        now = self.clock.now_ms()
        state = session.get(KeywordFormatRow, MESSAGE_KIND)
        if state is None:
            state = KeywordFormatRow(
                kind=MESSAGE_KIND, format=0, done_through=None, target=self.target, updated_at=now
            )
            session.add(state)
        if state.format >= self.target:
            return 0, True
        if state.target != self.target:  # the format moved on mid-pass: start again
            state.target, state.done_through = self.target, None
        after = state.done_through or 0
        rows = (
            session.execute(
                select(RawMessageRow)
                .where(RawMessageRow.id > after)
                .order_by(RawMessageRow.id)
                .limit(self.batch)
            )
            .scalars()
            .all()
        )
        if not rows:
            state.format, state.done_through, state.updated_at = self.target, None, now
            return 0, True
        # Only entries that exist: an erased message's entry must not come back.
        indexed = {
            int(r[0])
            for r in session.execute(
                text("SELECT rowid FROM messages_fts WHERE rowid BETWEEN :a AND :b"),
                {"a": rows[0].id, "b": rows[-1].id},
            )
        }
        todo = [r for r in rows if r.id in indexed]
        for user_id in {r.user_id for r in todo}:
            self.keywords.upsert(
                session,
                MESSAGE_KIND,
                user_id,
                [(str(r.id), self.body(r)) for r in todo if r.user_id == user_id],
            )
        state.done_through, state.updated_at = rows[-1].id, now
        return len(todo), False
