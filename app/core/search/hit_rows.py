"""The message rows a search's hits are built from (one statement for all candidates), and each hit."""

from __future__ import annotations

import collections
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


HIT_FIELDS = tuple(c.key for c in HIT_COLUMNS)
# A hit row: a named tuple of HIT_FIELDS, read by name (the rows stored_windows.py reads are too).
HitRow = collections.namedtuple("HitRow", HIT_FIELDS)  # type: ignore[misc]


def hit_rows(session: Session, ids: Sequence[int]) -> dict[str, Any]:
    """Rows of `ids` with the columns a hit needs (named tuples, not ORM objects), by key."""
    # One fetchall on the driver's cursor, executed through the session (its transaction, error
    # handling and events): SQLAlchemy's own rows cost ~0.2 us more a row and a search reads
    # ~270 (three calls); the values are the same (driver SQL has no type processing either way).
    result = session.connection().exec_driver_sql(HIT_SQL, (json.dumps(list(ids)),))
    found = result.cursor.fetchall() if result.cursor is not None else []
    result.close()
    make = HitRow._make
    return {str(values[0]): make(values) for values in found}


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
