"""Exact vector search from an in-memory copy of a LanceDB collection, for personal-scale archives.

LanceDB costs 15-30 ms per query at 10k rows and ~230 ms at 100k (flat scan with a prefilter,
measured on 2 cores), while one NumPy matrix product over the same 100k × 384 vectors takes a
few milliseconds. The copy is loaded once; after that it follows this process's own writes in
place (the collection tells it each upsert, update and delete: `vector_rows.Rows`), so a commit
never costs a reload. Another process's commit (an import running beside the app) is caught up
in the background by reading only the rows it added, rewrote or deleted (`vector_sync.py`)
while searches answer from the current copy, so a query never waits for another process's
write. Collections above `max_rows` are not held:
search goes to LanceDB (its approximate index, see `app/core/index/ann.py`).

At 100k rows the product still reads 150 MB per query. Large copies therefore also keep each
vector projected on the collection's top principal axes: a scan of the projections plus a
bound on what the remaining axes can add rules out almost every row, and only the rows the
bound cannot rule out are scored in full, so the answer is exactly the full scan's. By default
only the `rescore_rows` (400) rows best on the projections are scored in full, without the bound:
~1.8 ms less CPU a search at 100k for the same top 30 in ~99.7 % of places (docs/benchmarks.md,
"REST: int8 queries and the projected scan"); `rescore_rows=0` keeps the exact bound.

Asking LanceDB for the table's latest version reads its manifest from disk, so the copy asks at
most every `FOREIGN_CHECK_S`.

A host that sits idle (the desktop app in the tray) calls `release_if_idle`: a copy no search
used for that long is dropped (~2.4 KB a row) and loaded again by the next search. That search
calls `prefetch` as it starts, so the load runs beside its query embedding (after an idle release
the model loads too) instead of after it; the leg then waits for that load, not a second one.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.core.storage import vector_sync
from app.core.storage.int8_scan import best_projected_rows
from app.core.storage.top_rows import top_rows
from app.core.storage.vector_rows import Projection, Rows
from app.core.storage.vectors import Change, VectorCollection, VectorHit

__all__ = ["DEFAULT_MAX_ROWS", "MatrixView", "Projection", "VectorMatrixCache"]

log = logging.getLogger(__name__)
# Above this many rows the copy is not held; the ANN index serves. The copy costs ~2.4 KB a row
# (vector, projection, columns, key index): 355 MB at 150k, 710 MB at 300k, too much for the
# 1 GB process budget; at 400k the index path searched as fast as the copy at 100k in the same
# process (docs/benchmarks.md, "Vector search at 1M").
DEFAULT_MAX_ROWS = 150_000
# Below this many rows the full product costs ~1 ms; projections would not pay for themselves.
PROJECT_MIN_ROWS = 20_000
PROJECTED_DIMENSIONS = 128  # 2 % of 100k rows left to score in full (docs/benchmarks.md)
# Rows best on the projections scored in full (at least RESCORE_PER_HIT per row asked for);
# 0 = every row the exact bound cannot rule out (search.vector_rescore_rows).
RESCORE_ROWS = 400
RESCORE_PER_HIT = 13  # 400 rows for the 30 a leg asks: the ratio rest4 measured recall@30 at
_MAX_MASKS = 64
# How often a search asks LanceDB whether another process committed.
FOREIGN_CHECK_S = 0.25
Mask = Callable[[dict[str, np.ndarray]], np.ndarray]


@dataclass(frozen=True, slots=True)
class MatrixView:
    """A read-only view of the current copy; any change to the copy yields a new `version`."""

    version: Any
    keys: np.ndarray
    matrix: np.ndarray
    columns: dict[str, np.ndarray]
    alive: np.ndarray | None = None  # False for rows deleted since the last full load


class VectorMatrixCache:
    def __init__(
        self,
        collection: VectorCollection,
        *,
        max_rows: int = DEFAULT_MAX_ROWS,
        project_min_rows: int = PROJECT_MIN_ROWS,
        projected_dimensions: int = PROJECTED_DIMENSIONS,
        rescore_rows: int = RESCORE_ROWS,
    ) -> None:
        self.collection = collection
        self.max_rows = max_rows
        self.project_min_rows = project_min_rows
        self.projected_dimensions = projected_dimensions
        self.rescore_rows = rescore_rows  # read by every search: may be changed at any time
        # From this many rows (0 = never) the first load runs in the background and LanceDB
        # answers meanwhile, so a cold search does not wait for a large copy it can do without.
        self.background_load_rows = 0
        self._lock = threading.Lock()
        self._version: Any = None  # the table version the copy reflects
        self._rows: Rows | None = None
        self._generation = 0  # bumps on every change to the copy (views and masks key on it)
        self._columns_changed = 0  # generation of the last in-place column change
        self._masks: dict[Hashable, tuple[int, int, np.ndarray]] = {}
        self._fits = True
        self._reloading = False
        # Set once a load started by `prefetch` is installed (or left to the search): searches wait.
        self._prefetched: threading.Event | None = None
        self._loaded_at: Any = None  # the version of the last whole load
        self._kept_basis: tuple[Any, np.ndarray] | None = None  # (version, axes) kept by the release
        self._checked_at = 0.0
        self.reloads = 0  # whole loads from LanceDB (a test counts them)
        self.catch_ups = 0  # another process's commits applied row by row
        self.fetched_rows = 0  # rows those catch-ups read from LanceDB
        self.used_at = time.monotonic()  # the last search or view (idle release)
        collection.listen(self._follow)

    # -- keeping the copy current ------------------------------------------------------------
    def _refresh(self) -> bool:
        """Make the copy current (see the module docstring); False when it is too large to hold."""
        now = time.monotonic()
        if self._version is not None and now - self._checked_at < FOREIGN_CHECK_S:
            # Asking LanceDB for the latest version reads the manifest from disk (several ms on
            # a busy machine); other processes' commits can wait a moment.
            return self._fits
        self._checked_at = now
        table = self.collection.table
        version = table.version
        if version == self._version:
            return self._fits
        if self._version is not None and self._fits:
            # Another process committed: answer from the current copy, catch up in the background.
            self._in_background(self._catch_up)
            return True
        if self._version is None and self.background_load_rows > 0:
            if self._reloading:
                return False  # the first load is under way: LanceDB answers until it is installed
            if self.background_load_rows <= self.collection.count():
                self._in_background(lambda: self._reload(table, version))
                return False
        self._install(self._prepare(table, version), version)
        return self._fits

    def _in_background(self, work: Callable[[], None]) -> None:
        if not self._reloading:
            self._reloading = True
            name = "strata-vcache"
            threading.Thread(target=self._run_background, args=(work,), daemon=True, name=name).start()

    def prefetch(self) -> None:
        """Start loading a copy that is not held (never loaded, or dropped by the idle release) in
        the background; the next search waits for that load instead of starting its own, so the
        rows and the answers are the ones a load in the search would give."""
        with self._lock:
            if self._version is not None or self._reloading:
                return
            self._reloading = True
            ready = self._prefetched = threading.Event()
        threading.Thread(target=self._run_prefetch, args=(ready,), daemon=True, name="strata-vcache").start()

    def _run_prefetch(self, ready: threading.Event) -> None:
        try:
            if not self.collection.exists:  # nothing to load (and reads must not create the table)
                return
            table = self.collection.table
            version = table.version
            if self.background_load_rows > 0 and self.background_load_rows <= self.collection.count():
                # A copy this large never holds a search up (LanceDB answers until it is installed):
                # let the search go on at once; it finds the load under way.
                ready.set()
            self._reload(table, version)
        except Exception:  # the search loads it itself
            log.warning(
                "loading the copy of %s ahead of the search failed", self.collection.name, exc_info=True
            )
        finally:
            self._reloading = False
            ready.set()

    def _await_prefetch(self) -> None:
        ready = self._prefetched
        if ready is not None:
            ready.wait()  # outside the lock: the load installs the copy under it
            if self._prefetched is ready:
                self._prefetched = None

    def _run_background(self, work: Callable[[], None]) -> None:
        try:
            work()
        except Exception:  # the next search retries; a failed catch-up must not kill the app
            log.warning("background catch-up of %s failed", self.collection.name, exc_info=True)
        finally:
            self._reloading = False

    def _follow(self, change: Change) -> None:
        """Apply one of this process's writes to the copy in place (called by the collection)."""
        with self._lock:
            rows = self._rows
            if rows is None:
                return  # nothing held (never loaded, or too large): a later search loads what it needs
            if change.op == "upsert" and change.vectors is not None:
                if rows.upsert(change.keys, change.vectors, change.rows):
                    self._columns_changed = self._generation + 1  # replaced rows' columns changed
                if not self._grown(rows):
                    return
            elif change.op == "update" and change.values is not None:
                rows.update(change.keys, change.values)
                self._columns_changed = self._generation + 1
            elif change.op == "delete":
                rows.delete(change.keys)
                smaller = rows.compacted()
                if smaller is not None:
                    self._rows = smaller
            if change.op == "maintain":
                # Rows unchanged; only trust it if no other process committed in between. The
                # rewrite gave every row a new LanceDB id: learn them (keys and ids only).
                if change.before == self._version and self.collection.count() == rows.live:
                    self._version = change.version
                    self._in_background(self._learn_ids)
                return
            self._generation += 1
            if self._version is not None and change.version == self._version + 1:
                self._version = change.version
            # Otherwise another process committed in between: the next search's refresh sees an
            # unknown version and catches up in the background.

    def _grown(self, rows: Rows) -> bool:
        """After appends: hand over to LanceDB past `max_rows` (False), start projections once
        the copy is large enough for them to pay."""
        if rows.live > self.max_rows:
            self._drop()  # grew past what the copy holds: LanceDB's index takes over
            return False
        if (
            rows.basis is None
            and rows.live >= max(1, self.project_min_rows)
            and self.collection.dimensions > self.projected_dimensions
        ):
            rows.start_projection(self.projected_dimensions)
        return True

    def _drop(self) -> None:
        self._rows, self._fits, self._masks = None, False, {}
        self._generation += 1

    def _catch_up(self) -> None:
        """Apply another process's commits: only the rows it added, rewrote or deleted."""
        with self._lock:
            rows, generation = self._rows, self._generation
        if rows is None:
            return
        table = self.collection.table
        version = table.version
        keys, ids = vector_sync.read_ids(table)  # keys and row ids only, outside the lock
        with self._lock:
            # A write of this process since the read would look deleted: try again later.
            if self._rows is not rows or self._generation != generation:
                return
            diff = vector_sync.diff(rows, keys, ids)
        if len(diff.fetch) > vector_sync.WHOLE_LOAD_SHARE * max(1, diff.total):
            self._reload(table, version)  # e.g. a compaction rewrote every row
            return
        fetched = vector_sync.fetch(table, self.collection, diff.fetch)
        with self._lock:
            if self._rows is not rows or self._generation != generation:
                return  # this process wrote meanwhile: the next search's refresh tries again
            if diff.deleted:
                rows.delete(diff.deleted)
            if rows.upsert(fetched.keys, fetched.vectors, fetched.rows, fetched.rowids) or diff.deleted:
                self._columns_changed = self._generation + 1
            self.catch_ups += 1
            self.fetched_rows += len(fetched.keys)
            self._generation += 1
            self._version = version
            if self._grown(rows):
                smaller = rows.compacted()
                if smaller is not None:
                    self._rows = smaller

    def _learn_ids(self) -> None:
        """Take the LanceDB row ids of every held row after this process rewrote them."""
        table = self.collection.table
        version = table.version
        keys, ids = vector_sync.read_ids(table)
        with self._lock:
            rows = self._rows
            if rows is None or version != self._version:
                return  # another commit since: its catch-up fetches what it must
            at = np.fromiter((rows.row_of.get(k, -1) for k in keys), dtype=np.int64, count=len(keys))
            known = at >= 0
            rows.rowids[at[known]] = ids[known]

    def _reload(self, table: Any, version: Any) -> None:
        prepared = self._prepare(table, version)  # the slow part, outside the lock: searches go on
        with self._lock:
            # A newer copy may have been installed meanwhile: never go back.
            if self._version is None or version > self._version:
                self._install(prepared, version)

    def _prepare(self, table: Any, version: Any) -> Rows | None:
        """The table's rows with their projection (None when too many to hold). A copy dropped by
        the idle release at this same version gets its principal axes back instead of computing
        them again: the same rows give the same axes, so the same projections and answers."""
        kept = self._kept_basis
        basis = kept[1] if kept is not None and kept[0] == version else None
        return vector_sync.load(
            table, self.collection, self.max_rows, self.project_min_rows, self.projected_dimensions, basis
        )

    def _install(self, rows: Rows | None, version: Any) -> None:
        self.reloads += 1
        self._version = version
        self._loaded_at = version
        self._kept_basis = None
        self._fits = rows is not None
        self._rows = rows
        self._masks = {}
        self._generation += 1
        self._columns_changed = self._generation

    def release_if_idle(self, idle_seconds: float, now: float | None = None) -> int:
        """Drop the copy when no search used it for `idle_seconds`; the next search loads it again.

        Returns the bytes the copy held (0 when it was in use or held nothing)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            rows = self._rows
            if rows is None or now - self.used_at < idle_seconds:
                return 0
            held = rows.nbytes()
            # The principal axes (128 × 384 floats, ~200 KB) are kept while the copy is still the
            # table at the version it was loaded at: reloaded at that version, they are the same.
            same = rows.basis is not None and self._version == self._loaded_at and not rows.dead
            self._kept_basis = (self._version, rows.basis) if same else None
            # Unknown version: the next search loads the copy in full, in its own thread.
            self._rows, self._version, self._fits, self._masks = None, None, True, {}
            self._generation += 1
            return held

    def memory_bytes(self) -> int:
        """Approximate memory the copy holds (0 when it holds nothing)."""
        rows = self._rows
        return rows.nbytes() if rows is not None else 0

    # -- reading -----------------------------------------------------------------------------
    def holds_nothing(self) -> bool:
        """Whether the copy is loaded and the collection has no rows, as the next search would see
        it (an empty key collection lets the search skip the key leg's second query embedding).
        False while the copy is not loaded: loading it is the leg's own search's job, beside the
        query's embedding, not the caller's. Another process's rows are caught up with as a
        search would (in the background, at most every FOREIGN_CHECK_S)."""
        with self._lock:
            if self._version is None or self._rows is None:
                return False
            return self._refresh() and self._rows is not None and self._rows.live == 0

    def view(self) -> MatrixView | None:
        """The copy the last search used (keys, unit vectors, prefilter columns), read-only; None
        when the collection is too large to hold or was never loaded. It does not ask LanceDB for
        the table version again (that round trip costs milliseconds): call right after `search`."""
        with self._lock:
            if self._version is None or self._rows is None:
                return None
            self.used_at = time.monotonic()
            v = self._rows.view()
            version = (self.collection.name, self._generation)  # another collection: another layout
            return MatrixView(version, v.keys, v.matrix, v.columns, v.alive if v.dead else None)

    def search(
        self, vector: np.ndarray, limit: int, mask: Mask, mask_key: Hashable | None = None
    ) -> list[VectorHit] | None:
        """Top `limit` rows by cosine similarity among those `mask` keeps; None = use LanceDB.

        `mask_key` names the filter so its row mask is computed once per change of the columns
        (rows appended since are masked on their own and added to it)."""
        self._await_prefetch()
        with self._lock:
            self.used_at = time.monotonic()
            if not self._refresh() or self._rows is None:
                return None
            view = self._rows.view()
            cached = self._masks.get(mask_key) if mask_key is not None else None
            columns_changed = self._columns_changed
        size = len(view.keys)
        if size == 0:
            return []
        if cached is not None and cached[0] == columns_changed and cached[1] <= size:
            done = cached[1]
            tail = {c: v[done:] for c, v in view.columns.items()}
            appended = np.asarray(mask(tail), dtype=bool)
            keep = cached[2] if done == size else np.concatenate([cached[2], appended])
        else:
            keep = np.asarray(mask(view.columns), dtype=bool)
        if mask_key is not None and (cached is None or cached[1] != size or cached[0] != columns_changed):
            with self._lock:
                if len(self._masks) >= _MAX_MASKS:
                    self._masks.clear()
                self._masks[mask_key] = (columns_changed, size, keep)
        if view.dead:
            keep = keep & view.alive
        # count_nonzero: a tenth of a boolean sum's CPU over 100k rows (twice a search, each leg).
        count = int(np.count_nonzero(keep))
        if count == 0:
            return []
        query = vector.astype(np.float32)
        k = min(limit, count)
        matrix = view.matrix
        rescore = max(self.rescore_rows, RESCORE_PER_HIT * k) if self.rescore_rows > 0 else 0
        if view.projection is not None and 0 < rescore < count:
            rows, scores = _projected_best_scores(matrix, view.projection, query, keep, rescore)
        elif view.projection is not None and rescore:
            # A narrow filter keeps no more rows than the scan would score: score them, exactly,
            # without the pass over every row's projection.
            rows = np.flatnonzero(keep)
            scores = matrix[rows] @ query
        elif view.projection is not None:
            rows, scores = _bounded_scores(matrix, view.projection, query, keep, k)
        else:
            # Stored vectors are L2-normalized, so the dot product is the cosine similarity.
            # Scoring every row and masking the scores beats copying out the kept rows first.
            rows = np.arange(len(matrix))
            scores = matrix @ query
            scores[~keep] = -np.inf
        top = _best(rows, scores, k)
        return [VectorHit(key=str(view.keys[rows[i]]), similarity=float(scores[i])) for i in top]


def _best(rows: np.ndarray, scores: np.ndarray, k: int) -> np.ndarray:
    """Positions of the `k` best scores, ties broken by the lower row: rows with the same vector
    (a repeated sentence) tie exactly, and which of them is kept must not depend on the scan."""
    top = np.argpartition(-scores, k - 1)[:k]
    tied = np.flatnonzero(scores >= scores[top].min())
    if len(tied) > k:  # some rows outside `top` tie with its last: choose among them by row
        top = tied
    return top[np.lexsort((rows[top], -scores[top]))][:k]


def _bounded_scores(
    matrix: np.ndarray, projection: Projection, query: np.ndarray, keep: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Exact scores of every row that could be among the top `k` (and of a few that are not).

    score = projected part + rest, and |rest| <= |query's rest| * |row's rest| (Cauchy-Schwarz):
    score the rows the projections rank highest in full, take their k-th score as a floor, and
    every row whose upper bound stays below the floor cannot make the top k.
    """
    projected_query = query @ projection.basis
    query_rest = float(np.sqrt(max(0.0, float(query @ query) - float(projected_query @ projected_query))))
    approx = projection.rows @ projected_query
    approx[~keep] = -np.inf
    probe = np.argpartition(-approx, min(len(approx), max(4 * k, 200)) - 1)[: max(4 * k, 200)]
    probe = probe[keep[probe]]
    floor = np.partition(matrix[probe] @ query, len(probe) - k)[len(probe) - k]
    # A small slack covers float32 rounding in the bound, keeping the result exact.
    upper = approx + query_rest * projection.residuals + 1e-4
    rows = np.flatnonzero((upper >= floor) & keep)
    if len(rows) > len(matrix) // 4:  # the bound rules out too little here: scan everything
        scores = matrix @ query
        scores[~keep] = -np.inf
        return np.arange(len(matrix)), scores
    return rows, matrix[rows] @ query


def _projected_best_scores(
    matrix: np.ndarray, projection: Projection, query: np.ndarray, keep: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray]:
    """Full scores of the `n` kept rows best on the projections (approximate: a row whose
    projected part ranks below them but whose rest would lift it into the top k is missed).

    The projections carry most of a vector (the top principal axes), so the true best rows are
    nearly always among the best few hundred projected ones; skipping the bound saves its pass
    over every row and the gather of the ~2 % of rows it cannot rule out.
    """
    projected_query = query @ projection.basis
    if projection.codes is not None and projection.scales is not None and n % 4 == 0:
        # A first pass on int8 codes, a quarter of the bytes (int8_scan.py); the rows it keeps are
        # scored on their float projections bit for bit as below, so it chooses the same rows
        # unless one of them falls out of its pool.
        rows = best_projected_rows(
            projection.rows, projection.codes, projection.scales, projected_query, keep, n
        )
        if rows is not None:
            return rows, matrix[rows] @ query
    approx = projection.rows @ projected_query
    approx[~keep] = -np.inf
    # The same rows as a full argpartition, for a tenth of its CPU (top_rows.py). Their order
    # then differs, which changes no score while the gather is whole groups of four rows: NumPy's
    # one-thread BLAS scores the last `n % 4` rows of a product in a loop of its own, whose sums
    # differ in the last bit, so any other count keeps argpartition's order.
    rows = top_rows(approx, n) if n % 4 == 0 else np.argpartition(-approx, n - 1)[:n]
    return rows, matrix[rows] @ query
