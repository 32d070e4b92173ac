"""The vector leg on a memory-mapped faiss IVF-SQ8 index (`search.vector_engine = "faiss"`).

Past the in-memory copy's limit the messages' vector leg can be answered by faiss instead of
LanceDB's IVF_SQ index: the same family of index (~1,000-row partitions, 8-bit codes), which at
1M reaches the same recall with fewer probes and applies a filter inside its search (docs/
benchmarks.md, "1M: the vector engine" and "1M: a faiss vector leg"). What the contract asks of
the leg is kept here:
- the filter's rows come from LanceDB's columns at the current table version (`faiss_filter`),
  so tier and archived changes count at once; a narrow filter probes further (`narrow.py`);
- rows written after the index's build are held in a small in-memory tail, scored exactly: this
  process's writes at once (the collection tells the leg), another process's when a search sees
  a new table version (caught up in the background, as the in-memory copy does);
- the candidates (2 × the rows asked, at least 60, as LanceDB's refine) are re-scored exactly
  from `VectorCollection.vectors_of`, which also drops any row deleted since the build;
- no usable index (none built yet, faiss missing, a corrupt file) answers None: LanceDB's index
  serves, and a corrupt file is said in the log once; the background job or `doctor --repair`
  rebuilds it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from app.core.index.ann import NARROW_MAX_ROWS, refine_factor
from app.core.index.faiss_files import FaissFileError, FaissFiles, FaissMeta, faiss_module
from app.core.index.faiss_filter import RowFilter, row_filter
from app.core.index.filters import Filter, Term
from app.core.index.narrow import narrow_probes
from app.core.storage import vector_sync
from app.core.storage.vector_rowids import integer_keys as stored_integer_keys
from app.core.storage.vectors import Change, VectorCollection, VectorHit

log = logging.getLogger(__name__)

# At 1M, 80 of 1,000 partitions: Recall@10 0.991 and a whole search closer to the exact one than
# LanceDB's at its 80 (fast1m3: 90-95 of 98 identical top 10s against 85); 30 gave 0.988 but
# lost agreement with filters.
NPROBE = 80
VERSION_CHECK_S = 0.25  # how often a search asks LanceDB for the table version (a manifest read)
FILES_CHECK_S = 5.0  # how often a search looks for a newer generation written by the job
RETRY_BROKEN_S = 60.0
CATCH_UP_EVERY_S = 5.0  # a corrupt or missing index is tried again this often
_MAX_FILTERS = 64


@dataclass(slots=True)
class _Opened:
    meta: FaissMeta
    index: Any
    keys: np.ndarray  # position -> key (memory-mapped)
    order: np.ndarray  # positions sorted by key
    sorted_keys: np.ndarray

    def positions_of(self, keys: np.ndarray) -> np.ndarray:
        at = np.searchsorted(self.sorted_keys, keys)
        at = np.minimum(at, max(0, len(self.sorted_keys) - 1))
        found = len(self.sorted_keys) > 0 and self.sorted_keys[at] == keys
        return np.where(found, self.order[at], -1)


class FaissLeg:
    def __init__(
        self,
        collection: VectorCollection,
        files: FaissFiles,
        share: Callable[[Term], float],
        *,
        nprobe: int = NPROBE,
    ) -> None:
        self.collection = collection
        self.files = files
        self.share = share
        self.nprobe = nprobe
        self._lock = threading.Lock()
        self._opened: _Opened | None = None
        self._broken: tuple[str, float] | None = None  # (why, when) the files were last unusable
        self._files_checked = 0.0
        self._version: int | None = None  # table version the filters and tail reflect
        self._version_checked = 0.0
        self._filters: dict[Filter, tuple[tuple[int, FaissMeta], RowFilter]] = {}
        self._tail_keys = np.empty(0, np.int64)  # rows not in the index (newest last)
        self._tail = np.zeros((0, collection.dimensions), np.float32)
        self._catching_up = False
        self._again = False
        self._caught_up_at = -1e9
        self.catch_up_every_s = CATCH_UP_EVERY_S
        self.catch_ups = 0  # another process's commits read into the tail (a test counts them)
        self.used_at = time.monotonic()
        collection.listen(self._follow)

    # -- the index files ------------------------------------------------------------------------
    def _open(self) -> _Opened | None:
        now = time.monotonic()
        opened = self._opened
        if opened is not None and now - self._files_checked < FILES_CHECK_S:
            return opened
        broken = self._broken
        if opened is None and broken is not None and now - broken[1] < RETRY_BROKEN_S:
            return None
        self._files_checked = now
        try:
            meta = self.files.current()
            if meta is None:
                return None  # not built yet: LanceDB's index serves until the job builds it
            if opened is not None and opened.meta == meta:  # a rebuild after removal reuses numbers
                return opened
            index, keys = self.files.open(meta)  # FaissFileError too where faiss is not installed
        except FaissFileError as exc:
            if self._broken is None:
                log.warning(
                    "faiss index of %s unusable (%s): LanceDB's index answers; the index job or "
                    "`strata doctor --repair` rebuilds it",
                    self.collection.name,
                    exc,
                )
            self._broken = (str(exc), now)
            return opened
        faiss = faiss_module()
        if faiss is not None:
            faiss.omp_set_num_threads(1)  # one query at a time: threads cost more than they gain
        order = np.argsort(keys, kind="stable")
        fresh = _Opened(meta, index, keys, order, np.asarray(keys)[order])
        with self._lock:
            self._opened, self._broken, self._filters = fresh, None, {}
            if len(self._tail_keys):  # rows the new generation holds leave the tail
                stay = fresh.positions_of(self._tail_keys) < 0
                self._tail_keys, self._tail = self._tail_keys[stay], self._tail[stay]
        if opened is None:
            self._catch_up_later()  # rows written since the build, by any process
        return fresh

    def reopen(self) -> None:
        """Look for a new generation at the next search (the job just wrote one), and try an
        unusable index again."""
        self._files_checked, self._broken = 0.0, None

    @property
    def broken(self) -> str | None:
        """Why the index files are unusable (None: usable or not built)."""
        return self._broken[0] if self._broken is not None else None

    def release(self) -> int:
        """Unmap the index and drop the tail and filters (idle release); bytes of the tail."""
        with self._lock:
            held = self._tail.nbytes + sum(
                f.bits.nbytes if f.bits is not None else 0 for _, f in self._filters.values()
            )
            self._opened, self._filters, self._version = None, {}, None
            self._tail_keys, self._tail = np.empty(0, np.int64), self._tail[:0]
        return held

    # -- search ---------------------------------------------------------------------------------
    def search(self, vector: np.ndarray, limit: int, where: Filter) -> list[VectorHit] | None:
        """Top `limit` rows `where` keeps, exact cosines; None when LanceDB must answer."""
        opened = self._open()
        if opened is None:
            return None
        self.used_at = time.monotonic()
        faiss = faiss_module()
        assert faiss is not None  # an index was opened with it
        rows = self._row_filter(opened, where, faiss)
        query = np.ascontiguousarray(vector, dtype=np.float32)[None, :]
        fetch = limit * refine_factor(limit)
        found: list[int] = []
        if rows.count > 0:
            params = faiss.SearchParametersIVF(nprobe=min(self.nprobe, opened.meta.partitions))
            if rows.selector is not None:
                params.sel = rows.selector
                if rows.count <= NARROW_MAX_ROWS:  # fewer rows kept: probe further (narrow.py)
                    scaled = narrow_probes(
                        rows.count,
                        opened.meta.partitions,
                        probes=self.nprobe,
                        narrow_max_rows=NARROW_MAX_ROWS,
                    )
                    params.nprobe = scaled or opened.meta.partitions
            _, ids = opened.index.search(query, fetch, params=params)
            found = [int(opened.keys[i]) for i in ids[0] if i >= 0]
        with self._lock:
            tail_keys, tail = self._tail_keys, self._tail
        if len(tail_keys):
            keep = rows.keeps(tail_keys)
            scores = np.where(keep, tail @ query[0], -np.inf)
            best = np.argsort(-scores)[:fetch]
            found += [int(tail_keys[i]) for i in best if np.isfinite(scores[i])]
        if not found:
            return []
        # Exact cosines from the stored vectors; a key without a row was deleted since.
        stored = self.collection.vectors_of(list(dict.fromkeys(str(k) for k in found)))
        if len(rows.dropped) and stored:
            kept = ~np.isin(np.asarray([int(k) for k in stored], np.int64), rows.dropped)
            stored = {k: v for (k, v), ok in zip(stored.items(), kept, strict=True) if ok}
        scored = sorted(
            ((float(v @ query[0]), k) for k, v in stored.items()), key=lambda s: (-s[0], int(s[1]))
        )
        return [VectorHit(k, s) for s, k in scored[:limit]]

    def _row_filter(self, opened: _Opened, where: Filter, faiss: Any) -> RowFilter:
        version = self._current_version()
        with self._lock:
            cached = self._filters.get(where)
        # Positions are the generation's: a filter made for another generation is not this one's.
        if cached is not None and cached[0] == (version, opened.meta):
            return cached[1]
        rows = row_filter(
            where, self.collection.table, self.share, opened.positions_of, opened.meta.rows, faiss
        )
        with self._lock:
            if len(self._filters) >= _MAX_FILTERS:
                self._filters.clear()
            self._filters[where] = ((version, opened.meta), rows)
        return rows

    def _current_version(self) -> int:
        """The table version (asked at most every VERSION_CHECK_S); another process's commit starts
        a catch-up of the tail in the background."""
        now = time.monotonic()
        known = self._version
        if known is not None and now - self._version_checked < VERSION_CHECK_S:
            return known
        self._version_checked = now
        version = int(self.collection.table.version)
        if known is not None and version != known:
            self._catch_up_later()
        self._version = version
        return version

    # -- rows newer than the index ----------------------------------------------------------------
    def _follow(self, change: Change) -> None:
        """This process's writes: upserted rows join the tail at once (their codes, if any, are of
        an older vector); every write makes the next search read the filters anew."""
        with self._lock:
            self._version_checked = 0.0
            if change.op == "upsert" and change.vectors is not None and self._opened is not None:
                keys = integer_keys_or_none(change.keys)
                if keys is None:
                    return
                stay = ~np.isin(self._tail_keys, keys)
                self._tail_keys = np.concatenate([self._tail_keys[stay], keys])
                self._tail = np.concatenate([self._tail[stay], np.asarray(change.vectors, np.float32)])
            if (
                change.version is not None
                and self._version is not None
                and change.version == self._version + 1
            ):
                self._version = change.version  # ours alone: no catch-up needed for it

    def _catch_up_later(self) -> None:
        with self._lock:
            self._again = True  # a catch-up under way reads once more: it may have read too early
            if self._catching_up:
                return
            self._catching_up = True
        threading.Thread(target=self._catch_up_loop, daemon=True, name="strata-faiss-tail").start()

    def _catch_up_loop(self) -> None:
        while True:
            # Reading every key costs ~0.2 s of CPU at 1M rows: during another process's long
            # import, at most one catch-up every CATCH_UP_EVERY_S (its rows wait that long).
            wait = self._caught_up_at + self.catch_up_every_s - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            with self._lock:
                if not self._again:
                    self._catching_up = False
                    return
                self._again = False
            self._caught_up_at = time.monotonic()
            self._catch_up()

    def _catch_up(self) -> None:
        """Read into the tail the rows LanceDB holds that neither the index nor the tail does."""
        try:
            opened = self._opened
            if opened is None:
                return
            table = self.collection.table
            with self._lock:
                nothing_new = not len(self._tail_keys) and int(table.count_rows()) == opened.meta.rows
            if nothing_new:
                # As many rows as the index holds, and deletions leave it at once (the deletion
                # hook; the job otherwise): nothing to read. Saves reading every key after each
                # idle release (~0.5 s of CPU at 1M).
                self.catch_ups += 1
                return
            keys, rowids = vector_sync.read_ids(table)  # ~0.2 s at 1M rows, keys and ids only
            present = integer_keys_or_none(list(keys))
            if present is None:
                return
            with self._lock:
                tail_keys = self._tail_keys
            missing = (opened.positions_of(present) < 0) & ~np.isin(present, tail_keys)
            if missing.any():
                fetched = vector_sync.fetch(table, self.collection, rowids[missing])
                new = integer_keys_or_none(fetched.keys)
                if new is not None and len(new):
                    with self._lock:
                        stay = ~np.isin(self._tail_keys, new)
                        self._tail_keys = np.concatenate([self._tail_keys[stay], new])
                        self._tail = np.concatenate([self._tail[stay], fetched.vectors])
            self.catch_ups += 1
        except Exception:  # the next new version tries again; a search must never fail for it
            log.warning("faiss leg of %s could not catch up", self.collection.name, exc_info=True)

    def tail_rows(self) -> int:
        return len(self._tail_keys)


def integer_keys_or_none(keys: Any) -> np.ndarray | None:
    return stored_integer_keys(pa.array(list(keys), type=pa.string()))
