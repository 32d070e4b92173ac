"""apply(plan): one write transaction per group (summary, links, tiers, archives, audit, undo items).

A group is committed whole or not at all, so a run killed at any instant leaves only complete
groups. Vectors are refreshed after the commits: rows whose tier changed lose their embedding hash
inside the group transaction, so a crash before re-embedding is caught by the start-up repair.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import insert, select, update
from sqlalchemy.orm import Session

from app.core.clock import Clock
from app.core.domain import Tier
from app.core.storage import audit
from app.core.storage.db import Database, chunked
from app.core.storage.keyword import KeywordIndex
from app.core.storage.models import MemorySummaryRow, RawMessageRow
from forgetting.lock import UserLock
from forgetting.models import ForgetRunItemRow
from forgetting.planner import ARCHIVE, PROMOTE, ForgetPlan, GroupPlan

SUMMARY_KIND = "summary"
ACTOR = "forgetting"


@dataclass(frozen=True, slots=True)
class GroupError:
    summary_id: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"summaryId": self.summary_id, "reason": self.reason}


@dataclass
class ApplyResult:
    """What the commits changed; the ids feed the vector refresh that follows."""

    applied: list[str] = field(default_factory=list)
    errors: list[GroupError] = field(default_factory=list)
    promoted_ids: list[int] = field(default_factory=list)
    archived_ids: list[int] = field(default_factory=list)
    promoted_by_tier: dict[Tier, int] = field(default_factory=dict)
    archived_by_tier: dict[Tier, int] = field(default_factory=dict)
    summarized_by_tier: dict[Tier, int] = field(default_factory=dict)


def format_key_point(text: str, ids: tuple[int, ...]) -> str:
    """Key points are stored as text with their citations, e.g. "Ship on Tuesday [#12, #15]"."""
    return f"{text} [" + ", ".join(f"#{i}" for i in ids) + "]"


class Applier:
    """Writes a plan for one run. `before_group` is a test/progress hook called before each commit."""

    def __init__(
        self,
        db: Database,
        clock: Clock,
        *,
        run_id: str,
        lock: UserLock | None = None,
        keywords: KeywordIndex | None = None,
        before_group: Callable[[GroupPlan], None] | None = None,
    ) -> None:
        self.db = db
        self.clock = clock
        self.run_id = run_id
        self.lock = lock
        self.keywords = keywords or KeywordIndex()
        self.before_group = before_group

    def apply(self, plan: ForgetPlan) -> ApplyResult:
        result = ApplyResult()
        for group in plan.groups:
            if self.before_group is not None:
                self.before_group(group)
            try:
                outcome = self.db.write_with_retry(lambda s, g=group: self._apply_group(s, g))
            except Exception as exc:
                if self.lock is not None and self.lock.lost:
                    raise  # LockLost: stop the run, the other owner continues
                result.errors.append(GroupError(group.summary_id, f"{type(exc).__name__}: {exc}"))
                continue
            if isinstance(outcome, GroupError):
                result.errors.append(outcome)
                continue
            promoted, archived = outcome
            result.applied.append(group.summary_id)
            result.promoted_ids.extend(promoted)
            result.archived_ids.extend(archived)
            tier = group.source_tier
            result.promoted_by_tier[tier] = result.promoted_by_tier.get(tier, 0) + len(promoted)
            result.archived_by_tier[tier] = result.archived_by_tier.get(tier, 0) + len(archived)
            result.summarized_by_tier[tier] = result.summarized_by_tier.get(tier, 0) + 1
        return result

    def _apply_group(self, session: Session, group: GroupPlan) -> tuple[list[int], list[int]] | GroupError:
        if self.lock is not None:
            self.lock.check(session)
        now = self.clock.now_ms()
        # Core statements on the transaction's connection, not ORM objects: a group is a handful of
        # set-based writes, and the ORM's per-statement overhead dominated the cycle time.
        conn = session.connection()
        state = {
            r.id: r
            for part in chunked(list(group.record_ids))
            for r in conn.execute(
                select(
                    RawMessageRow.id,
                    RawMessageRow.user_id,
                    RawMessageRow.memory_stage,
                    RawMessageRow.archived_at,
                    RawMessageRow.is_pinned,
                    RawMessageRow.summary_ref_id,
                ).where(RawMessageRow.id.in_(part))
            )
        }
        changed = [
            rid
            for rid in group.record_ids
            if (row := state.get(rid)) is None
            or row.user_id != group.user_id
            or row.memory_stage != group.source_tier.value
            or row.archived_at is not None
        ]
        if changed:
            return GroupError(
                group.summary_id,
                f"records {changed[:10]} changed since the plan was made (deleted, moved or archived); "
                "the group is left for the next run",
            )
        draft = group.draft
        values = {
            "user_id": group.user_id,
            "summary_tier": group.summary_tier,
            "source_tier": group.source_tier.value,
            "start_timestamp": group.start_timestamp,
            "end_timestamp": group.end_timestamp,
            "message_count": len(group.record_ids),
            "source_record_ids": list(group.record_ids),
            "key_points": [format_key_point(k.text, k.source_ids) for k in draft.key_points],
            "keywords": list(draft.keywords),
            "keywords_text": draft.keywords_text,
            "summary_text": draft.summary_text,
            "dimensions": dict(group.dimensions),
            "quality_score": float(draft.quality_score),
            "embedding_model": None,
            "embedding_content_hash": None,
            "updated_at": now,
        }
        exists = conn.scalar(
            select(MemorySummaryRow.summary_id).where(MemorySummaryRow.summary_id == group.summary_id)
        )
        if exists is None:  # ids are deterministic: re-applying the same group rewrites it in place
            session.execute(
                insert(MemorySummaryRow).values(summary_id=group.summary_id, created_at=now, **values)
            )
        else:
            conn.execute(
                update(MemorySummaryRow)
                .where(MemorySummaryRow.summary_id == group.summary_id)
                .values(**values)
            )
        promoted: list[int] = []
        archived: list[int] = []
        items = []
        for decision in group.decisions:
            row = state[decision.record_id]
            # A record pinned after the plan was made is still never archived.
            action = PROMOTE if (decision.action == ARCHIVE and row.is_pinned) else decision.action
            (promoted if action == PROMOTE else archived).append(row.id)
            items.append(
                {
                    "run_id": self.run_id,
                    "record_id": row.id,
                    "summary_id": group.summary_id,
                    "action": action,
                    "prev_stage": row.memory_stage,
                    "new_stage": group.target_tier.value if action == PROMOTE else row.memory_stage,
                    "prev_summary_ref_id": row.summary_ref_id,
                    "applied_at": now,
                }
            )
        conn.execute(insert(ForgetRunItemRow), items)
        for part in chunked(promoted):
            # The Tier line of their AAAK text changed: no hash means "re-embed me" (also for repair).
            session.execute(
                update(RawMessageRow)
                .where(RawMessageRow.id.in_(part))
                .values(
                    memory_stage=group.target_tier.value,
                    summary_ref_id=group.summary_id,
                    embedding_content_hash=None,
                )
            )
        for part in chunked(archived):
            # Verbatim content stays in its column (recoverable, searchable with include_archived);
            # archived_at hides it from normal results and from MessageRecord.content.
            conn.execute(
                update(RawMessageRow)
                .where(RawMessageRow.id.in_(part))
                .values(archived_at=now, summary_ref_id=group.summary_id)
            )
        body = " ".join(
            p for p in (draft.keywords_text, draft.summary_text, " ".join(values["key_points"])) if p
        )
        self.keywords.upsert(session, SUMMARY_KIND, group.user_id, [(group.summary_id, body)])
        audit.record(
            session,
            user_id=group.user_id,
            at=now,
            actor=ACTOR,
            action="forget_group",
            entity_type="memory_summary",
            entity_id=group.summary_id,
            details={
                "runId": self.run_id,
                "sourceTier": group.source_tier.value,
                "targetTier": group.target_tier.value,
                "promoted": promoted,
                "archived": archived,
                "summarizer": draft.summarizer,
            },
        )
        return promoted, archived
