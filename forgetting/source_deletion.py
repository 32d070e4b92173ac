"""When source messages are deleted, the summaries that quoted them are rewritten without them.

A summary's key points, keywords and text are drawn from its source messages, so a deleted
message would survive there. Each affected summary is regenerated (rule-based) from the sources
that remain, or removed when none remain; its keyword entry and vector follow.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.core.clock import Clock
from app.core.storage import audit
from app.core.storage.db import Database, chunked
from app.core.storage.erasure import ErasedRow
from app.core.storage.keyword import KeywordIndex
from app.core.storage.messages import to_record
from app.core.storage.models import MemorySummaryRow, RawMessageRow
from forgetting.applier import ACTOR, SUMMARY_KIND, format_key_point
from forgetting.summarizer import RuleBasedSummarizer, SummaryDraft
from forgetting.summary_index import SummaryIndex


@dataclass
class SourceDeletionResult:
    regenerated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {"regenerated": len(self.regenerated), "removed": len(self.removed)}


def summary_body(draft: SummaryDraft, key_points: Sequence[str]) -> str:
    """What the keyword index holds for a summary (same text as the applier indexes)."""
    return " ".join(p for p in (draft.keywords_text, draft.summary_text, " ".join(key_points)) if p)


def affected_summaries(session: Session, user_id: str, deleted: set[int]) -> list[MemorySummaryRow]:
    """Summaries of `user_id` citing any deleted record (source lists are JSON, so filter here)."""
    rows = session.scalars(select(MemorySummaryRow).where(MemorySummaryRow.user_id == user_id))
    return [r for r in rows if deleted.intersection(r.source_record_ids or ())]


class SourceDeletion:
    def __init__(
        self,
        db: Database,
        clock: Clock,
        index: SummaryIndex,
        *,
        keywords: KeywordIndex,
        summarizer: RuleBasedSummarizer | None = None,
    ) -> None:
        self.db = db
        self.clock = clock
        self.index = index
        self.keywords = keywords
        self.summarizer = summarizer or RuleBasedSummarizer()

    def apply(self, user_id: str, erased: Sequence[ErasedRow]) -> SourceDeletionResult:
        deleted = {r.id for r in erased}
        result = SourceDeletionResult()
        with self.db.read() as session:
            ids = [s.summary_id for s in affected_summaries(session, user_id, deleted)]
        for summary_id in ids:
            self.db.write_with_retry(lambda s, sid=summary_id: self._rewrite(s, sid, deleted, result))
        self.index.delete_vectors(result.removed)
        self.index.embed(result.regenerated)
        if result.removed or result.regenerated:
            self.index.collection.purge_history()
        return result

    def _rewrite(
        self, session: Session, summary_id: str, deleted: set[int], result: SourceDeletionResult
    ) -> None:
        row = session.get(MemorySummaryRow, summary_id)
        if row is None:
            return
        now = self.clock.now_ms()
        gone = sorted(deleted.intersection(row.source_record_ids or ()))
        remaining_ids = [i for i in row.source_record_ids or () if i not in deleted]
        sources = []
        for part in chunked(remaining_ids):
            sources += list(session.scalars(select(RawMessageRow).where(RawMessageRow.id.in_(part))))
        sources.sort(key=lambda r: (r.timestamp, r.id))
        self.keywords.delete(session, SUMMARY_KIND, [summary_id])
        if not sources:
            # Nothing left to summarize: the summary goes, and no record points at it any more.
            session.execute(
                update(RawMessageRow)
                .where(RawMessageRow.summary_ref_id == summary_id)
                .values(summary_ref_id=None)
                .execution_options(synchronize_session=False)
            )
            session.delete(row)
            result.removed.append(summary_id)
            action = "summary_removed"
        else:
            records = tuple(to_record(r, reveal_archived=True) for r in sources)
            draft = self.summarizer.summarize(records)
            key_points = [format_key_point(k.text, k.source_ids) for k in draft.key_points]
            row.key_points = key_points
            row.keywords = list(draft.keywords)
            row.keywords_text = draft.keywords_text
            row.summary_text = draft.summary_text
            row.quality_score = float(draft.quality_score)
            row.source_record_ids = [r.id for r in sources]
            row.message_count = len(sources)
            row.embedding_content_hash = None
            row.updated_at = now
            self.keywords.upsert(
                session, SUMMARY_KIND, row.user_id, [(summary_id, summary_body(draft, key_points))]
            )
            result.regenerated.append(summary_id)
            action = "summary_regenerated"
        audit.record(
            session,
            user_id=row.user_id,
            at=now,
            actor=ACTOR,
            action=action,
            entity_type="memory_summary",
            entity_id=summary_id,
            details={"deletedSources": gone},
        )
