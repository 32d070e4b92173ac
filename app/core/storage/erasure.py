"""Deletion means gone: remove messages with every stored copy of their text, then purge what SQLite keeps.

A deleted message leaves text in places other than its row: the audit log of its earlier edits,
the FTS5 index (segments keep deleted tokens until merged), free pages of the database file and
old page images in the WAL. `erase_rows` removes the row-level copies in the caller's transaction
and writes one audit row per message that names it without its text; `purge_files` then merges
the keyword indexes and truncates the WAL, while `PRAGMA secure_delete` (db.py) zeroes freed pages.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import delete, text, update
from sqlalchemy.orm import Session

from app.core.storage import audit
from app.core.storage.db import Database, chunked
from app.core.storage.keyword import MESSAGE_KIND, KeywordIndex
from app.core.storage.models import AuditRow, RawMessageRow

log = logging.getLogger(__name__)

# What an edit's audit row says once the message it described is deleted.
ERASED_DETAILS = {"previous_content": None, "erased": "the message was deleted"}
# FTS5 tables to merge after a deletion: each segment merge drops deleted entries for good.
FTS_TABLES = ("messages_fts", "keyword_fts")


@dataclass(frozen=True, slots=True)
class ErasedRow:
    """What is left to know about a deleted message: where it was, never what it said."""

    id: int
    user_id: str
    platform: str
    message_id: str
    channel: str
    person: str
    timestamp: int
    summary_ref_id: str | None


def erase_rows(
    session: Session,
    rows: Sequence[RawMessageRow],
    *,
    keywords: KeywordIndex,
    actor: str,
    at: int,
) -> list[ErasedRow]:
    """Delete `rows` with their keyword entries and their text in the audit log (caller's transaction)."""
    erased = [
        ErasedRow(
            r.id, r.user_id, r.platform, r.message_id, r.channel, r.person, r.timestamp, r.summary_ref_id
        )
        for r in rows
    ]
    ids = [r.id for r in erased]
    keywords.delete(session, MESSAGE_KIND, [str(i) for i in ids])
    for keys in chunked([str(i) for i in ids]):
        # Earlier versions of an edited message live in its "edit" audit rows: drop the text, keep
        # the fact that an edit happened.
        session.execute(
            update(AuditRow)
            .where(AuditRow.entity_type == "raw_message", AuditRow.entity_id.in_(keys))
            .where(AuditRow.action == "edit")
            .values(details=ERASED_DETAILS)
            .execution_options(synchronize_session=False)
        )
    for part in chunked(ids):
        session.execute(
            delete(RawMessageRow)
            .where(RawMessageRow.id.in_(part))
            .execution_options(synchronize_session=False)
        )
    for row in erased:
        audit.record(
            session,
            user_id=row.user_id,
            at=at,
            actor=actor,
            action="delete",
            entity_type="raw_message",
            entity_id=row.id,
            details={
                "platform": row.platform,
                "message_id": row.message_id,
                "channel": row.channel,
                "person": row.person,
            },
        )
    return erased


def purge_files(db: Database) -> bool:
    """Merge the FTS5 indexes and truncate the WAL so no file keeps deleted text.

    Returns False when another process still reads an old snapshot and the WAL could not be
    truncated yet; the next purge (or SQLite's own checkpoint) finishes it.
    """
    with db.write() as session:
        for table in FTS_TABLES:
            # 'optimize' rewrites the index as one segment: tokens of deleted rows are dropped and
            # the pages that held them are freed (and zeroed by secure_delete).
            session.execute(text(f"INSERT INTO {table}({table}) VALUES ('optimize')"))
    truncated = db.checkpoint()
    if not truncated:
        log.info("WAL not truncated yet: another reader holds an old snapshot")
    return truncated
