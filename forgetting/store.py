"""Storage side of forgetting: index-driven candidate scans, runs, and run items."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import and_, func, literal, select
from sqlalchemy.orm import Session

from app.core.domain import MessageRecord
from app.core.storage.db import chunked
from app.core.storage.messages import to_record
from app.core.storage.models import RawMessageRow
from forgetting.config import ForgetConfig, TierRule
from forgetting.grouping import DimensionKey, choose
from forgetting.models import ForgetRunItemRow, ForgetRunRow


@dataclass(frozen=True, slots=True)
class Scan:
    """The records of the groups chosen for one tier, and what the scan left out."""

    records: tuple[MessageRecord, ...]
    skipped: int
    deferred: int


def undone_record_ids(user_id: str):  # type: ignore[no-untyped-def]
    """Records a run touched that the user then undid: the user said "keep these as they are"."""
    return (
        select(ForgetRunItemRow.record_id)
        .join(ForgetRunRow, ForgetRunRow.run_id == ForgetRunItemRow.run_id)
        .where(ForgetRunRow.user_id == user_id, ForgetRunRow.undone_at.is_not(None))
    )


def _candidate_filter(user_id: str, rule: TierRule, cutoff: int, include_undone: bool = False):  # type: ignore[no-untyped-def]
    # Matches ix_raw_messages_forget_scan (user_id, memory_stage, archived_at, timestamp).
    where = and_(
        RawMessageRow.user_id == user_id,
        RawMessageRow.memory_stage == rule.source.value,
        RawMessageRow.archived_at.is_(None),
        RawMessageRow.timestamp < cutoff,
    )
    if not include_undone:
        where = and_(where, RawMessageRow.id.not_in(undone_record_ids(user_id)))
    return where


def scan_candidates(
    session: Session,
    user_id: str,
    rule: TierRule,
    config: ForgetConfig,
    now_ms: int,
    *,
    include_undone: bool = False,
) -> Scan:
    """Pick this tier's groups with one aggregate over the scan index, then load only their rows.

    Equivalent to `group_candidates` over every candidate (tested), but never loads records of
    undersized or deferred groups.
    """
    cutoff = now_ms - rule.max_age_ms  # strictly older than the tier's maximum age
    where = _candidate_filter(user_id, rule, cutoff, include_undone)
    offset, width = rule.bucket_offset_ms, rule.bucket_ms
    # Integer floor division to the bucket start; timestamps before 1970 are not supported here.
    bucket = ((RawMessageRow.timestamp - literal(offset)) // literal(width)).label("bucket")
    bot = func.coalesce(RawMessageRow.bot_id, "").label("bot")
    rows = session.execute(
        select(
            bucket,
            RawMessageRow.platform,
            RawMessageRow.channel,
            RawMessageRow.person,
            bot,
            func.count(),
        )
        .where(where)
        .group_by(bucket, RawMessageRow.platform, RawMessageRow.channel, RawMessageRow.person, bot)
    ).all()
    sizes: list[tuple[int, DimensionKey, int]] = [
        (int(b) * width + offset, (p or "", ch or "", pe or "", bo or ""), int(n))
        for b, p, ch, pe, bo, n in rows
    ]
    picks, skipped, deferred = choose(
        sizes, min_size=config.min_group_size, cap=config.max_candidates_per_tier
    )
    if not picks:
        return Scan((), skipped, deferred)
    # One range read up to the newest chosen bucket (groups are chosen oldest first), then keep the
    # chosen groups' rows in order; far fewer round trips than one query per group.
    wanted = {(start, key): take for start, key, take in picks}
    horizon = max(start for start, _, _ in picks) + width
    stmt = (
        select(RawMessageRow)
        .where(where, RawMessageRow.timestamp < horizon)
        .order_by(RawMessageRow.timestamp, RawMessageRow.id)
    )
    records: list[MessageRecord] = []
    for row in session.scalars(stmt):
        start = (row.timestamp - offset) // width * width + offset
        slot = (start, (row.platform or "", row.channel or "", row.person or "", row.bot_id or ""))
        left = wanted.get(slot, 0)
        if left > 0:
            wanted[slot] = left - 1
            records.append(to_record(row))
    return Scan(tuple(records), skipped, deferred)


def user_ids(session: Session) -> list[str]:
    return [str(u) for u in session.scalars(select(RawMessageRow.user_id).distinct())]


def candidate_counts(
    session: Session, user_id: str, config: ForgetConfig, now_ms: int, *, include_undone: bool = False
) -> dict[str, int]:
    """How many records are over their tier's age right now (before grouping), per tier."""
    out: dict[str, int] = {}
    for rule in config.rules:
        where = _candidate_filter(user_id, rule, now_ms - rule.max_age_ms, include_undone)
        out[rule.source.value] = int(session.scalar(select(func.count()).where(where)) or 0)
    return out


def last_runs(session: Session, user_id: str | None, limit: int = 10) -> list[ForgetRunRow]:
    stmt = select(ForgetRunRow).order_by(ForgetRunRow.started_at.desc(), ForgetRunRow.run_id.desc())
    if user_id is not None:
        stmt = stmt.where(ForgetRunRow.user_id == user_id)
    return list(session.scalars(stmt.limit(limit)))


def run_items(session: Session, run_id: str) -> list[ForgetRunItemRow]:
    stmt = select(ForgetRunItemRow).where(ForgetRunItemRow.run_id == run_id).order_by(ForgetRunItemRow.id)
    return list(session.scalars(stmt))


def later_runs_touching(session: Session, run: ForgetRunRow, items: list[ForgetRunItemRow]) -> list[str]:
    """Runs not undone that changed any of these records after `run` did (undo them first).

    Item ids grow monotonically, so "after" holds even when two runs share a millisecond.
    """
    own = {i.record_id: i.id for i in items}
    found: set[str] = set()
    for part in chunked(sorted(own)):
        stmt = (
            select(ForgetRunItemRow.run_id, ForgetRunItemRow.record_id, ForgetRunItemRow.id)
            .join(ForgetRunRow, ForgetRunRow.run_id == ForgetRunItemRow.run_id)
            .where(
                ForgetRunRow.user_id == run.user_id,
                ForgetRunRow.run_id != run.run_id,
                ForgetRunRow.undone_at.is_(None),
                ForgetRunItemRow.record_id.in_(part),
            )
        )
        found.update(
            str(rid) for rid, record_id, item_id in session.execute(stmt) if item_id > own[record_id]
        )
    return sorted(found)
