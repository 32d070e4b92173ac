"""Row ids of a vector table's keys at one version, so stored vectors are read by row id.

Above the in-memory limit a search reads ~250 stored vectors (keyword candidates, conversation
windows: `app/core/search/stored_windows.py`). Found through the B-tree on `key` (a
`key IN (...)` filter) that cost ~50 µs a key at 1M rows, most of it the string-key lookup;
taken by row id the same vectors cost about half (docs/benchmarks.md, "Stored vectors by row
id"). Row ids are only valid for the table version they were read at (compaction and upserts
move rows), so the map remembers that version and is used only while the table is still at it;
the rows taken are checked against the keys asked for, and anything not served goes back to
the key filter. A stale map is rebuilt at most every `refresh_seconds` (~0.2 s of CPU at 1M
rows), so a busy writer costs a few rebuilds a minute, never one per search.

Where the collection has a vector file, each map built is also saved beside it
(`vector_rowids_file.py`) and a map of the table's current version is mapped from there instead
of rebuilt: the first search after an idle release, or in a search worker that just started,
does not pay the rebuild (docs/benchmarks.md, "Cold search after an idle release").
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from app.core.storage import vector_rowids_file

# Keys are message ids; a map indexed by key stays small (8 bytes a slot) unless ids are sparse.
_MAX_SLOTS_PER_ROW = 4
_MIN_SLOTS = 1 << 20
# Vectors of keys (key -> its row id now) still held unchanged elsewhere: the mapped file.
Stored = Callable[[Mapping[str, int], int], dict[str, np.ndarray]]


def integer_keys(values: Any) -> np.ndarray | None:
    """Keys (an Arrow string array or column) as int64, or None when they are not all integers
    (chunks, summaries: those kinds keep the key filter and LanceDB's own paths)."""
    try:
        return np.asarray(pc.cast(values, pa.int64()).to_numpy(zero_copy_only=False), dtype=np.int64)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None


class RowIds:
    """key -> row id of one table version (integer keys only; None when unusable)."""

    def __init__(
        self,
        *,
        refresh_seconds: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
        saved: vector_rowids_file.Saved | None = None,
    ) -> None:
        self.refresh_seconds = refresh_seconds
        self.saved = saved  # where maps are saved and mapped from (None: built in memory only)
        self._clock = clock
        # (version, slots) as one value: the keyword worker and the search thread both read it.
        self._map: tuple[int, np.ndarray | None] | None = None
        self._built_at: float | None = None
        self._lock = threading.Lock()
        self.builds = 0
        self.loads = 0  # maps of the current version mapped from the saved file

    def take(
        self,
        table: Any,
        keys: Sequence[str],
        dimensions: int,
        stored: Stored | None = None,
        *,
        version: int | None = None,
    ) -> tuple[dict[str, np.ndarray], set[str]]:
        """The stored vectors of those `keys` this map can serve by row id, and the keys it settled
        (served, or known to have no row at this version); the others need the key filter.
        `stored` (the memory-mapped file, vector_file.py) serves the rows it holds unchanged
        before LanceDB is asked for the rest. `version`: the table's version as the caller last
        asked it (`VectorCollection.recent_version`; default: asked now)."""
        fresh = self._fresh(table, int(table.version) if version is None else version)
        if fresh is None:
            return {}, set()
        version, slots = fresh  # a map built now is of the version asked for the build
        wanted: dict[str, int] = {}
        absent: set[str] = set()
        for key in keys:
            # Only canonical integers ("7", not "007"): those are the keys the map was built from.
            if not key.isdigit() or str(int(key)) != key:
                continue
            slot = int(slots[int(key)]) if int(key) < len(slots) else -1
            if slot >= 0:
                wanted[key] = slot
            else:
                absent.add(key)
        if not wanted:
            return {}, absent
        # A row id names one physical row, whose vector never changes: what the file serves for
        # the ids of this version stands even if a commit lands meanwhile.
        mapped = stored(wanted, dimensions) if stored is not None else {}
        rest = [slot for key, slot in wanted.items() if key not in mapped]
        if not rest:
            return mapped, absent | set(mapped)
        data = table.take_row_ids(rest).select(["key", "vector"]).to_arrow()
        if int(table.version) != version:  # a commit landed meanwhile: the ids may name other rows
            return mapped, set(mapped)
        flat = np.asarray(data.column("vector").combine_chunks().flatten(), dtype=np.float32)
        matrix = flat.reshape(len(data), dimensions)
        served = {k: v for k, v in zip(data.column("key").to_pylist(), matrix, strict=True) if k in wanted}
        served.update(mapped)
        return served, absent | set(served)

    def _fresh(self, table: Any, version: int) -> tuple[int, np.ndarray] | None:
        """(its version, the map) at `version`, or at the version asked anew for a build (None:
        not usable now)."""
        current = self._map
        if current is not None and current[0] == version:
            return None if current[1] is None else (version, current[1])
        with self._lock:
            current = self._map
            if current is not None and current[0] == version:
                return None if current[1] is None else (version, current[1])
            if self.saved is not None:
                mapped = self.saved.load(version)
                if mapped is not None:
                    self.loads += 1
                    self._map = (version, mapped)
                    return version, mapped
            now = self._clock()
            if self._built_at is not None and now - self._built_at < self.refresh_seconds:
                return None
            self._built_at = now
            # A remembered version may be behind another process's commit: a build (~0.2 s of
            # CPU at 1M rows) is checked against the version as it is now, not left unusable.
            version = int(table.version)
            slots = self._build(table)
            self.builds += 1
            if int(table.version) != version:  # written while read: wait for a quieter moment
                return None
            self._map = (version, slots)
            if slots is None:
                return None
            if self.saved is not None:
                self.saved.save(version, slots)
            return version, slots

    @staticmethod
    def _build(table: Any) -> np.ndarray | None:
        """key -> row id for every row (-1: no row), or None when the keys are not small integers."""
        data = table.search().select(["key"]).with_row_id(True).limit(None).to_arrow()
        if len(data) == 0:
            return None
        keys = integer_keys(data.column("key"))
        if keys is None:
            return None  # keys that are not integers (chunks, summaries): the key filter serves
        if keys.min() < 0 or keys.max() >= max(_MIN_SLOTS, _MAX_SLOTS_PER_ROW * len(keys)):
            return None
        slots = np.full(int(keys.max()) + 1, -1, dtype=np.int64)
        slots[keys] = data.column("_rowid").to_numpy()
        return slots
