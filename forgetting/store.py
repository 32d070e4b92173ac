"""Storage side of forgetting: index-driven candidate scans, runs, and run items."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import and_, case, func, literal, select
from sqlalchemy.orm import Session

from app.core.domain import MessageRecord
from app.core.storage.db import chunked
from app.core.storage.messages import to_record
from app.core.storage.models import RawMessageRow
from forgetting.config import ForgetConfig, TierRule
from forgetting.grouping import choose
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
    dims = _dimensions()
    grouped = select(func.count().label("n")).where(where).group_by(bucket, *dims).subquery()
    min_size = config.min_group_size
    # At a million candidates there are hundreds of thousands of groups, most under the minimum
    # size; SQL counts those, and only the groups large enough come to Python, in (bucket, key)
    # order, read up to the first one the cap defers (holding every group, or the rows up to the
    # newest chosen bucket as before, cost gigabytes at 1M).
    small, sized = session.execute(
        select(
            func.coalesce(func.sum(case((grouped.c.n < min_size, grouped.c.n), else_=0)), 0),
            func.coalesce(func.sum(case((grouped.c.n >= min_size, grouped.c.n), else_=0)), 0),
        )
    ).one()
    if not sized:
        return Scan((), int(small), 0)
    sizes = session.execute(
        select(bucket, *dims, func.count())
        .where(where)
        .group_by(bucket, *dims)
        .having(func.count() >= min_size)
        .order_by(bucket, *dims)
        .execution_options(yield_per=1000)
    )
    picks, _, deferred = choose(
        ((int(b) * width + offset, (p, ch, pe, bo), int(n)) for b, p, ch, pe, bo, n in sizes),
        min_size=min_size,
        cap=config.max_candidates_per_tier,
        presorted=True,
        sized_total=int(sized),
    )
    skipped = int(small)
    sizes.close()
    if not picks:
        return Scan((), skipped, deferred)
    return Scan(tuple(_group_rows(session, where, picks, width)), skipped, deferred)


def _dimensions():  # type: ignore[no-untyped-def]
    """The dimension key's columns as SQL, NULL read as "" (as grouping.dimension_key does)."""
    return tuple(
        func.coalesce(column, "").label(name)
        for name, column in (
            ("platform", RawMessageRow.platform),
            ("channel", RawMessageRow.channel),
            ("person", RawMessageRow.person),
            ("bot", RawMessageRow.bot_id),
        )
    )


def _group_rows(session: Session, where, picks, width: int) -> list[MessageRecord]:  # type: ignore[no-untyped-def]
    """The oldest `take` rows of each chosen group, oldest first: one bounded read per group
    (a day or a week of the scan index), so the cost follows the chosen records, not the table."""
    dims = _dimensions()
    records: list[MessageRecord] = []
    for start, key, take in picks:
        stmt = (
            select(RawMessageRow)
            .where(
                where,
                RawMessageRow.timestamp >= start,
                RawMessageRow.timestamp < start + width,
                *(d == value for d, value in zip(dims, key, strict=True)),
            )
            .order_by(RawMessageRow.timestamp, RawMessageRow.id)
            .limit(take)
        )
        records.extend(to_record(row) for row in session.scalars(stmt))
    records.sort(key=lambda r: (r.timestamp, r.id))
    return records


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
