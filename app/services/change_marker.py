"""A cheap fingerprint of the data per kind, so a window notices writes made by other processes.

The scheduler of another process (a `strata serve`, a cron'd `strata forget run`), the CLI or the
REST server in another process change the store without telling this one; comparing two markers
says which kinds changed. Each kind costs one indexed aggregate query.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from app.core.storage.db import Database

# kind → SQL returning one row; every query filters on the user (`:u`).
QUERIES: dict[str, str] = {
    # Edits, pins and deletions write an audit row in the same transaction: its newest id moves
    # with them (any user's: a needless refresh is cheap, a full scan every 3 s is not).
    "messages": (
        "SELECT (SELECT count(*) FROM raw_messages WHERE user_id = :u), "
        "(SELECT max(id) FROM raw_messages), (SELECT max(id) FROM audit_log)"
    ),
    "summaries": "SELECT count(*), max(updated_at) FROM memory_summaries WHERE user_id = :u",
    "forgetting": (
        "SELECT count(*), max(started_at), max(finished_at), max(undone_at) FROM forget_runs "
        "WHERE user_id = :u"
    ),
    "insights": (
        "SELECT (SELECT count(*) FROM insights WHERE user_id = :u), "
        "(SELECT max(updated_at) FROM insights WHERE user_id = :u), "
        "(SELECT count(*) || '/' || coalesce(max(at), 0) FROM insight_states WHERE user_id = :u)"
    ),
    "documents": "SELECT count(*), max(uploaded_at) FROM rag_documents WHERE user_id = :u",
    "connectors": (
        "SELECT count(*), max(updated_at), max(last_sync_at), sum(messages_total) FROM connector_state"
    ),
}


def change_marker(db: Database, user_id: str) -> dict[str, tuple[Any, ...]]:
    """kind → a tuple that changes whenever that kind's data changes (adds, edits, deletes, undo)."""
    marker: dict[str, tuple[Any, ...]] = {}
    with db.read() as session:
        for kind, sql in QUERIES.items():
            try:
                marker[kind] = tuple(session.execute(text(sql), {"u": user_id}).one())
            except OperationalError:
                marker[kind] = ()  # a feature's table is absent in this build: nothing to watch
    return marker


def changed_kinds(before: dict[str, tuple[Any, ...]], after: dict[str, tuple[Any, ...]]) -> set[str]:
    return {k for k in after if before.get(k) != after[k]}
