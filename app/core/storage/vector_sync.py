"""Reading a LanceDB collection into the in-memory copy: whole (streamed) or only what changed.

A whole load streams the table in batches into arrays sized once, so its peak is the copy plus
one batch; `to_arrow()` of the whole table, a combined copy and the NumPy copy had peaked at
~3x the copy (+650 MB at 100k messages).

After another process's commit the copy reads only the key and row-id columns (~20 bytes a
row), compares them with the row ids it holds and takes from LanceDB only the rows that are new
or were rewritten (LanceDB gives a rewritten row a new id); keys no longer present are deleted.
A compaction rewrites every row, so when most rows changed a whole load is cheaper and is done.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from app.core.storage.vector_rows import Projection, Rows
from app.core.storage.vectors import VectorCollection, arrow_column

BATCH_ROWS = 8192
# Above this share of rows changed, a whole streamed load is cheaper than taking them one by one.
WHOLE_LOAD_SHARE = 0.5


@dataclass(frozen=True, slots=True)
class Diff:
    """What another process changed, relative to the copy."""

    fetch: np.ndarray  # LanceDB row ids of new or rewritten rows
    deleted: list[str]  # keys the table no longer holds
    total: int  # rows in the table

    @property
    def empty(self) -> bool:
        return len(self.fetch) == 0 and not self.deleted


@dataclass(frozen=True, slots=True)
class Fetched:
    keys: list[str]
    vectors: np.ndarray
    rows: list[dict[str, Any]]
    rowids: np.ndarray


def load(
    table: Any,
    collection: VectorCollection,
    max_rows: int,
    project_min_rows: int,
    projected_dimensions: int,
    basis: np.ndarray | None = None,
) -> Rows | None:
    """Every row of `table`, streamed into the copy's arrays (None when more than `max_rows`);
    `basis`: principal axes already computed from these same rows (else computed here)."""
    count = int(table.count_rows())
    if count > max_rows:
        return None
    dims = collection.dimensions
    # The capacity Rows would give: it adopts the matrix instead of copying it.
    matrix = np.zeros((count + count // 4 + 1024, dims), dtype=np.float32)
    keys: list[np.ndarray] = []
    rowids: list[np.ndarray] = []
    parts: dict[str, list[np.ndarray]] = {c: [] for c in collection.columns}
    size = 0
    for batch in _batches(table, ["key", *collection.columns, "vector"]):
        n = batch.num_rows
        if size + n > len(matrix):  # rows added since the count: grow (rare)
            if size + n > max_rows:
                return None
            grown = np.zeros((2 * (size + n), dims), dtype=np.float32)
            grown[:size] = matrix[:size]
            matrix = grown
        matrix[size : size + n] = _vectors(batch.column("vector"), dims)
        keys.append(batch.column("key").to_numpy(zero_copy_only=False))
        rowids.append(batch.column("_rowid").to_numpy().astype(np.uint64))
        for column in collection.columns:
            parts[column].append(arrow_column(batch.column(column)))
        size += n
    columns = {c: _concat(v, collection.schema.field(c).type) for c, v in parts.items()}
    projection = (
        Projection.of(matrix[:size], projected_dimensions, basis=basis)
        if size >= max(1, project_min_rows) and dims > projected_dimensions
        else None
    )
    key_array = np.concatenate(keys) if keys else np.empty(0, dtype=object)
    id_array = np.concatenate(rowids) if rowids else np.empty(0, dtype=np.uint64)
    return Rows(key_array, matrix, columns, projection, id_array)


def read_ids(table: Any) -> tuple[np.ndarray, np.ndarray]:
    """Every key of `table` with its LanceDB row id (the vectors are not read)."""
    seen_keys: list[np.ndarray] = []
    seen_ids: list[np.ndarray] = []
    for batch in _batches(table, ["key"]):
        seen_keys.append(batch.column("key").to_numpy(zero_copy_only=False))
        seen_ids.append(batch.column("_rowid").to_numpy().astype(np.uint64))
    keys = np.concatenate(seen_keys) if seen_keys else np.empty(0, dtype=object)
    ids = np.concatenate(seen_ids) if seen_ids else np.empty(0, dtype=np.uint64)
    return keys, ids


def diff(rows: Rows, keys: np.ndarray, ids: np.ndarray) -> Diff:
    """Rows of the table (`keys`, `ids` from `read_ids`) that are new or rewritten since `rows`
    read them, and the keys gone since. Call under the copy's lock (it reads `rows`)."""
    row_of = rows.row_of
    at = np.fromiter((row_of.get(k, -1) for k in keys), dtype=np.int64, count=len(keys))
    known = at >= 0
    held = np.zeros(len(ids), dtype=np.uint64)
    held[known] = rows.rowids[at[known]]
    changed = ~known | (held != ids)
    present = set(keys.tolist())
    deleted = [k for k in row_of if k not in present]
    return Diff(ids[changed], deleted, len(keys))


def fetch(table: Any, collection: VectorCollection, rowids: np.ndarray) -> Fetched:
    """The rows with these LanceDB row ids (rows deleted meanwhile are simply missing)."""
    keys: list[str] = []
    vectors: list[np.ndarray] = []
    rows: list[dict[str, Any]] = []
    ids: list[np.ndarray] = []
    names = ["key", *collection.columns, "vector"]
    for start in range(0, len(rowids), BATCH_ROWS):
        chunk = [int(r) for r in rowids[start : start + BATCH_ROWS]]
        data = table.take_row_ids(chunk).select(names).with_row_id().to_arrow()
        keys += data.column("key").to_pylist()
        vectors.append(_vectors(data.column("vector"), collection.dimensions))
        values = {c: data.column(c).to_pylist() for c in collection.columns}
        rows += [{c: values[c][i] for c in collection.columns} for i in range(len(data))]
        ids.append(data.column("_rowid").to_numpy().astype(np.uint64))
    matrix = np.concatenate(vectors) if vectors else np.zeros((0, collection.dimensions), np.float32)
    return Fetched(keys, matrix, rows, np.concatenate(ids) if ids else np.empty(0, np.uint64))


def _batches(table: Any, columns: Sequence[str]) -> Any:
    query = table.search().select(list(columns)).with_row_id(True).limit(None)
    return query.to_batches(BATCH_ROWS)


def _vectors(column: Any, dims: int) -> np.ndarray:
    values = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    return np.asarray(values.flatten(), dtype=np.float32).reshape(len(values), dims)


def _concat(parts: list[np.ndarray], kind: pa.DataType) -> np.ndarray:
    if parts:
        if parts[0].dtype.kind == "U":  # fixed widths differ per batch: the widest wins
            width = max(p.dtype.itemsize // 4 for p in parts) or 1
            return np.concatenate([p.astype(f"<U{width}") for p in parts])
        return np.concatenate(parts)
    empty = pa.array([], type=kind)
    return arrow_column(empty)
