"""What the pages are made of, read from SQLite in a few grouped queries (never one per page).

A `Scope` narrows every query to one person's identities or one conversation, so refreshing a
single page reads only its rows.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import and_, func, or_, select

from app.core.storage.db import Database
from app.core.storage.models import MemorySummaryRow, RawMessageRow

NOTE_PLATFORM = "note"
Key = tuple[str, str]  # (platform, person) or (platform, channel)
_BATCH = 400  # stays under SQLite's bound-parameter limit with room to spare


@dataclass(frozen=True, slots=True)
class Line:
    """One message as a page quotes it."""

    id: int
    platform: str
    channel: str
    person: str
    timestamp: int
    text: str


@dataclass(frozen=True, slots=True)
class Span:
    count: int
    first: int
    last: int


@dataclass(frozen=True, slots=True)
class SummaryLine:
    summary_id: str
    start: int
    end: int
    count: int
    text: str
    key_points: tuple[str, ...]
    platform: str
    channel: str
    person: str


@dataclass(frozen=True, slots=True)
class Scope:
    """None everywhere = the whole archive."""

    identities: tuple[Key, ...] | None = None  # (platform, person)
    conversations: tuple[Key, ...] | None = None  # (platform, channel)


@dataclass
class Snapshot:
    people: dict[Key, Span] = field(default_factory=dict)
    conversations: dict[Key, Span] = field(default_factory=dict)
    chat_types: dict[Key, str] = field(default_factory=dict)
    # (platform, channel) → {person: Span}
    talk: dict[Key, dict[str, Span]] = field(default_factory=lambda: defaultdict(dict))
    recent_by_person: dict[Key, list[Line]] = field(default_factory=lambda: defaultdict(list))
    recent_by_conversation: dict[Key, list[Line]] = field(default_factory=lambda: defaultdict(list))
    summaries: list[SummaryLine] = field(default_factory=list)
    notes: list[Line] = field(default_factory=list)


def load(db: Database, user_id: str, scope: Scope, *, recent: int, topic_window: int) -> Snapshot:
    """Everything the pages in `scope` need; `recent` lines per person, `topic_window` per conversation."""
    m = RawMessageRow
    snap = Snapshot()
    user = m.user_id == user_id
    where = [user, m.platform != NOTE_PLATFORM, *_scope_filter(scope)]
    chat_type = m.metadata_["chat_type"].as_string()
    # A person's page needs no conversation windows, a conversation's no per-person lines.
    people_pages, conversation_pages = scope.conversations is None, scope.identities is None
    with db.read() as session:
        for platform, person, count, first, last in session.execute(
            select(m.platform, m.person, func.count(), func.min(m.timestamp), func.max(m.timestamp))
            .where(*where, m.person != "", _not_system())
            .group_by(m.platform, m.person)
        ):
            snap.people[(platform, person)] = Span(int(count), int(first), int(last))
        for platform, channel, person, count, first, last in session.execute(
            select(
                m.platform, m.channel, m.person, func.count(), func.min(m.timestamp), func.max(m.timestamp)
            )
            .where(*where, _not_system())
            .group_by(m.platform, m.channel, m.person)
        ):
            snap.talk[(platform, channel)][person] = Span(int(count), int(first), int(last))
        for platform, channel, count, first, last, kind in (
            ()
            if not conversation_pages
            else session.execute(
                select(
                    m.platform,
                    m.channel,
                    func.count(),
                    func.min(m.timestamp),
                    func.max(m.timestamp),
                    func.max(chat_type),
                )
                .where(*where)
                .group_by(m.platform, m.channel)
            )
        ):
            snap.conversations[(platform, channel)] = Span(int(count), int(first), int(last))
            if kind:
                snap.chat_types[(platform, channel)] = str(kind)
        for line in _latest(session, where, (m.platform, m.person), recent) if people_pages else ():
            snap.recent_by_person[(line.platform, line.person)].append(line)
        for line in (
            _latest(session, where, (m.platform, m.channel), topic_window) if conversation_pages else ()
        ):
            snap.recent_by_conversation[(line.platform, line.channel)].append(line)
        snap.summaries = _summaries(session, user_id)
        if scope.identities is None and scope.conversations is None:
            snap.notes = _notes(session, user_id)
    return snap


def notes_only(db: Database, user_id: str) -> Snapshot:
    """Just the saved notes (platform `note`): what the notes page needs after a `remember`."""
    with db.read() as session:
        return Snapshot(notes=_notes(session, user_id))


def _notes(session: Any, user_id: str) -> list[Line]:
    m = RawMessageRow
    return _latest(session, [m.user_id == user_id, m.platform == NOTE_PLATFORM], (m.platform,), 500)


def message_ids(db: Database, user_id: str, keys: Sequence[Key]) -> dict[Key, int]:
    """Record ids of (platform, message id) pairs (an insight's evidence), for links to the source."""
    m = RawMessageRow
    by_platform: dict[str, list[str]] = defaultdict(list)
    for platform, mid in dict.fromkeys(keys):
        by_platform[platform].append(mid)
    found: dict[Key, int] = {}
    with db.read() as session:
        for platform, mids in by_platform.items():
            # (user, platform, message id) is the unique index: each batch is a few index lookups.
            for start in range(0, len(mids), _BATCH):
                for row_id, mid in session.execute(
                    select(m.id, m.message_id).where(
                        m.user_id == user_id,
                        m.platform == platform,
                        m.message_id.in_(mids[start : start + _BATCH]),
                    )
                ):
                    found[(platform, mid)] = int(row_id)
    return found


def matching_lines(
    db: Database, user_id: str, *, keywords: Sequence[str], conversations: Sequence[Key], limit: int
) -> list[Line]:
    """The newest messages in `conversations` or containing a keyword (case-insensitive), for projects."""
    m = RawMessageRow
    terms = [or_(*(and_(m.platform == p, m.channel == c) for p, c in conversations))] if conversations else []
    terms += [func.lower(m.content).contains(k.lower(), autoescape=True) for k in keywords if k.strip()]
    if not terms:
        return []
    where = [m.user_id == user_id, m.platform != NOTE_PLATFORM, m.archived_at.is_(None), or_(*terms)]
    with db.read() as session:
        rows = session.execute(
            select(m.id, m.platform, m.channel, m.person, m.timestamp, m.content)
            .where(*where)
            .order_by(m.timestamp.desc(), m.id.desc())
            .limit(limit)
        ).all()
    return [Line(int(r[0]), r[1], r[2], r[3], int(r[4]), r[5] or "") for r in rows]


def _not_system() -> Any:
    """Exports mark their own notices ("Messages are end-to-end encrypted") as system messages:
    they are nobody's words, so they make no person and no participant."""
    system = RawMessageRow.metadata_["system"].as_boolean()
    return or_(system.is_(None), system.is_(False))


def _scope_filter(scope: Scope) -> list[Any]:
    m = RawMessageRow
    clauses: list[Any] = []
    if scope.identities is not None:
        clauses.append(or_(*(and_(m.platform == p, m.person == n) for p, n in scope.identities)))
    if scope.conversations is not None:
        clauses.append(or_(*(and_(m.platform == p, m.channel == c) for p, c in scope.conversations)))
    return [or_(*clauses)] if clauses else []


def _latest(session: Any, where: list[Any], partition: tuple[Any, ...], per_group: int) -> list[Line]:
    """The newest `per_group` unarchived messages of each group, newest first (a window query)."""
    m = RawMessageRow
    rank = func.row_number().over(partition_by=partition, order_by=(m.timestamp.desc(), m.id.desc()))
    inner = (
        select(m.id, m.platform, m.channel, m.person, m.timestamp, m.content, rank.label("rn"))
        .where(*where, m.archived_at.is_(None))
        .subquery()
    )
    rows = session.execute(
        select(
            inner.c.id, inner.c.platform, inner.c.channel, inner.c.person, inner.c.timestamp, inner.c.content
        )
        .where(inner.c.rn <= per_group)
        .order_by(inner.c.timestamp.desc(), inner.c.id.desc())
    ).all()
    return [Line(int(r[0]), r[1], r[2], r[3], int(r[4]), r[5] or "") for r in rows]


def _summaries(session: Any, user_id: str) -> list[SummaryLine]:
    s = MemorySummaryRow
    out: list[SummaryLine] = []
    for row in session.scalars(select(s).where(s.user_id == user_id).order_by(s.start_timestamp.desc())):
        dims = row.dimensions or {}
        out.append(
            SummaryLine(
                row.summary_id,
                int(row.start_timestamp),
                int(row.end_timestamp),
                int(row.message_count),
                row.summary_text or "",
                tuple(row.key_points or ()),
                str(dims.get("platform") or ""),
                str(dims.get("channel") or ""),
                str(dims.get("person") or ""),
            )
        )
    return out


@dataclass(frozen=True, slots=True)
class Directory:
    """Who and where, without content: enough to name every page (cheap, one pass per table)."""

    people: dict[Key, int]  # (platform, person) → messages
    conversations: dict[Key, tuple[int, int, str]]  # (platform, channel) → (messages, people, chat type)


def version(db: Database, user_id: str) -> tuple[int, int]:
    """(rows, highest id): changes whenever messages are added or removed, so a cached directory
    is reused only while nobody can have appeared or vanished."""
    m = RawMessageRow
    with db.read() as session:
        count, top = session.execute(select(func.count(), func.max(m.id)).where(m.user_id == user_id)).one()
    return int(count or 0), int(top or 0)


def directory(db: Database, user_id: str) -> Directory:
    m = RawMessageRow
    where = [m.user_id == user_id, m.platform != NOTE_PLATFORM]
    chat_type = m.metadata_["chat_type"].as_string()
    with db.read() as session:
        people = {
            (p, n): int(c)
            for p, n, c in session.execute(
                select(m.platform, m.person, func.count())
                .where(*where, m.person != "", _not_system())
                .group_by(m.platform, m.person)
            )
        }
        conversations = {
            (p, ch): (int(c), int(n), str(k or ""))
            for p, ch, c, n, k in session.execute(
                select(
                    m.platform,
                    m.channel,
                    func.count(),
                    func.count(func.distinct(m.person)),
                    func.max(chat_type),
                )
                .where(*where)
                .group_by(m.platform, m.channel)
            )
        }
    return Directory(people, conversations)
