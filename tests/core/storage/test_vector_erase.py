"""Rewriting a LanceDB fragment by offset batches keeps every live row and drops the deleted bytes."""

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


def test_rewrite_in_batches_keeps_live_rows_and_drops_deleted_ones(tmp_path: Path) -> None:
    collection = _collection(tmp_path / "v.lance")
    keys = [str(n) for n in range(1000)]
    vectors = np.random.default_rng(7).normal(size=(1000, DIM)).astype(np.float32)
    for start in range(0, 1000, 250):  # four appends, compacted into one fragment
        part = slice(start, start + 250)
        collection.upsert(keys[part], vectors[part], [{"channel": "c"}] * 250)
    collection.purge_history()
    # Deleted: one row, a run filling a whole batch (offsets 300-399), and the last row.
    gone = ["5", *[str(n) for n in range(300, 400)], "999"]
    collection.delete(["5"])
    fragments = vector_erase.masked_fragments(collection)
    assert len(fragments) == 1  # found from the live rows' ids
    collection.delete(gone[1:])
    assert vector_erase.masked_fragments(collection) == fragments  # a masked tail: all fragments
    assert _holding(collection.path, vectors[999].tobytes())  # masked, still on disk

    report = vector_erase.rewrite(collection, [vector_erase.WHOLE_TABLE], batch=100)
    collection.purge_history()

    assert report == vector_erase.EraseReport(fragments=1, rows=1000 - len(gone))
    assert vector_erase.rewrite(collection, fragments) == vector_erase.EraseReport(0, 0)  # gone since
    kept = [k for k in keys if k not in set(gone)]
    stored = collection.vectors_of(kept)
    assert all(np.array_equal(stored[k], vectors[int(k)]) for k in kept)
    assert vector_erase.masked_fragments(collection) == set()
    for key in gone:
        assert not _holding(collection.path, vectors[int(key)].tobytes())
    assert _holding(collection.path, vectors[998].tobytes())
