"""The memory-mapped vector file serves exactly LanceDB's vectors, never a replaced or deleted one."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from app.core.storage import vector_file_build
from app.core.storage.vector_file import MARKER
from app.core.storage.vectors import RECENT_VERSION_S, VectorCollection, VectorStore

DIM = 8


def _vectors(n: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _collection(path, name: str = "messages") -> VectorCollection:
    collection = VectorStore(path).collection(name, "test-model", DIM, ["channel"])
    collection._rowids.refresh_seconds = 0.0  # the row-id map follows every write at once
    return collection


def _fill(collection: VectorCollection, keys: list[str], seed: int) -> dict[str, np.ndarray]:
    vectors = _vectors(len(keys), seed)
    collection.upsert(keys, vectors, [{"channel": "c"} for _ in keys])
    return dict(zip(keys, vectors, strict=True))


def _build(collection: VectorCollection) -> vector_file_build.BuildReport | None:
    assert collection.file is not None
    return vector_file_build.build(
        collection.table, collection.path, collection.file.path.parent, collection.name, DIM
    )


def _same(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> None:
    assert sorted(got) == sorted(want)
    for key, vector in want.items():
        np.testing.assert_array_equal(got[key], vector)


def _served(collection: VectorCollection, keys: list[str]) -> int:
    assert collection.file is not None
    before = collection.file.served
    collection.vectors_of(keys)
    return collection.file.served - before


def test_the_file_serves_unchanged_rows_and_lancedb_the_rest(tmp_path) -> None:
    collection = _collection(tmp_path / "vectors.lance")
    truth = _fill(collection, [str(i) for i in range(1, 401)], seed=1)
    report = _build(collection)
    assert report is not None and report.rows == 400 and report.erased == 0
    asked = [str(i) for i in range(0, 420, 7)] + ["007", "x"]
    _same(collection.vectors_of(asked), {k: v for k, v in truth.items() if k in asked})
    assert _served(collection, asked) == len([k for k in asked if k in truth])

    # Re-embedded rows (an edit, a reindex) and new rows: never the file's old vector.
    changed = [str(i) for i in range(1, 401, 3)]
    truth |= _fill(collection, changed, seed=2)
    truth |= _fill(collection, ["500", "501"], seed=3)
    asked += ["500", "501"]
    _same(collection.vectors_of(asked), {k: v for k, v in truth.items() if k in asked})
    assert _served(collection, asked) == len([k for k in asked if k in truth and k not in changed][:-2])
    state = vector_file_build.status(
        collection.table, collection.file.path.parent, collection.name, collection.path
    )
    assert (state.rows, state.stale) == (402, len(changed) + 2) and vector_file_build.due(state)

    # Compaction gives every row a new id: LanceDB answers until the file is rebuilt.
    collection.optimize()
    _same(collection.vectors_of(asked), {k: v for k, v in truth.items() if k in asked})
    assert _served(collection, asked) == 0
    _build(collection)
    _same(collection.vectors_of(asked), {k: v for k, v in truth.items() if k in asked})
    assert _served(collection, asked) == len([k for k in asked if k in truth])


def test_a_deletion_zeroes_the_vector_in_the_file(tmp_path) -> None:
    collection = _collection(tmp_path / "vectors.lance")
    truth = _fill(collection, [str(i) for i in range(1, 201)], seed=4)
    _build(collection)
    collection.vectors_of(["5", "6"])  # mapped by this process, as a search would have it
    path = collection.file.path
    assert truth["5"].tobytes() in path.read_bytes()
    collection.delete(["5", "9"])
    collection.purge_history()
    data = path.read_bytes()
    assert truth["5"].tobytes() not in data and truth["9"].tobytes() not in data
    assert truth["6"].tobytes() in data
    _same(collection.vectors_of(["5", "6", "9"]), {"6": truth["6"]})


def test_a_deletion_during_a_build_is_erased_before_the_swap(tmp_path, monkeypatch) -> None:
    collection = _collection(tmp_path / "vectors.lance")
    truth = _fill(collection, [str(i) for i in range(1, 101)], seed=5)
    write = vector_file_build._write

    def write_then_delete(*args, **kwargs):
        written = write(*args, **kwargs)  # the rows are read; now a deletion lands
        other = _collection(tmp_path / "vectors.lance")
        other.delete(["7"])
        return written

    monkeypatch.setattr(vector_file_build, "_write", write_then_delete)
    report = _build(collection)
    assert report is not None and report.erased == 1
    assert truth["7"].tobytes() not in collection.file.path.read_bytes()


def test_a_table_made_anew_is_not_served_from_the_old_file(tmp_path) -> None:
    """Row ids start again in a new table and could match: the marker tells the tables apart."""
    root = tmp_path / "vectors.lance"
    collection = _collection(root)
    _fill(collection, [str(i) for i in range(1, 51)], seed=6)
    _build(collection)
    assert (collection.path / MARKER).exists()
    collection._store.release()
    shutil.rmtree(collection.path)  # the vectors deleted by hand; repair embeds them again
    fresh = _collection(root)
    truth = _fill(fresh, [str(i) for i in range(1, 51)], seed=7)
    assert fresh.file is not None and fresh.file.path.exists()
    _same(fresh.vectors_of(["1", "2", "30"]), {k: truth[k] for k in ["1", "2", "30"]})
    assert fresh.file.served == 0


def test_idle_release_unmaps_and_another_process_swap_is_followed(tmp_path) -> None:
    collection = _collection(tmp_path / "vectors.lance")
    truth = _fill(collection, [str(i) for i in range(1, 101)], seed=8)
    _build(collection)
    reader = _collection(tmp_path / "vectors.lance")  # another process's view of the same files
    assert _served(reader, ["1", "2"]) == 2
    first = reader.file._mapped.identity  # (device, inode): no reference that would keep it mapped
    truth |= _fill(collection, ["1"], seed=9)
    _build(collection)
    _same(reader.vectors_of(["1", "2"]), {"1": truth["1"], "2": truth["2"]})
    assert reader.file._mapped.identity != first  # the renamed-in file, not the old inode
    assert reader._store.release() >= 0 and reader.file._mapped is None
    assert str(reader.file.path) not in Path(f"/proc/{os.getpid()}/maps").read_text()


def test_text_keys_get_no_file(tmp_path) -> None:
    collection = _collection(tmp_path / "vectors.lance", "chunk")
    _fill(collection, ["doc-1", "doc-2"], seed=10)
    assert _build(collection) is None and not collection.file.path.exists()


def test_a_deletion_in_another_process_shows_in_this_process_mapping(tmp_path) -> None:
    """The file is mapped shared: another process's erasure is seen at once, and the row is not
    served (its id is gone), though this process never re-opened the file."""
    collection = _collection(tmp_path / "vectors.lance")
    truth = _fill(collection, [str(i) for i in range(1, 51)], seed=11)
    _build(collection)
    assert _served(collection, ["3", "4"]) == 2
    mapped = collection.file.current()
    assert mapped is not None
    row = int(mapped.positions[3])
    script = (
        "import sys; from pathlib import Path; from app.core.storage.vectors import VectorStore; "
        "VectorStore(Path(sys.argv[1])).collection('messages', 'test-model', 8, ['channel']).delete(['3'])"
    )
    root = Path(__file__).resolve().parents[3]
    subprocess.run([sys.executable, "-c", script, str(tmp_path / "vectors.lance")], check=True, cwd=root)
    assert not mapped.vectors[row].any() and mapped.rowids[row] == -1  # this process's own mapping
    _same(collection.vectors_of(["3", "4"]), {"4": truth["4"]})


def test_the_version_asked_is_kept_briefly_and_this_process_writes_show_at_once(tmp_path) -> None:
    """`vectors_of` asks LanceDB for the table version at most every RECENT_VERSION_S (a round trip
    through its event loop, several per search): this process's own re-embedding is served at once,
    another process's once that time has passed."""
    collection = _collection(tmp_path / "vectors.lance")
    truth = _fill(collection, [str(i) for i in range(1, 101)], seed=12)
    _build(collection)
    reader = _collection(tmp_path / "vectors.lance")  # another process's view of the same files
    _same(reader.vectors_of(["1", "2"]), {"1": truth["1"], "2": truth["2"]})
    _same(collection.vectors_of(["1", "2"]), {"1": truth["1"], "2": truth["2"]})
    asked = reader.recent_version()

    # This process: the file still holds the old row's vector under the old row id; the version
    # it asked before the write would map key 1 to that row.
    truth |= _fill(collection, ["1"], seed=13)
    _same(collection.vectors_of(["1", "2"]), {"1": truth["1"], "2": truth["2"]})

    # Another process's commit is seen once the version is asked again.
    assert reader.recent_version() == asked
    time.sleep(RECENT_VERSION_S + 0.05)
    assert reader.recent_version() == int(reader.table.version) > asked
    _same(reader.vectors_of(["1", "2"]), {"1": truth["1"], "2": truth["2"]})
