"""Counts of stored messages per tier in time buckets, for the Memory screen's chart."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select

from app.core.clock import DAY_MS
from app.core.domain import Tier
from app.core.storage.db import Database
from app.core.storage.models import RawMessageRow

ARCHIVED = "archived"  # tier_overview's series for archived messages, whatever their tier


@dataclass(frozen=True, slots=True)
class TierTimeline:
    """`counts[tier][i]` messages of bucket i (oldest first); bucket i starts at `starts[i]`."""

    starts: tuple[int, ...]
    counts: dict[str, tuple[int, ...]]
    older: dict[str, int]  # messages before the first bucket, per tier


def tier_timeline(
    db: Database, user_id: str, now_ms: int, *, bucket_days: int = 7, buckets: int = 12
) -> TierTimeline:
    """Where each tier's messages sit in time: one grouped query, no rows loaded."""
    size = bucket_days * DAY_MS
    first = now_ms - buckets * size
    bucket = ((RawMessageRow.timestamp - first) / size).label("bucket")
    with db.read() as session:
        rows = session.execute(
            select(RawMessageRow.memory_stage, func.floor(bucket), func.count())
            .where(RawMessageRow.user_id == user_id, RawMessageRow.timestamp >= first)
            .group_by(RawMessageRow.memory_stage, func.floor(bucket))
        ).all()
        older_rows = session.execute(
            select(RawMessageRow.memory_stage, func.count())
            .where(RawMessageRow.user_id == user_id, RawMessageRow.timestamp < first)
            .group_by(RawMessageRow.memory_stage)
        ).all()
    counts = {t.value: [0] * buckets for t in Tier}
    for stage, index, count in rows:
        i = min(max(int(index), 0), buckets - 1)  # a message stamped in the future lands in the last bucket
        counts.setdefault(str(stage), [0] * buckets)[i] += int(count)
    return TierTimeline(
        starts=tuple(first + i * size for i in range(buckets)),
        counts={k: tuple(v) for k, v in counts.items()},
        older={str(stage): int(count) for stage, count in older_rows},
    )


@dataclass(frozen=True, slots=True)
class TierTotals:
    """Messages per tier split into kept in full and archived (text kept in a summary)."""

    kept: dict[str, int]
    archived: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.kept.values()) + sum(self.archived.values())


def tier_overview(db: Database, user_id: str, *, max_buckets: int = 40) -> tuple[TierTotals, TierTimeline]:
    """The totals per tier and the whole-history chart, from one grouped scan of the messages.

    The chart has the messages kept in full per tier, plus "archived" (text folded into
    summaries), over the whole stored history (first to last message), so an import of old chats
    shows; the bucket grows from a week to a month, quarter or year to fit `max_buckets`."""
    kept: dict[str, int] = {t.value: 0 for t in Tier}
    archived_totals: dict[str, int] = {t.value: 0 for t in Tier}
    with db.read() as session:
        first, last = session.execute(
            select(func.min(RawMessageRow.timestamp), func.max(RawMessageRow.timestamp)).where(
                RawMessageRow.user_id == user_id
            )
        ).one()
        if first is None:
            return TierTotals(kept, archived_totals), TierTimeline((), {t.value: () for t in Tier}, {})
        for days in (7, 30, 91, 365):
            size = days * DAY_MS
            start = first - first % size  # buckets on fixed boundaries, so they do not shift per import
            buckets = int((last - start) // size) + 1
            if buckets <= max_buckets:
                break
        bucket = func.floor((RawMessageRow.timestamp - start) / size)
        archived = RawMessageRow.archived_at.is_not(None)
        rows = session.execute(
            select(RawMessageRow.memory_stage, archived, bucket, func.count())
            .where(RawMessageRow.user_id == user_id)
            .group_by(RawMessageRow.memory_stage, archived, bucket)
        ).all()
    counts: dict[str, list[int]] = {name: [0] * buckets for name in (*(t.value for t in Tier), ARCHIVED)}
    for stage, is_archived, index, count in rows:
        totals = archived_totals if is_archived else kept
        totals[str(stage)] = totals.get(str(stage), 0) + int(count)
        name = ARCHIVED if is_archived else str(stage)
        counts.setdefault(name, [0] * buckets)[min(max(int(index), 0), buckets - 1)] += int(count)
    timeline = TierTimeline(
        starts=tuple(start + i * size for i in range(buckets)),
        counts={k: tuple(v) for k, v in counts.items()},
        older={},
    )
    return TierTotals(kept, archived_totals), timeline
