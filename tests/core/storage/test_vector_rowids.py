"""Stored vectors read by row id are the vectors the key filter finds, through writes and compaction."""

from __future__ import annotations

import numpy as np

from app.core.storage.vectors import VectorCollection, VectorStore

DIM = 8


def _vectors(n: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _collection(path, name: str = "messages") -> VectorCollection:
    return VectorStore(path).collection(name, "test-model", DIM, ["channel"])


def _fill(collection: VectorCollection, keys: list[str], seed: int) -> dict[str, np.ndarray]:
    vectors = _vectors(len(keys), seed)
    collection.upsert(keys, vectors, [{"channel": "c"} for _ in keys])
    return dict(zip(keys, vectors, strict=True))


def _same(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> None:
    assert sorted(got) == sorted(want)
    for key, vector in want.items():
        np.testing.assert_array_equal(got[key], vector)


def test_row_ids_serve_the_same_vectors_through_writes(tmp_path) -> None:
    collection = _collection(tmp_path / "v")
    collection._rowids.refresh_seconds = 0.0  # rebuild whenever stale: every path is exercised
    truth = _fill(collection, [str(i) for i in range(1, 301)], seed=1)
    asked = [str(i) for i in range(0, 320, 7)] + ["007", "x"]  # absent, non-canonical, non-integer keys
    _same(collection.vectors_of(asked), {k: v for k, v in truth.items() if k in asked})
    served, settled = collection._rowids.take(collection.table, asked, DIM)
    assert len(served) == len([k for k in asked if k in truth]) > 0  # by row id, not the filter
    assert "0" in settled and "315" in settled and "007" not in settled and "x" not in settled

    # Upserts move rows and deletes drop them; compaction renumbers every row.
    truth |= _fill(collection, [str(i) for i in range(1, 301, 3)], seed=2)
    collection.delete([str(i) for i in range(2, 301, 5)])
    truth = {k: v for k, v in truth.items() if int(k) % 5 != 2}
    _same(collection.vectors_of(asked), {k: v for k, v in truth.items() if k in asked})
    collection.optimize()
    _same(collection.vectors_of(asked), {k: v for k, v in truth.items() if k in asked})
    assert collection._rowids.builds >= 3


def test_a_stale_map_is_not_used(tmp_path) -> None:
    """Another process's write between rebuilds: the map waits, the key filter answers."""
    collection = _collection(tmp_path / "v")
    collection._rowids.refresh_seconds = 3600.0
    truth = _fill(collection, [str(i) for i in range(1, 101)], seed=3)
    asked = [str(i) for i in range(1, 101, 9)]
    _same(collection.vectors_of(asked), {k: truth[k] for k in asked})
    other = _collection(tmp_path / "v")  # a second connection, as another process has
    truth |= _fill(other, asked[:4], seed=4)
    assert collection._rowids.take(collection.table, asked, DIM) == ({}, set())
    _same(collection.vectors_of(asked), {k: truth[k] for k in asked})


def test_text_keys_use_the_key_filter(tmp_path) -> None:
    collection = _collection(tmp_path / "v", "chunk")
    truth = _fill(collection, [f"doc-{i}" for i in range(20)], seed=5)
    asked = ["doc-3", "doc-11", "doc-99"]
    _same(collection.vectors_of(asked), {k: truth[k] for k in asked[:2]})
    assert collection._rowids.take(collection.table, asked, DIM) == ({}, set())
