"""Exact vector search from an in-memory copy of a LanceDB collection, for personal-scale archives.

LanceDB costs 15-30 ms per query at 10k rows and ~230 ms at 100k (flat scan with a prefilter,
measured on 2 cores), while one NumPy matrix product over the same 100k × 384 vectors takes a
few milliseconds. The copy is reloaded whenever the table's version changes; collections above
`max_rows` fall back to LanceDB. After this process's own writes the reload happens before the
next search (read your writes). After another process's commit (an import running beside the
app) the search answers from the current copy while one background reload catches up, so a
query never waits for a reload that another process's write caused: the copy lags such a
commit by one reload at most.

At 100k rows the product still reads 150 MB per query. Large copies therefore also keep each
vector projected on the collection's top principal axes: a scan of the projections plus a
bound on what the remaining axes can add rules out almost every row, and only the rows the
bound cannot rule out are scored in full, so the answer is exactly the full scan's.

Asking LanceDB for the table's latest version reads its manifest from disk, so the copy asks at
most every `FOREIGN_CHECK_S` unless this process wrote in between.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from app.core.storage.vectors import VectorCollection, VectorHit

log = logging.getLogger(__name__)
DEFAULT_MAX_ROWS = 300_000
# Below this many rows the full product costs ~1 ms; projections would not pay for themselves.
PROJECT_MIN_ROWS = 20_000
PROJECTED_DIMENSIONS = 128  # 2 % of 100k rows left to score in full (docs/benchmarks.md)
_BASIS_SAMPLE = 20_000
_MAX_MASKS = 64
# How often a search asks LanceDB whether another process committed (own writes: always).
FOREIGN_CHECK_S = 0.25
Mask = Callable[[dict[str, np.ndarray]], np.ndarray]


@dataclass(frozen=True, slots=True)
class Projection:
    basis: np.ndarray  # dims × d, orthonormal columns
    rows: np.ndarray  # n × d, every vector on the basis
    residuals: np.ndarray  # n, the length of what the basis leaves out of each vector

    @classmethod
    def of(cls, matrix: np.ndarray, dimensions: int) -> Projection:
        rng = np.random.default_rng(0)
        sample = matrix[rng.choice(len(matrix), min(_BASIS_SAMPLE, len(matrix)), replace=False)]
        _, vectors = np.linalg.eigh(sample.T @ sample)
        basis = np.ascontiguousarray(vectors[:, ::-1][:, :dimensions], dtype=np.float32)
        rows = matrix @ basis
        residuals = np.sqrt(np.maximum(0.0, (matrix * matrix).sum(axis=1) - (rows * rows).sum(axis=1)))
        return cls(basis, rows, residuals.astype(np.float32))


@dataclass(frozen=True, slots=True)
class _Snapshot:
    local_writes: int
    keys: Any = None
    matrix: np.ndarray | None = None
    columns: dict[str, np.ndarray] | None = None
    projection: Projection | None = None


@dataclass(frozen=True, slots=True)
class MatrixView:
    """A read-only view of the current copy; a new table version yields a new view."""

    version: Any
    keys: np.ndarray
    matrix: np.ndarray
    columns: dict[str, np.ndarray]


class VectorMatrixCache:
    def __init__(
        self,
        collection: VectorCollection,
        *,
        max_rows: int = DEFAULT_MAX_ROWS,
        project_min_rows: int = PROJECT_MIN_ROWS,
        projected_dimensions: int = PROJECTED_DIMENSIONS,
    ) -> None:
        self.collection = collection
        self.max_rows = max_rows
        self.project_min_rows = project_min_rows
        self.projected_dimensions = projected_dimensions
        self._lock = threading.Lock()
        self._version: Any = None
        self._keys = np.array([], dtype=object)
        self._matrix = np.zeros((0, collection.dimensions), dtype=np.float32)
        self._columns: dict[str, np.ndarray] = {}
        self._projection: Projection | None = None
        self._masks: dict[Hashable, np.ndarray] = {}
        self._local_writes = -1  # the collection's own-write counter the copy reflects
        self._fits = True
        self._reloading = False
        self._checked_at = 0.0

    def _refresh(self) -> bool:
        """Make the copy current (see the module docstring); False when it is too large to hold."""
        now = time.monotonic()
        own_write = self._local_writes != self.collection.local_writes
        if self._version is not None and not own_write and now - self._checked_at < FOREIGN_CHECK_S:
            # Asking LanceDB for the latest version reads the manifest from disk (several ms on
            # a busy machine, and a search asks twice); other processes' commits can wait a moment.
            return self._fits
        self._checked_at = now
        table = self.collection.table
        version = table.version
        if version == self._version:
            return self._fits
        if self._version is not None and self._fits and self._local_writes == self.collection.local_writes:
            # Another process committed: answer from the current copy, catch up in the background.
            if not self._reloading:
                self._reloading = True
                threading.Thread(target=self._background_reload, daemon=True, name="strata-vcache").start()
            return True
        return self._load(table, version)

    def _background_reload(self) -> None:
        try:
            table = self.collection.table
            version = table.version
            snapshot = self._prepare(table)  # the slow part, outside the lock: searches go on
            with self._lock:
                # A newer copy may have been installed meanwhile (own write): never go back.
                if self._version is None or version > self._version:
                    self._install(snapshot, version)
        except Exception:  # the next search retries; a failed reload must not kill the app
            log.warning("background reload of %s failed", self.collection.name, exc_info=True)
        finally:
            self._reloading = False

    def _load(self, table: Any, version: Any) -> bool:
        self._install(self._prepare(table), version)
        return self._fits

    def _prepare(self, table: Any) -> _Snapshot:
        """The table's rows as matrix, keys, columns and projection (None when too many to hold)."""
        writes = self.collection.local_writes
        if table.count_rows() > self.max_rows:
            return _Snapshot(writes)
        data = table.to_arrow()
        vectors = data.column("vector").combine_chunks()
        matrix = np.asarray(vectors.flatten(), dtype=np.float32).reshape(
            len(data), self.collection.dimensions
        )
        projection = (
            Projection.of(matrix, self.projected_dimensions)
            if len(matrix) >= max(1, self.project_min_rows)
            and self.collection.dimensions > self.projected_dimensions
            else None
        )
        return _Snapshot(
            writes,
            keys=data.column("key").to_numpy(zero_copy_only=False),
            matrix=matrix,
            columns={c: _column(data.column(c)) for c in self.collection.columns},
            projection=projection,
        )

    def _install(self, snapshot: _Snapshot, version: Any) -> None:
        self._local_writes, self._version = snapshot.local_writes, version
        self._fits = snapshot.matrix is not None
        if snapshot.matrix is None or snapshot.columns is None:
            return
        self._keys, self._matrix, self._columns = snapshot.keys, snapshot.matrix, snapshot.columns
        self._projection = snapshot.projection
        self._masks = {}

    def view(self) -> MatrixView | None:
        """The copy the last search used (keys, unit vectors, prefilter columns), read-only; None
        when the collection is too large to hold or was never loaded. It does not ask LanceDB for
        the table version again (that round trip costs milliseconds): call right after `search`."""
        with self._lock:
            if self._version is None or not self._fits:
                return None
            return MatrixView(self._version, self._keys, self._matrix, self._columns)

    def search(
        self, vector: np.ndarray, limit: int, mask: Mask, mask_key: Hashable | None = None
    ) -> list[VectorHit] | None:
        """Top `limit` rows by cosine similarity among those `mask` keeps; None = use LanceDB.

        `mask_key` names the filter so its row mask is computed once per table version."""
        with self._lock:
            if not self._refresh():
                return None
            keys, matrix, columns, projection = self._keys, self._matrix, self._columns, self._projection
            keep = self._masks.get(mask_key) if mask_key is not None else None
        if len(keys) == 0:
            return []
        if keep is None:
            keep = np.asarray(mask(columns), dtype=bool)
            if mask_key is not None:
                with self._lock:
                    if self._matrix is matrix:
                        if len(self._masks) >= _MAX_MASKS:
                            self._masks.clear()
                        self._masks[mask_key] = keep
        count = int(keep.sum())
        if count == 0:
            return []
        query = vector.astype(np.float32)
        k = min(limit, count)
        if projection is not None:
            rows, scores = _bounded_scores(matrix, projection, query, keep, k)
        else:
            # Stored vectors are L2-normalized, so the dot product is the cosine similarity.
            # Scoring every row and masking the scores beats copying out the kept rows first.
            rows = np.arange(len(matrix))
            scores = matrix @ query
            scores[~keep] = -np.inf
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top])]
        return [VectorHit(key=str(keys[rows[i]]), similarity=float(scores[i])) for i in top]


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
    rows = np.flatnonzero(upper >= floor)
    if len(rows) > len(matrix) // 4:  # the bound rules out too little here: scan everything
        scores = matrix @ query
        scores[~keep] = -np.inf
        return np.arange(len(matrix)), scores
    return rows, matrix[rows] @ query


def _column(values: Any) -> np.ndarray:
    """Strings as fixed-width unicode (vectorized comparisons), nulls as "" / 0 / False."""
    if pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
        return np.asarray(pc.fill_null(values, "").to_numpy(zero_copy_only=False), dtype=str)
    if pa.types.is_boolean(values.type):
        return np.asarray(pc.fill_null(values, False).to_numpy(zero_copy_only=False), dtype=bool)
    return pc.fill_null(values, 0).to_numpy(zero_copy_only=False)
