"""Counts of stored messages per tier in time buckets, for the Memory screen's chart."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select

from app.core.clock import DAY_MS
from app.core.domain import Tier
from app.core.storage.db import Database
from app.core.storage.models import RawMessageRow


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
