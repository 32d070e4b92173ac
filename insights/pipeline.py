"""Batch generation: group new messages by platform + channel, extract, upsert by (botId, dedupeKey),
index for search. Incremental: a group is analysed again only when it received messages."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.clock import Clock
from app.core.embeddings.base import Embedder
from app.core.storage.db import Database
from app.core.storage.models import RawMessageRow
from insights import closure, merge, reading
from insights.extractors import Extractor
from insights.index import InsightIndex
from insights.model import ChatMessage, InsightDraft, InsightKind, InsightStatus, insight_id
from insights.repository import InsightRepository, content_hash, to_draft
from insights.tables import InsightRow

log = logging.getLogger(__name__)
DEFAULT_BOT_ID = "local"
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
    notices: tuple[str, ...] = ()  # e.g. the LLM's daily cap stopped it: announced, never silent
    analysed: int = 0  # new messages analysed by this run
    pending: int = 0  # new messages left for the next run (its `limit` was reached)

    def to_dict(self) -> dict[str, Any]:
        return {
            "groupsTotal": self.groups_total,
            "groupsProcessed": self.groups_processed,
            "messagesRead": self.messages_read,
            "created": self.created,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "extractors": dict(self.extractors),
            "notices": list(self.notices),
            "analysed": self.analysed,
            "pending": self.pending,
        }


class InsightPipeline:
    def __init__(
        self, db: Database, index: InsightIndex, extractor: Extractor, clock: Clock, *, user_id: str,
        repository: InsightRepository | None = None, embedder: Embedder | None = None,
    ) -> None:  # fmt: skip
        self.db = db
        self.index = index
        self.extractor = extractor
        self.clock = clock
        self.user_id = user_id
        self.repo = repository or InsightRepository()
        self.embedder = embedder  # semantic similarity for merging restatements (optional)
        # Each run asks for a fresh name → person mapping (the identity directory may have changed).
        self.people: Callable[[], Callable[[str], str]] = lambda: _same_name

    def pending(self, *, full: bool = False) -> tuple[list[GroupWork], int]:
        """Groups with messages newer than their cursor (all groups when `full`), and the group count."""
        with self.db.read() as session:
            cursors = {} if full else self.repo.cursors(session, self.user_id)
            columns = (
                RawMessageRow.platform,
                RawMessageRow.channel,
                func.max(RawMessageRow.id),
                func.count(),
                func.min(RawMessageRow.timestamp),
            )
            groups = session.execute(
                select(*columns)
                .where(RawMessageRow.user_id == self.user_id)
                .group_by(RawMessageRow.platform, RawMessageRow.channel)
            ).all()  # fmt: skip
            work: list[tuple[int, GroupWork]] = []
            for platform, channel, max_id, total, first in groups:
                seen = cursors.get((platform, channel), 0)
                if max_id > seen:
                    new = total if seen == 0 else session.scalar(
                        select(func.count()).where(
                            RawMessageRow.user_id == self.user_id, RawMessageRow.platform == platform,
                            RawMessageRow.channel == channel, RawMessageRow.id > seen,
                        )
                    )  # fmt: skip
                    work.append((int(first), GroupWork(platform, channel, int(new or 0), int(max_id))))
        # Oldest conversation first, so a restatement elsewhere joins the original (its wording).
        work.sort(key=lambda w: (w[0], w[1].platform, w[1].channel))
        return [w for _, w in work], len(groups)

    def run(
        self, *, full: bool = False, progress: Callable[[int, int], None] | None = None,
        limit: int | None = None,
    ) -> GenerationReport:  # fmt: skip
        """Analyse the groups with new messages; with `limit`, at most that many new messages.

        Each group's new messages go in chunks (row order) with bounded context, and its cursor moves
        after each chunk, so a run cut short by `limit` (or stopped) resumes where it ended; the
        report's `pending` says how many new messages wait for the next run.
        """
        work, total = self.pending(full=full)
        created = updated = unchanged = read = analysed = pending = processed = 0
        used: dict[str, int] = {}
        ids: list[str] = []
        notices: list[str] = []
        with self.db.read() as session:
            cursors = {} if full else self.repo.cursors(session, self.user_id)
        for n, group in enumerate(work, 1):
            left = None if limit is None else limit - analysed
            if left is not None and left <= 0:
                pending += group.new_messages
                continue
            processed += 1
            seen = cursors.get((group.platform, group.channel), 0)
            size = reading.CHUNK if left is None else min(reading.CHUNK, left)
            done_here = 0
            for chunk in reading.chunks(
                self.db, self.user_id, group.platform, group.channel, seen, size=size
            ):
                read += len(chunk.messages)
                bot_id = chunk.bot_id or DEFAULT_BOT_ID
                for batch in _batches(chunk.messages):
                    # Drafts resting only on context messages were stored when those were new.
                    drafts = [
                        d for d in self.extractor.extract(batch) if chunk.new_ids.intersection(d.evidence)
                    ]
                    source = getattr(self.extractor, "last_source", self.extractor.name)
                    used[source] = used.get(source, 0) + 1
                    cap = getattr(self.extractor, "cap_reached", None)
                    if cap and cap not in notices:
                        notices.append(cap)
                    c, u, s, changed = self._store(drafts, bot_id, source, batch)
                    created, updated, unchanged = created + c, updated + u, unchanged + s
                    ids.extend(changed)
                with self.db.write() as session:
                    self.repo.set_cursor(
                        session, user_id=self.user_id, platform=group.platform, channel=group.channel,
                        row_id=chunk.max_row_id, at=self.clock.now_ms(),
                    )  # fmt: skip
                analysed += chunk.new_count
                done_here += chunk.new_count
                if limit is not None and analysed >= limit:
                    break
            pending += max(0, group.new_messages - done_here)
            if progress:
                progress(n, len(work))
        return GenerationReport(
            total, processed, read, created, updated, unchanged, used, tuple(ids), tuple(notices),
            analysed=analysed, pending=pending,
        )  # fmt: skip

    def _store(
        self, drafts: list[InsightDraft], bot_id: str, source: str, messages: Sequence[ChatMessage] = ()
    ) -> tuple[int, int, int, list[str]]:
        """Upsert each draft, or merge it into the stored insight it restates (one insight per item)."""
        with self.index.corpus.writing():  # rows commit before their vectors: not repair's to fix
            return self._store_indexed(drafts, bot_id, source, messages)

    def _store_indexed(
        self, drafts: list[InsightDraft], bot_id: str, source: str, messages: Sequence[ChatMessage] = ()
    ) -> tuple[int, int, int, list[str]]:
        now = self.clock.now_ms()
        counts = {"created": 0, "updated": 0, "unchanged": 0}
        changed: dict[str, InsightDraft] = {}
        people = self.people()
        same = _same_person(people)
        similar = _Similarity(self.embedder) if self.embedder is not None else None
        with self.db.write() as session:
            candidates = self._candidates(
                session, [d.occurred_at for d in drafts] + [m.timestamp for m in messages]
            )
            for draft in (self._with_people(d, people) for d in drafts):
                if self._answered_before_seen(session, bot_id, draft):
                    continue
                final = self._final(session, bot_id, draft, candidates, same, similar)
                if final is None:
                    counts["unchanged"] += 1
                    continue
                key, outcome = self.repo.upsert(
                    session, user_id=self.user_id, bot_id=bot_id, draft=final, extractor=source, now=now
                )
                counts[outcome] += 1
                candidates[key] = merge.candidate(key, final)
                if outcome != "unchanged":
                    changed[key] = final
            # Closures the extractor could not see (another channel, or an LLM that ignores them).
            for key, closed in closure.close(messages, candidates.values(), same).items():
                self.repo.upsert(
                    session, user_id=self.user_id, bot_id=bot_id, draft=closed, extractor=source, now=now
                )
                changed[key] = closed
                counts["updated"] += 1
            self.index.index_keywords(session, self.user_id, list(changed.items()))
        self.index.embed(self.user_id, list(changed.items()))
        return counts["created"], counts["updated"], counts["unchanged"], list(changed)

    def _final(
        self, session: Session, bot_id: str, draft: InsightDraft, candidates: dict[str, merge.Candidate],
        same: Callable[[str | None, str | None], bool], similar: Callable[[str, str], float] | None = None,
    ) -> InsightDraft | None:  # fmt: skip
        """What to store for this draft: itself, itself plus merged restatements, or the item it joins.

        None when the draft was merged before and says nothing new.
        """
        own = session.get(InsightRow, insight_id(bot_id, draft.dedupe_key))
        if own is not None:
            return merge.refresh(to_draft(own), draft)
        alias = self.repo.alias(session, bot_id, draft.dedupe_key)
        target: InsightRow | None = None
        if alias is not None:
            if alias.content_hash == content_hash(draft):
                return None
            target = session.get(InsightRow, alias.insight_id)
        else:
            found = merge.find_target(draft, candidates.values(), same, similar)
            target = session.get(InsightRow, found.id) if found else None
        if target is None:
            return draft
        self.repo.set_alias(session, user_id=self.user_id, bot_id=bot_id, draft=draft, insight=target.id)
        return merge.merge(to_draft(target), draft)

    def _candidates(self, session: Session, times: list[int]) -> dict[str, merge.Candidate]:
        if not times:
            return {}
        rows = self.repo.rows_between(
            session, self.user_id, min(times) - merge.WINDOW_MS, max(times) + merge.WINDOW_MS
        )
        return {r.id: merge.candidate(r.id, to_draft(r)) for r in rows}

    def _with_people(self, draft: InsightDraft, people: Callable[[str], str]) -> InsightDraft:
        """Owners and addressees as the identity directory names them (one person across platforms)."""
        owner = people(draft.owner) if draft.owner else None
        addressed = tuple(dict.fromkeys(people(a) for a in draft.addressed_to))
        if owner == draft.owner and addressed == draft.addressed_to:
            return draft
        title = draft.title
        if draft.owner and owner and title.startswith(f"{draft.owner}: "):
            title = f"{owner}: {title[len(draft.owner) + 2 :]}"
        return draft.with_changes(owner=owner, addressed_to=addressed, title=title)

    def _answered_before_seen(self, session: Session, bot_id: str, draft: InsightDraft) -> bool:
        """A question answered before we ever stored it is no open loop: keep it out of the list.

        One stored while open is still updated, so its status turns to resolved.
        """
        if draft.kind is not InsightKind.QUESTION or draft.status is not InsightStatus.RESOLVED:
            return False
        return session.get(InsightRow, insight_id(bot_id, draft.dedupe_key, self.user_id)) is None


def _batches(messages: list[ChatMessage]) -> list[list[ChatMessage]]:
    """Long groups go to the extractor in overlapping windows; ids dedupe what two windows both see."""
    if len(messages) <= BATCH:
        return [messages] if messages else []
    step = BATCH - OVERLAP
    return [messages[i : i + BATCH] for i in range(0, len(messages) - OVERLAP, step)]


def _same_name(name: str) -> str:
    return name


def _same_person(people: Callable[[str], str]) -> Callable[[str | None, str | None], bool]:
    def same(a: str | None, b: str | None) -> bool:
        return bool(a and b) and people(a or "").casefold().lstrip("@") == people(b or "").casefold().lstrip(
            "@"
        )

    return same


class _Similarity:
    """Cosine similarity of two statements, each embedded once per batch."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._vectors: dict[str, Any] = {}

    def _vector(self, text: str) -> Any:
        if text not in self._vectors:
            vector = self._embedder.embed_documents([text])[0]
            norm = float((vector @ vector) ** 0.5) or 1.0
            self._vectors[text] = vector / norm
        return self._vectors[text]

    def __call__(self, a: str, b: str) -> float:
        return float(self._vector(a) @ self._vector(b))
