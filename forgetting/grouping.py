"""Candidate selection and grouping: time bucket × dimension key, minimum size, per-tier cap."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from app.core.domain import MessageRecord
from forgetting.config import TierRule

DimensionKey = tuple[str, str, str, str]


def bucket_start(timestamp_ms: int, rule: TierRule) -> int:
    """Start of the bucket holding `timestamp_ms` (UTC days; weeks start on Monday)."""
    shifted = timestamp_ms - rule.bucket_offset_ms
    return shifted - shifted % rule.bucket_ms + rule.bucket_offset_ms


def dimension_key(record: MessageRecord) -> DimensionKey:
    return (record.platform or "", record.channel or "", record.person or "", record.bot_id or "")


def dimensions_dict(key: DimensionKey) -> dict[str, str | None]:
    platform, channel, person, bot_id = key
    return {"platform": platform, "channel": channel, "person": person, "botId": bot_id or None}


def is_candidate(record: MessageRecord, rule: TierRule, now_ms: int) -> bool:
    """In the rule's source tier, not archived, and strictly older than the tier's maximum age."""
    return (
        record.memory_stage is rule.source
        and record.archived_at is None
        and now_ms - record.timestamp > rule.max_age_ms
    )


@dataclass(frozen=True, slots=True)
class Group:
    bucket_start: int
    bucket_end: int  # inclusive
    key: DimensionKey
    records: tuple[MessageRecord, ...]  # oldest first


@dataclass(frozen=True, slots=True)
class Grouping:
    """Groups to process this run, plus what was left out and why."""

    groups: tuple[Group, ...]
    skipped_small: int  # records in groups under the minimum size
    deferred: int  # records left for a later run by the per-tier cap


def choose(
    sizes: Iterable[tuple[int, DimensionKey, int]],
    *,
    min_size: int,
    cap: int,
    presorted: bool = False,
    sized_total: int | None = None,
) -> tuple[list[tuple[int, DimensionKey, int]], int, int]:
    """Pick groups from (bucket start, key, size) triples: the one rule shared by plan and storage scans.

    Groups under `min_size` are skipped. Whole groups are taken oldest bucket first until the cap
    would be exceeded, so a group is never split across runs unless it alone is larger than the
    cap; then its oldest records are taken, leaving either nothing or at least `min_size` behind.
    `presorted`: the triples already come in (start, key) order (a stream from SQL, never held whole).
    `sized_total`: the records of all groups of at least `min_size` (counted in SQL); with it the
    stream is read only up to the first deferred group, and the rest is counted as deferred.
    Returns (chosen (start, key, how many to take), skipped records, deferred records).
    """
    small = 0
    chosen: list[tuple[int, DimensionKey, int]] = []
    used = deferred = 0
    ordered = sizes if presorted else sorted(sizes, key=lambda t: (t[0], t[1]))
    for start, key, size in ordered:
        if size < min_size:
            small += size
            continue
        if deferred == 0 and used + size <= cap:
            chosen.append((start, key, size))
            used += size
        elif deferred == 0 and not chosen:
            take = cap
            if 0 < size - take < min_size:
                take = max(min_size, size - min_size)
            take = min(take, size)
            chosen.append((start, key, take))
            used += take
            deferred += size - take
        else:
            deferred += size
            if sized_total is not None:
                return chosen, small, sized_total - used
    return chosen, small, deferred


def group_candidates(
    records: Iterable[MessageRecord], rule: TierRule, *, min_size: int, cap: int
) -> Grouping:
    """Bucket and segment candidate `records`, drop small groups, keep at most `cap` records."""
    buckets: dict[tuple[int, DimensionKey], list[MessageRecord]] = {}
    for record in records:
        buckets.setdefault((bucket_start(record.timestamp, rule), dimension_key(record)), []).append(record)
    picks, small, deferred = choose(
        [(start, key, len(members)) for (start, key), members in buckets.items()], min_size=min_size, cap=cap
    )
    groups = []
    for start, key, take in picks:
        members = sorted(buckets[(start, key)], key=lambda r: (r.timestamp, r.id))
        groups.append(Group(start, start + rule.bucket_ms - 1, key, tuple(members[:take])))
    return Grouping(tuple(groups), small, deferred)
