"""Deleting messages for good: one by id, or in bulk by platform, channel, person and date range.

Plan, then apply: `plan(selector)` says what would go (counts and a sample) and changes nothing;
`delete(ids)` removes rows, keyword entries, vectors and the audit log's copies of their text,
lets features fix what quoted them (summaries' key points), then purges the files: SQLite's
(`erasure.purge_files`) and LanceDB's, whose fragments that held the vectors are compacted
without them (`vector_erasure.py`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.sql.elements import ColumnElement

from app.core.clock import Clock, iso
from app.core.errors import InvalidInput, NotFound
from app.core.events import Change, EventBus
from app.core.processor import Processor
from app.core.storage.db import Database, chunked
from app.core.storage.erasure import ErasedRow, erase_rows, purge_files
from app.core.storage.keyword import KeywordIndex
from app.core.storage.messages import vector_key
from app.core.storage.models import RawMessageRow
from app.services.vector_erasure import VectorErasure

log = logging.getLogger(__name__)

# Each hook gets the user and the rows just deleted (without their text), fixes its own copies
# and returns counts of what it changed (e.g. {"regenerated": 2, "removed": 1}).
DeletionHook = Callable[[str, list[ErasedRow]], dict[str, int]]
SAMPLE_SIZE = 10
# One write transaction per this many messages keeps the write lock short on large deletions.
BATCH = 500


@dataclass(frozen=True, slots=True)
class MessageSelector:
    """Which messages a bulk deletion means; at least one field must be set (never "everything")."""

    platform: str | None = None
    channel: str | None = None
    person: str | None = None
    since: int | None = None  # Unix ms, inclusive
    until: int | None = None  # Unix ms, exclusive

    def is_empty(self) -> bool:
        return all(
            v in (None, "") for v in (self.platform, self.channel, self.person, self.since, self.until)
        )

    def conditions(self, user_id: str) -> list[ColumnElement[bool]]:
        where: list[ColumnElement[bool]] = [RawMessageRow.user_id == user_id]
        if self.platform:
            where.append(RawMessageRow.platform == self.platform)
        if self.channel:
            where.append(RawMessageRow.channel == self.channel)
        if self.person:
            where.append(RawMessageRow.person == self.person)
        if self.since is not None:
            where.append(RawMessageRow.timestamp >= self.since)
        if self.until is not None:
            where.append(RawMessageRow.timestamp < self.until)
        return where

    def to_dict(self) -> dict[str, Any]:
        return {
            "platform": self.platform,
            "channel": self.channel,
            "person": self.person,
            "since": iso(self.since),
            "until": iso(self.until),
        }


@dataclass(frozen=True, slots=True)
class DeletionPlan:
    """What a bulk deletion would remove: counts per place and the first few messages."""

    selector: MessageSelector
    count: int
    first_timestamp: int | None
    last_timestamp: int | None
    by_channel: tuple[tuple[str, int], ...]
    sample: tuple[dict[str, Any], ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "selector": self.selector.to_dict(),
            "count": self.count,
            "first": iso(self.first_timestamp),
            "last": iso(self.last_timestamp),
            "byChannel": [{"channel": c, "count": n} for c, n in self.by_channel],
            "sample": list(self.sample),
        }


@dataclass(frozen=True, slots=True)
class DeletionReport:
    deleted: tuple[int, ...]
    purged: bool
    # What features rewrote or removed because it quoted the deleted text, e.g. {"regenerated": 2}.
    derived: dict[str, int] = field(default_factory=dict)
    # Whether LanceDB's files no longer hold the deleted vectors (their fragments compacted and
    # old versions dropped) when the call returns; False: a host's worker rewrites them right
    # after (or, after an error, the repair job); `doctor` tells when none is left.
    vectors_erased: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {
            "deleted": len(self.deleted),
            "ids": list(self.deleted),
            "filesPurged": self.purged,
            "derived": dict(self.derived),
            "vectorsErased": self.vectors_erased,
        }


class DeletionService:
    def __init__(
        self,
        db: Database,
        processor: Processor,
        clock: Clock,
        *,
        user_id: str,
        keywords: KeywordIndex | None = None,
        events: EventBus | None = None,
        erasure: VectorErasure | None = None,
    ) -> None:
        self.db = db
        self.processor = processor
        self.clock = clock
        self.user_id = user_id
        self.keywords = keywords or KeywordIndex()
        self.events = events
        # Features that copied message text (forgetting summaries) register here in bootstrap.
        self.hooks: list[DeletionHook] = []
        # Compacts the LanceDB fragments that held deleted vectors (None: LanceDB's own rule only).
        self.erasure = erasure

    def plan(self, selector: MessageSelector) -> DeletionPlan:
        if selector.is_empty():
            raise InvalidInput(
                "a bulk deletion needs at least one of platform, channel, person, since or until",
                hint="to delete one message use its id (`strata messages delete ID`)",
            )
        if selector.since is not None and selector.until is not None and selector.since >= selector.until:
            raise InvalidInput("'since' must be before 'until'")
        where = selector.conditions(self.user_id)
        with self.db.read() as session:
            count, first, last = session.execute(
                select(
                    func.count(), func.min(RawMessageRow.timestamp), func.max(RawMessageRow.timestamp)
                ).where(*where)
            ).one()
            by_channel = session.execute(
                select(RawMessageRow.channel, func.count())
                .where(*where)
                .group_by(RawMessageRow.channel)
                .order_by(func.count().desc())
                .limit(20)
            ).all()
            sample = session.scalars(
                select(RawMessageRow).where(*where).order_by(RawMessageRow.timestamp).limit(SAMPLE_SIZE)
            ).all()
            return DeletionPlan(
                selector,
                int(count or 0),
                first,
                last,
                tuple((str(c), int(n)) for c, n in by_channel),
                tuple(
                    {
                        "id": r.id,
                        "platform": r.platform,
                        "channel": r.channel,
                        "person": r.person,
                        "timestamp": iso(r.timestamp),
                        "preview": r.content[:80],
                    }
                    for r in sample
                ),
            )

    def matching_ids(self, selector: MessageSelector) -> list[int]:
        self.plan(selector)  # same validation as the preview
        with self.db.read() as session:
            return list(
                session.scalars(
                    select(RawMessageRow.id)
                    .where(*selector.conditions(self.user_id))
                    .order_by(RawMessageRow.id)
                )
            )

    def delete_matching(self, selector: MessageSelector, *, actor: str = "user") -> DeletionReport:
        return self.delete(self.matching_ids(selector), actor=actor, missing_ok=True)

    def delete(self, ids: Sequence[int], *, actor: str = "user", missing_ok: bool = False) -> DeletionReport:
        """Delete messages of this user for good; unknown ids raise NotFound unless `missing_ok`."""
        wanted = sorted(set(ids))
        erased: list[ErasedRow] = []
        now = self.clock.now_ms()
        if self.erasure is not None:
            # Before anything is deleted, so that a crash from here on leaves the erasure recorded.
            self.erasure.mark(wanted)
        for part in chunked(wanted, BATCH):
            with self.db.write() as session:
                rows = [
                    r
                    for r in session.scalars(select(RawMessageRow).where(RawMessageRow.id.in_(part)))
                    if r.user_id == self.user_id
                ]
                if not missing_ok and len(rows) != len(part):
                    found = {r.id for r in rows}
                    absent = [i for i in part if i not in found]
                    raise NotFound(f"no message with id {absent[0]}")
                erased += erase_rows(session, rows, keywords=self.keywords, actor=actor, at=now)
        if not erased:
            return DeletionReport((), False)
        # After the commits: a crash here leaves orphan vectors, which search ignores and repair drops.
        self.processor.collection.delete([vector_key(r.id) for r in erased])
        derived: dict[str, int] = {}
        for hook in self.hooks:
            try:
                for key, n in (hook(self.user_id, erased) or {}).items():
                    derived[key] = derived.get(key, 0) + n
            except Exception:  # the text is already gone from the rows; report, don't undo
                log.exception("a deletion hook failed; `strata doctor --repair` rechecks the indexes")
        erased_vectors = self._purge_vectors()
        purged = purge_files(self.db)
        deleted = tuple(r.id for r in erased)
        if self.events:
            self.events.publish(Change("message", "deleted", tuple(map(str, deleted))))
        return DeletionReport(deleted, purged, derived, erased_vectors)

    def _purge_vectors(self) -> bool:
        """Compact the fragments that held the vectors and drop old versions; False: left pending."""
        if self.erasure is None:
            self.processor.collection.purge_history()
            return False
        if self.erasure.background:  # a host: answered now, compacted right after on its worker
            self.erasure.request()
            return False
        try:
            run = self.erasure.run()
        except Exception:  # the rows are gone; the record stays for the repair job
            log.exception("erasing the deleted vectors failed; the repair job retries")
            return False
        if self.processor.collection.name not in run.purged:
            self.processor.collection.purge_history()
        return run.pending == 0
