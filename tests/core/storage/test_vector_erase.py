"""Compacting with materialize_deletions_threshold=0 keeps every live row and drops the masked ones
from the data files and from the vector index (no new index segment)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.core.storage import vector_erase
from app.core.storage.vectors import VectorCollection, VectorStore

DIM = 16


def _collection(path: Path) -> VectorCollection:
    return VectorStore(path, vector_files=False).collection("messages", "test-model", DIM, ["channel"])


def _holding(root: Path, needle: bytes) -> bool:
    return any(needle in p.read_bytes() for p in root.rglob("*") if p.is_file())


def test_compaction_drops_masked_rows_from_data_and_index_files(tmp_path: Path) -> None:
    collection = _collection(tmp_path / "v.lance")
    keys = [str(n) for n in range(1000)]
    vectors = np.random.default_rng(7).normal(size=(1000, DIM)).astype(np.float32)
    for start in range(0, 1000, 250):  # four appends, compacted into one fragment
        part = slice(start, start + 250)
        collection.upsert(keys[part], vectors[part], [{"channel": "c"}] * 250)
    collection.purge_history()
    assert vector_erase.compact(collection) == vector_erase.EraseReport(0, 0)  # nothing masked
    # IVF_FLAT on L2 keeps the float32 vectors as given in the index files, where a scan sees them; the
    # compaction remaps IVF_SQ (the app's) the same way, partition by partition.
    collection.table.create_index(
        metric="l2", vector_column_name="vector", index_type="IVF_FLAT", num_partitions=4
    )
    gone = ["5", "500", "999"]
    collection.delete(gone)
    collection.purge_history()  # what a deletion did before: the fragment is left as it is
    assert vector_erase.masked_rows(collection) == 3
    assert _holding(collection.path, vectors[500].tobytes())
    assert all(_holding(collection.path / "_indices", vectors[int(k)].tobytes()) for k in gone)

    report = vector_erase.compact(collection)
    collection.purge_history()

    assert report.fragments_removed == 1 and vector_erase.masked_rows(collection) == 0
    kept = [k for k in keys if k not in set(gone)]
    stored = collection.vectors_of(kept)
    assert all(np.array_equal(stored[k], vectors[int(k)]) for k in kept)
    for key in gone:
        assert not _holding(collection.path, vectors[int(key)].tobytes())
    assert _holding(collection.path, vectors[998].tobytes())
    (index,) = [i for i in collection.table.list_indices() if i.index_type.startswith("Ivf")]
    assert (index.num_indexed_rows, index.num_unindexed_rows, index.num_segments) == (997, 0, 1)
