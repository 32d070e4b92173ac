"""The message rows a search's hits are built from (one statement for all candidates), and each hit."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy.orm import Session

from app.core.domain import SearchHit
from app.core.storage.models import RawMessageRow

HIT_COLUMNS = (
    RawMessageRow.id,
    RawMessageRow.user_id,
    RawMessageRow.archived_at,
    RawMessageRow.platform,
    RawMessageRow.channel,
    RawMessageRow.person,
    RawMessageRow.timestamp,
    RawMessageRow.content,
    RawMessageRow.attachments,  # their names are words of the message (ranking.message_text)
    RawMessageRow.memory_stage,
    RawMessageRow.message_id,
    RawMessageRow.summary_ref_id,
    RawMessageRow.is_pinned,
)


# One statement with one bound value (the ids as a JSON array): an expanding `IN (…)` was
# compiled for every list length, and the ORM's result handling cost more than SQLite's reads
# (0.6 against 1.0-1.1 ms a call, 2-3 calls a search; docs/benchmarks.md, "REST search in
# worker processes"). The rows are the same values (`is_pinned` is 0/1, read as a truth value).
HIT_SQL = (
    f"SELECT {', '.join(c.name for c in HIT_COLUMNS)} FROM {RawMessageRow.__tablename__} "
    "WHERE id IN (SELECT value FROM json_each(?))"
)


def hit_rows(session: Session, ids: Sequence[int]) -> dict[str, Any]:
    """Rows of `ids` with the columns a hit needs (plain tuples, not ORM objects), by key."""
    # fetchall: one call into sqlite3 for every row, not a fetchone per row (0.79 against 0.91 ms
    # a call of ~140 rows, three calls a search; docs/benchmarks.md, "REST: CPU per search").
    found = session.connection().exec_driver_sql(HIT_SQL, (json.dumps(list(ids)),)).fetchall()
    return {str(r.id): r for r in found}


HIT_FIELDS = tuple(c.key for c in HIT_COLUMNS)


def to_hit(row: Any, score: float, relevance: float) -> SearchHit:
    extra: dict[str, Any] = {}
    if row.is_pinned:
        extra["is_pinned"] = True
    if row.archived_at is not None:  # only with include_archived: replaced by summary_id
        extra["archived_at"] = row.archived_at
    return SearchHit(
        id=str(row.id),
        kind="message",
        content=row.content,
        score=score,
        platform=row.platform,
        channel=row.channel,
        person=row.person,
        timestamp=row.timestamp,
        tier=row.memory_stage,
        message_id=row.message_id,
        summary_id=row.summary_ref_id,
        extra=extra,
        relevance=relevance,
    )
