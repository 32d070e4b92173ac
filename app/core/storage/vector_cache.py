"""Exact vector search from an in-memory copy of a LanceDB collection, for personal-scale archives.

LanceDB costs 15-30 ms per query at 10k rows and ~230 ms at 100k (flat scan with a prefilter,
measured on 2 cores), while one NumPy matrix product over the same 100k × 384 vectors takes a
few milliseconds. The copy is reloaded whenever the table's version changes (any process's
commit), so it is never stale; collections above `max_rows` fall back to LanceDB.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from app.core.storage.vectors import VectorCollection, VectorHit

DEFAULT_MAX_ROWS = 300_000
Mask = Callable[[dict[str, np.ndarray]], np.ndarray]


class VectorMatrixCache:
    def __init__(self, collection: VectorCollection, *, max_rows: int = DEFAULT_MAX_ROWS) -> None:
        self.collection = collection
        self.max_rows = max_rows
        self._lock = threading.Lock()
        self._version: Any = None
        self._keys = np.array([], dtype=object)
        self._matrix = np.zeros((0, collection.dimensions), dtype=np.float32)
        self._columns: dict[str, np.ndarray] = {}

    def _refresh(self) -> bool:
        """Make the copy current; False when the collection is too large to hold."""
        table = self.collection.table
        version = table.version
        if version == self._version:
            return True
        if table.count_rows() > self.max_rows:
            return False
        data = table.to_arrow()
        vectors = data.column("vector").combine_chunks()
        matrix = np.asarray(vectors.flatten(), dtype=np.float32).reshape(
            len(data), self.collection.dimensions
        )
        columns = {c: _column(data.column(c)) for c in self.collection.columns}
        self._keys = data.column("key").to_numpy(zero_copy_only=False)
        self._matrix, self._columns, self._version = matrix, columns, version
        return True

    def search(self, vector: np.ndarray, limit: int, mask: Mask) -> list[VectorHit] | None:
        """Top `limit` rows by cosine similarity among those `mask` keeps; None = use LanceDB."""
        with self._lock:
            if not self._refresh():
                return None
            keys, matrix, columns = self._keys, self._matrix, self._columns
        if len(keys) == 0:
            return []
        keep = np.asarray(mask(columns), dtype=bool)
        count = int(keep.sum())
        if count == 0:
            return []
        # Stored vectors are L2-normalized, so the dot product is the cosine similarity. Scoring
        # every row and masking the scores is cheaper than copying out the kept rows first.
        scores = matrix @ vector.astype(np.float32)
        scores[~keep] = -np.inf
        k = min(limit, count)
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top])]
        return [VectorHit(key=str(keys[i]), similarity=float(scores[i])) for i in top]


def _column(values: Any) -> np.ndarray:
    """Strings as fixed-width unicode (vectorized comparisons), nulls as "" / 0 / False."""
    if pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
        return np.asarray(pc.fill_null(values, "").to_numpy(zero_copy_only=False), dtype=str)
    if pa.types.is_boolean(values.type):
        return np.asarray(pc.fill_null(values, False).to_numpy(zero_copy_only=False), dtype=bool)
    return pc.fill_null(values, 0).to_numpy(zero_copy_only=False)
