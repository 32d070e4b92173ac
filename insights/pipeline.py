"""Batch generation: group new messages by platform + channel, extract, upsert by (botId, dedupeKey),
index for search. Incremental: a group is analysed again only when it received messages."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.clock import DAY_MS, Clock
from app.core.storage.db import Database
from app.core.storage.models import RawMessageRow
from insights.extractors import Extractor
from insights.index import InsightIndex
from insights.model import ChatMessage, InsightDraft, InsightKind, InsightStatus, insight_id
from insights.repository import InsightRepository
from insights.tables import InsightRow

log = logging.getLogger(__name__)
DEFAULT_BOT_ID = "local"
CONTEXT_MS = 14 * DAY_MS  # earlier messages re-read so answers and acceptances find their question
BATCH = 300
OVERLAP = 40


@dataclass(frozen=True, slots=True)
class GroupWork:
    platform: str
    channel: str
    new_messages: int
    max_row_id: int


@dataclass(frozen=True, slots=True)
class GenerationReport:
    groups_total: int
    groups_processed: int
    messages_read: int
    created: int
    updated: int
    unchanged: int
    extractors: dict[str, int] = field(default_factory=dict)
    ids: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "groupsTotal": self.groups_total,
            "groupsProcessed": self.groups_processed,
            "messagesRead": self.messages_read,
            "created": self.created,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "extractors": dict(self.extractors),
        }


class InsightPipeline:
    def __init__(
        self, db: Database, index: InsightIndex, extractor: Extractor, clock: Clock, *, user_id: str,
        repository: InsightRepository | None = None,
    ) -> None:  # fmt: skip
        self.db = db
        self.index = index
        self.extractor = extractor
        self.clock = clock
        self.user_id = user_id
        self.repo = repository or InsightRepository()

    def pending(self, *, full: bool = False) -> tuple[list[GroupWork], int]:
        """Groups with messages newer than their cursor (all groups when `full`), and the group count."""
        with self.db.read() as session:
            cursors = {} if full else self.repo.cursors(session, self.user_id)
            columns = (
                RawMessageRow.platform,
                RawMessageRow.channel,
                func.max(RawMessageRow.id),
                func.count(),
            )
            groups = session.execute(
                select(*columns)
                .where(RawMessageRow.user_id == self.user_id)
                .group_by(RawMessageRow.platform, RawMessageRow.channel)
            ).all()  # fmt: skip
            work: list[GroupWork] = []
            for platform, channel, max_id, total in groups:
                seen = cursors.get((platform, channel), 0)
                if max_id > seen:
                    new = total if seen == 0 else session.scalar(
                        select(func.count()).where(
                            RawMessageRow.user_id == self.user_id, RawMessageRow.platform == platform,
                            RawMessageRow.channel == channel, RawMessageRow.id > seen,
                        )
                    )  # fmt: skip
                    work.append(GroupWork(platform, channel, int(new or 0), int(max_id)))
        return work, len(groups)

    def run(
        self, *, full: bool = False, progress: Callable[[int, int], None] | None = None
    ) -> GenerationReport:
        work, total = self.pending(full=full)
        created = updated = unchanged = read = 0
        used: dict[str, int] = {}
        ids: list[str] = []
        for n, group in enumerate(work, 1):
            messages, bot_id = self._messages(group, full)
            read += len(messages)
            for batch in _batches(messages):
                drafts = self.extractor.extract(batch)
                source = getattr(self.extractor, "last_source", self.extractor.name)
                used[source] = used.get(source, 0) + 1
                c, u, s, changed = self._store(drafts, bot_id, source)
                created, updated, unchanged = created + c, updated + u, unchanged + s
                ids.extend(changed)
            with self.db.write() as session:
                self.repo.set_cursor(
                    session, user_id=self.user_id, platform=group.platform, channel=group.channel,
                    row_id=group.max_row_id, at=self.clock.now_ms(),
                )  # fmt: skip
            if progress:
                progress(n, len(work))
        return GenerationReport(total, len(work), read, created, updated, unchanged, used, tuple(ids))

    def _messages(self, group: GroupWork, full: bool) -> tuple[list[ChatMessage], str]:
        base = (
            RawMessageRow.user_id == self.user_id,
            RawMessageRow.platform == group.platform,
            RawMessageRow.channel == group.channel,
        )
        with self.db.read() as session:
            seen = (
                0
                if full
                else self.repo.cursors(session, self.user_id).get((group.platform, group.channel), 0)
            )
            first_new = session.scalar(
                select(func.min(RawMessageRow.timestamp)).where(*base, RawMessageRow.id > seen)
            )
            start = (first_new or 0) - CONTEXT_MS if seen else 0
            rows = session.scalars(
                select(RawMessageRow).where(*base, RawMessageRow.timestamp >= start)
                .order_by(RawMessageRow.timestamp, RawMessageRow.id)
            ).all()  # fmt: skip
        bots = [r.bot_id for r in rows if r.bot_id]
        messages = [
            ChatMessage(
                message_id=r.message_id, person=r.person, timestamp=r.timestamp, content=r.content,
                platform=r.platform, channel=r.channel, bot_id=r.bot_id,
            )
            for r in rows
        ]  # fmt: skip
        return messages, (bots[0] if bots else DEFAULT_BOT_ID)

    def _store(self, drafts: list[InsightDraft], bot_id: str, source: str) -> tuple[int, int, int, list[str]]:
        with self.index.corpus.writing():  # rows commit before their vectors: not repair's to fix
            return self._store_indexed(drafts, bot_id, source)

    def _store_indexed(
        self, drafts: list[InsightDraft], bot_id: str, source: str
    ) -> tuple[int, int, int, list[str]]:
        now = self.clock.now_ms()
        counts = {"created": 0, "updated": 0, "unchanged": 0}
        changed: list[tuple[str, InsightDraft]] = []
        with self.db.write() as session:
            for draft in drafts:
                if self._answered_before_seen(session, bot_id, draft):
                    continue
                key, outcome = self.repo.upsert(
                    session, user_id=self.user_id, bot_id=bot_id, draft=draft, extractor=source, now=now
                )
                counts[outcome] += 1
                if outcome != "unchanged":
                    changed.append((key, draft))
            self.index.index_keywords(session, self.user_id, changed)
        self.index.embed(self.user_id, changed)
        return counts["created"], counts["updated"], counts["unchanged"], [k for k, _ in changed]

    def _answered_before_seen(self, session: Session, bot_id: str, draft: InsightDraft) -> bool:
        """A question answered before we ever stored it is no open loop: keep it out of the list.

        One stored while open is still updated, so its status turns to resolved.
        """
        if draft.kind is not InsightKind.QUESTION or draft.status is not InsightStatus.RESOLVED:
            return False
        return session.get(InsightRow, insight_id(bot_id, draft.dedupe_key)) is None


def _batches(messages: list[ChatMessage]) -> list[list[ChatMessage]]:
    """Long groups go to the extractor in overlapping windows; ids dedupe what two windows both see."""
    if len(messages) <= BATCH:
        return [messages] if messages else []
    step = BATCH - OVERLAP
    return [messages[i : i + BATCH] for i in range(0, len(messages) - OVERLAP, step)]
