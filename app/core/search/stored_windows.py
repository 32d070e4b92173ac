"""Conversation windows above the in-memory limit: neighbours from SQLite, their vectors from LanceDB.

`context.ConversationWindows` finds a candidate's turns in a conversation order it builds over
the in-memory vector copy. Above that copy's size limit the search is served by the approximate
index and there is no such order in memory; without windows the two paths ranked differently.
Here the same windows come from the candidates' own conversations: two turns before and two
after in (user, platform, channel, timestamp, id) order, read through the
(user_id, channel, timestamp) index in one statement, then every vector involved in one LanceDB
key lookup. The window's score is the same arithmetic as the in-memory path's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from sqlalchemy.orm import Session

from app.core.search.context import WINDOW_AFTER, WINDOW_BEFORE, CandidateContext

# Vectors of these keys (candidates and their neighbours), or fewer when some have none.
VectorLookup = Callable[[Sequence[str]], Mapping[str, np.ndarray]]


# One statement per side and candidate, joined with UNION ALL and written out as SQL text: the
# same statement built with SQLAlchemy cost ~50 ms of compiling per search (80 subqueries).
_SIDE = {
    0: "SELECT id, archived_at IS NOT NULL, {c}, 0 FROM raw_messages WHERE user_id = ? AND channel = ? "
    "AND platform = ? AND (timestamp, id) < (?, ?) ORDER BY timestamp DESC, id DESC LIMIT {n}",
    1: "SELECT id, archived_at IS NOT NULL, {c}, 1 FROM raw_messages WHERE user_id = ? AND channel = ? "
    "AND platform = ? AND (timestamp, id) > (?, ?) ORDER BY timestamp, id LIMIT {n}",
}
# SQLite allows 500 terms in one compound SELECT; a search asks for at most ~80.
_MAX_TERMS = 400


def neighbour_ids(
    session: Session, rows: Sequence[Any], *, before: int = WINDOW_BEFORE, after: int = WINDOW_AFTER
) -> dict[int, tuple[list[tuple[int, bool]], list[tuple[int, bool]]]]:
    """For each row (with id, user_id, platform, channel, timestamp): the ids of the `before` turns
    before it (nearest first) and the `after` turns after it, each with whether it is archived.
    Each side is one seek on ix_raw_messages_user_channel_timestamp."""
    parts: list[tuple[str, tuple[Any, ...]]] = []
    for row in rows:
        args = (row.user_id, row.channel, row.platform, row.timestamp, row.id)
        for side, n in ((0, before), (1, after)):
            if n > 0:
                parts.append((f"SELECT * FROM ({_SIDE[side].format(c=int(row.id), n=int(n))})", args))
    out: dict[int, tuple[list[tuple[int, bool]], list[tuple[int, bool]]]]
    out = {int(r.id): ([], []) for r in rows}
    connection = session.connection()
    for start in range(0, len(parts), _MAX_TERMS):
        chunk = parts[start : start + _MAX_TERMS]
        sql = " UNION ALL ".join(text for text, _ in chunk)
        params = tuple(value for _, args in chunk for value in args)
        for rid, archived, centre, side in connection.exec_driver_sql(sql, params):
            out[int(centre)][int(side)].append((int(rid), bool(archived)))
    return out


def stored_windows(
    session: Session,
    query: np.ndarray,
    keys: Sequence[str],
    rows: Mapping[str, Any],
    vectors_of: VectorLookup,
) -> CandidateContext:
    """Cosines, window cosines and neighbour keys of `keys`, as `ConversationWindows.around` gives
    them; keys without a row or a stored vector are left out, as are neighbours without a vector
    (the in-memory order holds only rows with one) and archived neighbours (they keep no text)."""
    found = [rows[k] for k in keys if k in rows]
    result = CandidateContext({}, {}, {})
    if not found:
        return result
    around = neighbour_ids(session, found)
    wanted = {str(r.id) for r in found}
    for before, after in around.values():
        wanted.update(str(i) for i, archived in (*before, *after) if not archived)
    vectors = vectors_of(sorted(wanted))
    q = query.astype(np.float32)
    for row in found:
        key = str(row.id)
        own = vectors.get(key)
        if own is None:
            continue
        before, after = around.get(int(row.id), ([], []))
        # Conversation order, as the in-memory path lists them: earlier turns first.
        near = [str(i) for i, archived in (*reversed(before), *after) if not archived]
        near = [n for n in near if n in vectors]
        cosine = float(own @ q)
        result.cosines[key] = cosine
        if not near:
            continue
        stack = np.stack([vectors[n] for n in near])
        summed = own + stack.sum(axis=0)
        norm = max(float(np.linalg.norm(summed)), 1e-9)
        result.window_cosines[key] = float((cosine + float((stack @ q).sum())) / norm)
        result.neighbours[key] = tuple(near)
    return result
