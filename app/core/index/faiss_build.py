"""Building and extending a collection's faiss IVF-SQ8 index from its LanceDB table (background job).

Build: the table is streamed twice in batches (never held whole: at 1M rows the float32 vectors
are 1.5 GB): once keeping an evenly spaced sample of ≤ 256 rows a partition to train the coarse
partitions and the 8-bit quantizer on, once adding every row. Extend: the current generation is
read into memory, rows LanceDB holds and the index does not are added (no retraining: they go to
their nearest partition), keys LanceDB no longer holds are removed, and the result is written as
the next generation. Removing them is what keeps a deleted message's codes from outliving
LanceDB's purge on disk. Past `RETRAIN_SHARE` rows added since training, it is trained anew.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from app.core.index.faiss_files import FaissFileError, FaissFiles, FaissMeta, faiss_module
from app.core.storage import vector_sync
from app.core.storage.vector_rowids import integer_keys as stored_integer_keys
from app.core.storage.vectors import VectorCollection

log = logging.getLogger(__name__)

PARTITION_ROWS = 1000  # as LanceDB's index (ann.PARTITION_ROWS): ~1,000 rows a partition
TRAIN_ROWS_PER_PARTITION = 256  # faiss's own advice for k-means; 256k rows at 1M
# Additions placed in partitions trained without them fit them less well: train anew past this
# share of the rows (as ann.RETRAIN_DELTAS does for LanceDB's index).
RETRAIN_SHARE = 0.2
BATCH_ROWS = 8192
# New rows a run adds at the least (2 % of a small index): LanceDB's REFRESH_UNINDEXED_ROWS.
EXTEND_NEW_ROWS = 20_000


@dataclass(frozen=True, slots=True)
class FaissWork:
    action: str  # "none", "build", "extend" or "retrain"
    added: int = 0
    removed: int = 0


def integer_keys(values: Any) -> np.ndarray:
    """Keys as int64 (message ids); FaissFileError for any other kind of key."""
    keys = stored_integer_keys(values)
    if keys is None:
        raise FaissFileError("the faiss leg serves collections keyed by integers only")
    return keys


def _batches(collection: VectorCollection) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    query = collection.table.search().select(["key", "vector"]).limit(None)
    for batch in query.to_batches(BATCH_ROWS):
        vectors = np.asarray(batch.column("vector").flatten(), dtype=np.float32)
        yield integer_keys(batch.column("key")), vectors.reshape(batch.num_rows, collection.dimensions)


def build(
    collection: VectorCollection, files: FaissFiles, *, partition_rows: int = PARTITION_ROWS
) -> FaissMeta:
    """Train a new index on every row now stored and write it as the current generation."""
    faiss = faiss_module()
    if faiss is None:
        raise FaissFileError("faiss is not installed")
    rows = collection.count()
    if rows == 0:
        raise FaissFileError(f"{collection.name} has no rows to index")
    partitions = max(1, min(rows // 39, max(16, rows // partition_rows)))  # faiss wants ≥ 39 rows each
    wanted = min(rows, TRAIN_ROWS_PER_PARTITION * partitions)
    stride = max(1, rows // wanted)
    sample: list[np.ndarray] = []
    seen = 0
    for _, vectors in _batches(collection):
        first = (-seen) % stride  # rows 0, stride, 2·stride … of the whole stream
        sample.append(vectors[first::stride])
        seen += len(vectors)
    index = faiss.index_factory(collection.dimensions, f"IVF{partitions},SQ8", faiss.METRIC_INNER_PRODUCT)
    index.train(np.ascontiguousarray(np.concatenate(sample)[:wanted]))
    del sample
    keys: list[np.ndarray] = []
    for batch_keys, vectors in _batches(collection):
        index.add(np.ascontiguousarray(vectors))
        keys.append(batch_keys)
    meta = files.write(index, np.concatenate(keys), trained_rows=int(index.ntotal))
    log.info("faiss IVF%d,SQ8 built over %d rows of %s", partitions, meta.rows, collection.name)
    return meta


def extend(
    collection: VectorCollection, files: FaissFiles, meta: FaissMeta, *, min_new: int = 1
) -> FaissWork:
    """Add the rows the index lacks and remove the keys LanceDB no longer holds (a new generation
    only when something changed)."""
    table = collection.table
    keys_now, rowids = vector_sync.read_ids(table)
    present = integer_keys(pa.array(keys_now, type=pa.string()))
    held = files.keys(meta)
    gone = ~np.isin(held, present)
    new = ~np.isin(present, held)
    if not gone.any() and new.sum() < min_new:
        # Each write is a whole new generation (~400 MB at 1M): new rows wait in the searches'
        # tails until there are enough of them, as LanceDB's refresh waits for 20k.
        return FaissWork("none")
    index, held = files.load_for_writing(meta)
    if gone.any():
        # Positions are the ids: removing leaves holes, so the survivors are renumbered.
        index = _without(index, np.flatnonzero(gone))
        held = held[~gone]
    added = 0
    if new.any():
        fetched = vector_sync.fetch(table, collection, rowids[new])
        if fetched.keys:
            index.add(np.ascontiguousarray(fetched.vectors))
            held = np.concatenate([held, integer_keys(pa.array(fetched.keys, type=pa.string()))])
            added = len(fetched.keys)
    files.write(index, held, trained_rows=meta.trained_rows)
    return FaissWork("extend", added=added, removed=int(gone.sum()))


def _without(index: Any, positions: np.ndarray) -> Any:
    """`index` without the codes at `positions`, the rest renumbered 0..n-1 in their old order."""
    faiss = faiss_module()
    assert faiss is not None
    index.remove_ids(faiss.IDSelectorBatch(positions.astype(np.int64)))
    # Ids are positions into the keys array: shift each survivor down by the removed before it.
    invlists = index.invlists
    removed = np.sort(positions.astype(np.int64))
    for lst in range(index.nlist):
        size = invlists.list_size(lst)
        if size == 0:
            continue
        ids_ptr = invlists.get_ids(lst)
        ids = faiss.rev_swig_ptr(ids_ptr, size).copy()
        shifted = ids - np.searchsorted(removed, ids)
        codes = faiss.rev_swig_ptr(invlists.get_codes(lst), size * invlists.code_size).copy()
        invlists.update_entries(lst, 0, size, faiss.swig_ptr(shifted), faiss.swig_ptr(codes))
    return index


def remove_keys(files: FaissFiles, keys: np.ndarray) -> int:
    """Remove the codes of `keys` now (a deletion, before LanceDB's purge): a new generation
    without them; the count removed (0: none of them indexed, nothing written)."""
    meta = files.current()
    if meta is None:
        return 0
    at = np.flatnonzero(np.isin(files.keys(meta), keys))
    if not len(at):
        return 0
    index, held = files.load_for_writing(meta)
    index = _without(index, at)
    files.write(index, np.delete(held, at), trained_rows=meta.trained_rows)
    return len(at)


def needs_retrain(meta: FaissMeta) -> bool:
    return meta.rows > meta.trained_rows * (1 + RETRAIN_SHARE)


def maintain_faiss(
    collection: VectorCollection, files: FaissFiles, *, min_rows: int, repair: bool = False
) -> FaissWork:
    """What the index job does each run: build past `min_rows`, extend, or retrain. An unusable
    index is rebuilt (the job and `doctor --repair` alike: it is derived data)."""
    if faiss_module() is None:
        return FaissWork("none")
    try:
        meta = files.current()
        if meta is not None and repair:
            files.open(meta)  # a file that does not open is rebuilt below
    except FaissFileError as exc:
        log.warning("faiss index of %s unusable (%s): rebuilding it", collection.name, exc)
        files.remove()
        meta = None
    if meta is None:
        if collection.count() < min_rows:
            return FaissWork("none")
        built = build(collection, files)
        return FaissWork("build", added=built.rows)
    if needs_retrain(meta):
        built = build(collection, files)
        return FaissWork("retrain", added=built.rows)
    return extend(collection, files, meta, min_new=min(EXTEND_NEW_ROWS, max(1, meta.rows // 50)))
