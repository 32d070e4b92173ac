"""The rows behind the in-memory vector copy, changed in place by this process's own writes.

Appends fill spare capacity at the end of the arrays (doubling when full), so a search holding
the arrays of an earlier size never sees a half-written row; a reallocation leaves the old
arrays to the searches that hold them. Deletes only mark a row dead (searches mask it out) until
a quarter of the rows are dead, when the live rows are copied into fresh arrays. Each vector is
also projected on the basis of the last full load (see `Projection`): a new row gets its
projection and residual at once, so no write ever recomputes the principal axes.

Each row also keeps the LanceDB row id it was read with (`UNKNOWN` for rows this process wrote:
LanceDB does not report them). LanceDB gives a rewritten row (update, merge, compaction) a new
id, so comparing ids tells which rows another process changed (`vector_sync.py`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.core.storage.int8_scan import quantize

_MIN_CAPACITY = 1024
UNKNOWN = np.iinfo(np.uint64).max  # row id of a row this process wrote (LanceDB does not say)
_EMPTY_FILL: dict[str, Any] = {"U": "", "b": False}


@dataclass(frozen=True, slots=True)
class Projection:
    basis: np.ndarray  # dims × d, orthonormal columns
    rows: np.ndarray  # n × d, every vector on the basis
    residuals: np.ndarray  # n, the length of what the basis leaves out of each vector
    # `rows` as int8 codes (uint8, offset 128) and a scale per row: the scan's first pass (int8_scan.py).
    codes: np.ndarray | None = None
    scales: np.ndarray | None = None

    @classmethod
    def of(
        cls, matrix: np.ndarray, dimensions: int, sample: int = 20_000, *, basis: np.ndarray | None = None
    ) -> Projection:
        """`matrix` on its top `dimensions` principal axes (from a sample of its rows), or on
        `basis` when the caller kept the axes computed from these same rows before."""
        if basis is None or basis.shape != (matrix.shape[1], dimensions):
            rng = np.random.default_rng(0)
            picked = matrix[rng.choice(len(matrix), min(sample, len(matrix)), replace=False)]
            _, vectors = np.linalg.eigh(picked.T @ picked)
            basis = np.ascontiguousarray(vectors[:, ::-1][:, :dimensions], dtype=np.float32)
        rows, residuals = project(matrix, basis)
        return cls(basis, rows, residuals, *quantize(rows))


def project(matrix: np.ndarray, basis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows on the basis, and the length of what the basis leaves out of each row."""
    rows = matrix @ basis
    # einsum, not (matrix * matrix).sum(): no temporary as large as the matrix (150 MB at 100k).
    squared = np.einsum("ij,ij->i", matrix, matrix) - np.einsum("ij,ij->i", rows, rows)
    rest = np.sqrt(np.maximum(0.0, squared))
    return rows.astype(np.float32, copy=False), rest.astype(np.float32, copy=False)


@dataclass(frozen=True, slots=True)
class RowsView:
    """The first `size` rows, as consistent read-only slices (dead rows have `alive` False)."""

    keys: np.ndarray
    matrix: np.ndarray
    columns: dict[str, np.ndarray]
    alive: np.ndarray
    projection: Projection | None
    dead: int


class Rows:
    def __init__(
        self,
        keys: np.ndarray,
        matrix: np.ndarray,
        columns: Mapping[str, np.ndarray],
        projection: Projection | None,
        rowids: np.ndarray | None = None,
    ) -> None:
        self.size = len(keys)
        # Headroom for appends; untouched zero pages cost no resident memory.
        capacity = self.size + self.size // 4 + _MIN_CAPACITY
        self.keys = _grow(np.asarray(keys, dtype=object), capacity)
        # A loader that filled an array with enough headroom hands it over as is (no second copy).
        fits = matrix.dtype == np.float32 and len(matrix) >= capacity and matrix.flags.c_contiguous
        self.matrix = matrix if fits else _grow(np.asarray(matrix[: self.size], dtype=np.float32), capacity)
        ids = np.full(self.size, UNKNOWN, dtype=np.uint64) if rowids is None else rowids[: self.size]
        self.rowids = _grow(np.asarray(ids, dtype=np.uint64), capacity)
        self.columns = {c: _grow(v, capacity) for c, v in columns.items()}
        self.alive = _grow(np.ones(self.size, dtype=bool), capacity)
        self.basis = projection.basis if projection is not None else None
        self.projected = _grow(projection.rows, capacity) if projection is not None else None
        self.residuals = _grow(projection.residuals, capacity) if projection is not None else None
        self.codes, self.code_scales = _codes(projection, capacity)
        self.row_of = {str(k): i for i, k in enumerate(self.keys[: self.size])}
        self.dead = 0

    @property
    def live(self) -> int:
        return self.size - self.dead

    def view(self) -> RowsView:
        n = self.size
        projection = None
        if self.basis is not None and self.projected is not None and self.residuals is not None:
            codes = self.codes[:n] if self.codes is not None else None
            scales = self.code_scales[:n] if self.code_scales is not None else None
            projection = Projection(self.basis, self.projected[:n], self.residuals[:n], codes, scales)
        return RowsView(
            self.keys[:n],
            self.matrix[:n],
            {c: v[:n] for c, v in self.columns.items()},
            self.alive[:n],
            projection,
            self.dead,
        )

    def nbytes(self) -> int:
        """Bytes the used rows take (arrays, key strings, the key index); spare capacity is
        untouched zero pages and costs no resident memory."""
        n = self.size
        arrays = [self.matrix, self.alive, self.rowids, *self.columns.values()]
        if self.projected is not None and self.residuals is not None:
            arrays += [self.projected, self.residuals]
        if self.codes is not None and self.code_scales is not None:
            arrays += [self.codes, self.code_scales]
        used = sum(a[:n].nbytes for a in arrays) + self.keys[:n].nbytes
        # ~50 bytes a short key string, ~100 bytes a dict entry.
        return used + 150 * len(self.row_of)

    def upsert(
        self,
        keys: Sequence[str],
        vectors: np.ndarray,
        rows: Sequence[Mapping[str, Any]],
        rowids: np.ndarray | None = None,
    ) -> int:
        """Replace the vectors and columns of known keys in place; append the others. Returns how
        many known rows were replaced (their columns changed in place)."""
        ids = np.full(len(keys), UNKNOWN, dtype=np.uint64) if rowids is None else rowids
        fresh = [i for i, key in enumerate(keys) if key not in self.row_of]
        known = [(i, self.row_of[key]) for i, key in enumerate(keys) if key in self.row_of]
        if known:
            at = np.array([r for _, r in known])
            src = np.array([i for i, _ in known])
            self.matrix[at] = vectors[src]
            self.rowids[at] = ids[src]
            self._set_projection(at, vectors[src])
            for column in self.columns:
                self._set_column(column, at, [rows[i].get(column) for i in src])
        if not fresh:
            return len(known)
        # Drop duplicate keys within the batch: the last one wins, as in LanceDB's merge.
        last = {keys[i]: i for i in fresh}
        fresh = sorted(last.values())
        start, end = self.size, self.size + len(fresh)
        self._reserve(end)
        at = np.arange(start, end)
        src = np.array(fresh)
        self.matrix[at] = vectors[src]
        self._set_projection(at, vectors[src])
        for column in self.columns:
            self._set_column(column, at, [rows[i].get(column) for i in src])
        self.keys[at] = [keys[i] for i in fresh]
        self.rowids[at] = ids[src]
        self.alive[at] = True
        for row, i in zip(at, fresh, strict=True):
            self.row_of[keys[i]] = int(row)
        self.size = end  # last: a search that read the old size never looks at the new rows
        return len(known)

    def update(self, keys: Sequence[str], values: Mapping[str, Any]) -> None:
        at = np.array([self.row_of[k] for k in keys if k in self.row_of], dtype=np.int64)
        if len(at):
            for column, value in values.items():
                if column in self.columns:
                    self._set_column(column, at, [value] * len(at))

    def delete(self, keys: Sequence[str]) -> None:
        for key in keys:
            row = self.row_of.pop(key, None)
            if row is not None:
                self.alive[row] = False
                self.dead += 1

    def compacted(self) -> Rows | None:
        """Fresh arrays without the dead rows, once they are a quarter of all rows (else None)."""
        if self.dead < max(_MIN_CAPACITY, self.size // 4):
            return None
        keep = np.flatnonzero(self.alive[: self.size])
        projection = None
        if self.basis is not None and self.projected is not None and self.residuals is not None:
            codes = self.codes[keep] if self.codes is not None else None
            scales = self.code_scales[keep] if self.code_scales is not None else None
            projection = Projection(self.basis, self.projected[keep], self.residuals[keep], codes, scales)
        return Rows(
            self.keys[keep],
            self.matrix[keep],
            {c: v[keep] for c, v in self.columns.items()},
            projection,
            self.rowids[keep],
        )

    def start_projection(self, dimensions: int) -> None:
        """Project every row once the copy has grown large enough for projections to pay."""
        live = self.matrix[: self.size][self.alive[: self.size]]
        basis = Projection.of(live, dimensions).basis
        capacity = len(self.matrix)
        rows, rest = project(self.matrix[: self.size], basis)
        self.projected, self.residuals = _grow(rows, capacity), _grow(rest, capacity)
        self.codes, self.code_scales = _codes(Projection(basis, rows, rest), capacity)
        self.basis = basis

    # -- internals ---------------------------------------------------------------------------
    def _reserve(self, needed: int) -> None:
        capacity = len(self.keys)
        if needed <= capacity:
            return
        capacity = max(needed, capacity + capacity // 2)
        # New arrays: searches holding the old ones keep reading them undisturbed.
        self.keys = _grow(self.keys[: self.size], capacity)
        self.matrix = _grow(self.matrix[: self.size], capacity)
        self.columns = {c: _grow(v[: self.size], capacity) for c, v in self.columns.items()}
        self.alive = _grow(self.alive[: self.size], capacity)
        self.rowids = _grow(self.rowids[: self.size], capacity)
        if self.projected is not None and self.residuals is not None:
            self.projected = _grow(self.projected[: self.size], capacity)
            self.residuals = _grow(self.residuals[: self.size], capacity)
        if self.codes is not None and self.code_scales is not None:
            self.codes = _grow(self.codes[: self.size], capacity)
            self.code_scales = _grow(self.code_scales[: self.size], capacity)

    def _set_projection(self, at: np.ndarray, vectors: np.ndarray) -> None:
        if self.basis is None or self.projected is None or self.residuals is None:
            return
        rows, rest = project(np.asarray(vectors, dtype=np.float32), self.basis)
        self.projected[at] = rows
        self.residuals[at] = rest
        if self.codes is not None and self.code_scales is not None:
            self.codes[at], self.code_scales[at] = quantize(rows)

    def _set_column(self, column: str, at: np.ndarray, values: list[Any]) -> None:
        array = self.columns[column]
        kind = array.dtype.kind
        filled = [_EMPTY_FILL.get(kind, 0) if v is None else v for v in values]
        if kind == "U":
            incoming = np.asarray(filled, dtype=str)
            if incoming.dtype.itemsize > array.dtype.itemsize:
                # Fixed-width strings would be cut: widen the column (a new array).
                array = array.astype(incoming.dtype)
                self.columns[column] = array
            array[at] = incoming
        else:
            array[at] = np.asarray(filled, dtype=array.dtype)


def _codes(projection: Projection | None, capacity: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The projection's int8 codes and scales (made now when it has none), with `capacity` rows."""
    if projection is None:
        return None, None
    codes, scales = projection.codes, projection.scales
    if codes is None or scales is None:
        codes, scales = quantize(projection.rows)
    return _grow(codes, capacity), _grow(scales, capacity)


def _grow(array: np.ndarray, capacity: int) -> np.ndarray:
    """`array` copied into the front of a new array with room for `capacity` rows."""
    out = np.zeros((capacity, *array.shape[1:]), dtype=array.dtype)
    out[: len(array)] = array
    return out
