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
from sqlalchemy import literal, select, tuple_, union_all
from sqlalchemy.orm import Session

from app.core.search.context import WINDOW_AFTER, WINDOW_BEFORE, CandidateContext
from app.core.storage.models import RawMessageRow

# Vectors of these keys (candidates and their neighbours), or fewer when some have none.
VectorLookup = Callable[[Sequence[str]], Mapping[str, np.ndarray]]


def neighbour_ids(
    session: Session, rows: Sequence[Any], *, before: int = WINDOW_BEFORE, after: int = WINDOW_AFTER
) -> dict[int, tuple[list[tuple[int, bool]], list[tuple[int, bool]]]]:
    """For each row (with id, user_id, platform, channel, timestamp): the ids of the `before` turns
    before it (nearest first) and the `after` turns after it, each with whether it is archived."""
    t = RawMessageRow
    parts = []
    for row in rows:
        same = (t.user_id == row.user_id, t.platform == row.platform, t.channel == row.channel)
        here = tuple_(t.timestamp, t.id)
        point = tuple_(row.timestamp, row.id)
        cols = (t.id, t.archived_at)
        for side, n, cond, order in (
            (0, before, here < point, (t.timestamp.desc(), t.id.desc())),
            (1, after, here > point, (t.timestamp.asc(), t.id.asc())),
        ):
            if n <= 0:
                continue
            inner = select(*cols).where(*same, cond).order_by(*order).limit(n).subquery()
            parts.append(
                select(
                    inner.c.id,
                    inner.c.archived_at,
                    literal(int(row.id)).label("centre"),
                    literal(side).label("side"),
                )
            )
    out: dict[int, tuple[list[tuple[int, bool]], list[tuple[int, bool]]]] = {
        int(r.id): ([], []) for r in rows
    }
    # SQLite allows 500 terms in one compound SELECT; a search asks for at most ~80.
    for start in range(0, len(parts), 400):
        chunk = parts[start : start + 400]
        stmt = chunk[0] if len(chunk) == 1 else union_all(*chunk)
        for rid, archived_at, centre, side in session.execute(stmt):
            out[int(centre)][int(side)].append((int(rid), archived_at is not None))
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
