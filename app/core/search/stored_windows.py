"""Conversation windows above the in-memory limit: turns and rows from SQLite, vectors from LanceDB.

`context.ConversationWindows` finds a candidate's turns in a conversation order it builds over
the in-memory vector copy. Above that copy's size limit the search is served by the approximate
index and there is no such order in memory; without windows the two paths ranked differently.
Here the same windows come from the candidates' own conversations, in (user, platform, channel,
timestamp, id) order, through the (user_id, channel, timestamp) index.

One `StoredWindows` serves one query and reads everything once. `prefetch` takes a batch of
candidates in ONE statement (their rows and, for each, the four turns before and after it with
the columns a hit needs) and ONE vector lookup (their vectors and their two nearest turns' each
side). The keyword worker prefetches the keyword candidates while the query is embedded and the
vector leg runs; the vector candidates' rows and turns follow in two halves read at once (two
threads, each its own statement), their vectors once the ranking has picked the best candidates
(`windows`, one lookup). Four turns each side, not two: the turns around
the best candidates join them as candidates (ranking.py), and their own windows lie within four
turns of the candidate, so they need no second statement, only the vectors of the outer turns.
The window's score is the same arithmetic as the in-memory path's.
"""

from __future__ import annotations

import collections
import functools
import json
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any

import numpy as np
from sqlalchemy.orm import Session

from app.core.search.context import WINDOW_AFTER, WINDOW_BEFORE, CandidateContext

# Vectors of these keys (candidates and their neighbours), or fewer when some have none.
VectorLookup = Callable[[Sequence[str]], Mapping[str, np.ndarray]]

# Side markers in the statement's output: a candidate's own row, a turn before it, after it.
_OWN, _BEFORE, _AFTER = 2, 0, 1
# One statement of fixed text for any candidates (their ids bound as one JSON array, the depths as
# numbers), so SQLite prepares it once per connection. It was one part per side and candidate
# written out with the ids, ~130 parts a search: SQLite prepared that text anew every search, ~8
# ms of the ~15 ms CPU it cost at 1M (now ~4.5; docs/benchmarks.md, `opt16`). Each side's turns
# are one index seek on the (user_id, channel, timestamp) index from the centre, as before; the
# turns come back in id order here and are put nearest first in `_read`.
_TURNS = (
    "SELECT {n}, n.timestamp, c.id, {side} FROM json_each(?1) AS j JOIN raw_messages AS c ON c.id = j.value "
    "JOIN raw_messages AS n ON n.id IN (SELECT m.id FROM raw_messages AS m WHERE m.user_id = c.user_id "
    "AND m.platform = c.platform AND m.channel = c.channel AND (m.timestamp, m.id) {op} (c.timestamp, c.id) "
    "ORDER BY m.timestamp {order}, m.id {order} LIMIT {limit})"
)


@functools.cache
def _statement(columns: tuple[str, ...]) -> str:
    """The candidates' rows (side `_OWN`) and their turns, each row's columns followed by its
    timestamp, its centre's id and its side: ?1 the ids as a JSON array, ?2 and ?3 the turns read
    before and after each."""
    names, n = ", ".join(columns), ", ".join(f"n.{c}" for c in columns)
    own = (
        f"SELECT {names}, timestamp, id, {_OWN} FROM raw_messages "
        "WHERE id IN (SELECT value FROM json_each(?1))"
    )
    before = _TURNS.format(n=n, side=_BEFORE, op="<", order="DESC", limit="?2")
    after = _TURNS.format(n=n, side=_AFTER, op=">", order="ASC", limit="?3")
    return f"{own} UNION ALL {before} UNION ALL {after}"


class StoredWindows:
    """One query's candidates on the index path: rows, turns and vectors, each read once."""

    def __init__(
        self,
        columns: Sequence[str],
        lookup: VectorLookup,
        *,
        before: int = WINDOW_BEFORE,
        after: int = WINDOW_AFTER,
    ) -> None:
        self.columns = tuple(columns)  # raw_messages columns of a hit row (`id` among them)
        self.lookup = lookup
        self.before, self.after = before, after
        # Turns read each side: a window's own reach plus the reach of a neighbour's window.
        self.depth_before, self.depth_after = before + max(before, after), after + max(before, after)
        self.rows: dict[str, Any] = {}  # candidates' and turns' rows
        self._turns: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}  # nearest first
        self._read_keys: set[str] = set()  # keys read as candidates (turns to full depth)
        self._vectors: dict[str, np.ndarray | None] = {}  # None: asked for, not stored
        self.statements = 0  # SQL statements and vector lookups made (tests, benchmarks)
        self.lookups = 0
        # Two threads may read batches at once (the vector candidates are split in two); the
        # reads run unlocked, the merges of what they found do not.
        self._lock = threading.Lock()

    def vectors(self, keys: Iterable[str]) -> dict[str, np.ndarray]:
        """Stored vectors of `keys` (one lookup for those not read yet)."""
        keys = list(dict.fromkeys(keys))
        missing = [k for k in keys if k not in self._vectors]
        if missing:
            found = self.lookup(missing)
            with self._lock:
                self.lookups += 1
                self._vectors.update({k: found.get(k) for k in missing})
        return {k: v for k in keys if (v := self._vectors.get(k)) is not None}

    def read(self, session: Session, keys: Sequence[str]) -> None:
        """Rows and turns of those `keys` not read yet as candidates (one statement)."""
        with self._lock:
            todo = [k for k in dict.fromkeys(keys) if k not in self._read_keys and _is_id(k)]
            self._read_keys.update(todo)
        if todo:
            self._read(session, todo)

    def add_rows(self, rows: Mapping[str, Any]) -> None:
        """Rows read elsewhere (`hit_rows`), without their turns: `windows` reads those if asked."""
        with self._lock:
            for key, row in rows.items():
                self.rows.setdefault(key, row)

    def unread(self, keys: Sequence[str]) -> list[str]:
        """Those `keys` not read yet as candidates."""
        return [k for k in dict.fromkeys(keys) if k not in self._read_keys and _is_id(k)]

    def prefetch(self, session: Session, keys: Sequence[str]) -> None:
        """`read`, then the vectors of `keys` and of their windows' turns (one lookup)."""
        self.read(session, keys)
        self.vectors(self._window_keys(keys))

    def windows(
        self,
        read: Callable[[], AbstractContextManager[Session]],
        query: np.ndarray,
        keys: Sequence[str],
        *,
        ahead: Sequence[str] = (),
    ) -> tuple[CandidateContext, dict[str, Any]]:
        """Cosines, window cosines and neighbour keys of `keys`, as `ConversationWindows.around`
        gives them, and the rows of those neighbours. Keys without a row or a stored vector are
        left out, as are neighbours without a vector (the in-memory order holds only rows with
        one) and archived neighbours (they keep no text). Turns already known (the candidates
        prefetched, and the turns next to them) need no statement. `ahead`: keys whose turns'
        own windows will be asked for next; their vectors are read in the same lookup."""
        unknown = [k for k in self.unread(keys) if k not in self._turns]
        if unknown:
            with read() as session:
                self.read(session, unknown)
        self.vectors([*self._window_keys(keys), *self._outer_turns(ahead)])
        q = query.astype(np.float32)
        result = CandidateContext({}, {}, {})
        rows: dict[str, Any] = {}
        for key in keys:
            own = self._vectors.get(key)
            if own is None or key not in self._turns:
                continue
            before, after = self._turns[key]
            # Conversation order, as the in-memory path lists them: earlier turns first.
            near = [
                n
                for n in (*reversed(before[: self.before]), *after[: self.after])
                if self._alive(n) and self._vectors.get(n) is not None
            ]
            cosine = float(own @ q)
            result.cosines[key] = cosine
            if not near:
                continue
            stack = np.stack([self._vectors[n] for n in near])
            summed = own + stack.sum(axis=0)
            norm = max(float(np.linalg.norm(summed)), 1e-9)
            result.window_cosines[key] = float((cosine + float((stack @ q).sum())) / norm)
            result.neighbours[key] = tuple(near)
            rows.update((n, self.rows[n]) for n in near)
        return result, rows

    def _window_keys(self, keys: Sequence[str]) -> list[str]:
        """`keys` whose turns are known, and the turns of their windows that can lend a vector."""
        known = [k for k in keys if k in self._turns]
        out = list(known)
        for key in known:
            before, after = self._turns[key]
            out.extend(n for n in (*before[: self.before], *after[: self.after]) if self._alive(n))
        return out

    def _outer_turns(self, keys: Sequence[str]) -> list[str]:
        """The turns of `keys` beyond their own windows, within their turns' windows."""
        out: list[str] = []
        for key in keys:
            before, after = self._turns.get(key, ((), ()))
            near = (*before[self.before : 2 * self.before], *after[self.after : 2 * self.after])
            out.extend(n for n in near if self._alive(n))
        return out

    def _alive(self, key: str) -> bool:
        row = self.rows.get(key)
        return row is not None and row.archived_at is None

    def _read(self, session: Session, keys: Sequence[str]) -> None:
        """One statement: the rows of `keys` and, for each, its turns each side (`depth_*`).
        A turn's own turns follow from its candidate's when they lie within the read reach (or
        the conversation ends there), so a turn that later joins as a candidate needs no read."""
        found: dict[str, tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]] = {}
        rows: dict[str, Any] = {}
        # Tuples from the driver's cursor: ~600 rows a search came back as SQLAlchemy rows read
        # by name, which cost ~1 ms more (docs/benchmarks.md, `opt16`). Executed through the
        # session (its transaction, error handling and events); the values are the same (no type
        # processing on driver SQL either way); rows are named tuples of the columns, read by
        # name like the rows `hit_rows` returns.
        ids = json.dumps([int(k) for k in keys])
        result = session.connection().exec_driver_sql(
            _statement(self.columns), (ids, self.depth_before, self.depth_after)
        )
        found_rows = result.cursor.fetchall() if result.cursor is not None else []
        result.close()
        make, width = _row_type(self.columns)._make, len(self.columns)
        at = self.columns.index("id")
        for values in found_rows:
            key = str(values[at])
            if key not in rows:
                rows[key] = make(values[:width])
            side = values[width + 2]
            if side != _OWN:
                turn = (values[width], values[at], key)
                found.setdefault(str(values[width + 1]), ([], []))[side].append(turn)
        # Nearest first: latest before the centre, earliest after it.
        turns = {
            centre: (
                [t[2] for t in sorted(before, reverse=True)],
                [t[2] for t in sorted(after)],
            )
            for centre, (before, after) in found.items()
        }
        with self._lock:
            self.statements += 1
            for key, row in rows.items():
                self.rows.setdefault(key, row)
            self._merge(keys, turns)

    def _merge(self, keys: Sequence[str], found: Mapping[str, tuple[list[str], list[str]]]) -> None:
        for key in keys:
            if key not in self.rows:
                continue  # no such message (a vector left by a crash): no window either
            before, after = found.get(key, ([], []))
            self._turns[key] = (tuple(before), tuple(after))
            self._derive(key, before, after)

    def _derive(self, centre: str, before: list[str], after: list[str]) -> None:
        """The turns of the centre's own turns, from the centre's sequence, where it reaches."""
        sequence = [*reversed(before), centre, *after]
        start_known = len(before) < self.depth_before  # the conversation starts inside it
        end_known = len(after) < self.depth_after
        for at, key in enumerate(sequence):
            if key in self._turns or key == centre:
                continue
            if (at < self.before and not start_known) or (
                len(sequence) - 1 - at < self.after and not end_known
            ):
                continue
            earlier = sequence[max(0, at - self.before) : at]
            later = sequence[at + 1 : at + 1 + self.after]
            self._turns[key] = (tuple(reversed(earlier)), tuple(later))


@functools.cache
def _row_type(columns: tuple[str, ...]) -> type[tuple[Any, ...]]:
    """A named tuple of `columns`: read by name like the rows `hit_rows` returns."""
    return collections.namedtuple("WindowRow", columns)  # type: ignore[misc]


def _is_id(key: str) -> bool:
    """A message id as its key spells it ("7", not "007" or a chunk's text key)."""
    return key.isdigit() and str(int(key)) == key
