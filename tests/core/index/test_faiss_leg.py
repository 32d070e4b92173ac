"""The faiss vector leg on real files: filters from current columns, new and deleted rows, repair."""

import logging
import time

import numpy as np
import pytest

from app.core.index.ann import AnnIndex
from app.core.index.faiss_build import build, maintain_faiss
from app.core.index.faiss_files import FaissFiles
from app.core.index.faiss_leg import FaissLeg
from app.core.index.filters import Eq, Filter, OneOf
from app.core.storage.vectors import VectorStore

pytest.importorskip("faiss")

N = 6000
COLUMNS = ("user_id", "channel", "tier", "archived")


def _clustered(rng: np.random.Generator, n: int, dims: int = 32) -> np.ndarray:
    centres = rng.normal(size=(40, dims))
    vectors = centres[rng.integers(0, 40, n)] + rng.normal(0, 0.4, size=(n, dims))
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def _row(i: int) -> dict[str, object]:
    return {"user_id": "u", "channel": f"c{i % 50}", "tier": "short", "archived": i % 20 == 0}


@pytest.fixture
def setup(tmp_path):
    rng = np.random.default_rng(7)
    store = VectorStore(tmp_path / "vectors.lance")
    collection = store.collection("message", "m", 32, COLUMNS)
    vectors = _clustered(rng, N)
    collection.upsert([str(i) for i in range(N)], vectors, [_row(i) for i in range(N)])
    files = FaissFiles(tmp_path / "vectors.ivf" / collection.name)
    build(collection, files)
    leg = FaissLeg(collection, files, AnnIndex(collection).share, nprobe=4)
    leg.catch_up_every_s = 0.0  # other processes' rows caught up at once (5 s apart in the app)
    return store, collection, files, leg, vectors, rng


def _exact(vectors: np.ndarray, query: np.ndarray, allowed: np.ndarray, k: int = 10) -> list[str]:
    scores = vectors @ query
    scores[~allowed] = -np.inf
    return [str(i) for i in np.argsort(-scores)[:k] if np.isfinite(scores[i])]


def test_filters_recall_and_exact_cosines(setup) -> None:
    _, _, _, leg, vectors, rng = setup
    ids = np.arange(N)
    live = Filter((Eq("user_id", "u"), Eq("archived", False)))  # broad: checked by the keys it drops
    channel = live.and_(Eq("channel", "c7"))  # 120 rows: narrow, probed further
    found = wanted = 0
    for query in _clustered(rng, 20):
        for where, allowed in (
            (Filter(), ids >= 0),
            (live, ids % 20 != 0),
            (channel, (ids % 50 == 7) & (ids % 20 != 0)),
        ):
            hits = leg.search(query, 10, where)
            assert hits is not None
            assert all(allowed[int(h.key)] for h in hits)
            assert np.allclose(
                [h.similarity for h in hits], [vectors[int(h.key)] @ query for h in hits], atol=1e-5
            )
            want = _exact(vectors, query, allowed)
            found += len(set(want) & {h.key for h in hits})
            wanted += len(want)
    assert found / wanted >= 0.9  # 4 of 16 partitions on a hard toy set; the real figure: the bench


def test_changed_columns_new_rows_and_deletions(setup, tmp_path) -> None:
    _store, collection, files, leg, vectors, rng = setup
    query = vectors[11]
    where = Filter((Eq("user_id", "u"), Eq("archived", False), OneOf("tier", ("short",))))
    first = leg.search(query, 5, where)
    assert first is not None and first[0].key == "11"
    # Tier and archived change in place: the filter reads them as they are now.
    collection.update_columns(["11"], {"tier": "long"})
    assert "11" not in {h.key for h in leg.search(query, 5, where) or []}
    collection.update_columns(["11"], {"tier": "short", "archived": True})
    assert "11" not in {h.key for h in leg.search(query, 5, where) or []}
    assert "11" in {h.key for h in leg.search(query, 5, Filter(()))}
    # A row written after the build (this process) is found at once, with its filter.
    fresh = _clustered(rng, 1)
    collection.upsert(["90001"], fresh, [_row(1)])
    hits = leg.search(fresh[0], 3, where)
    assert hits is not None and hits[0].key == "90001" and hits[0].similarity == pytest.approx(1.0, abs=1e-5)
    # A row deleted since the build is never returned.
    collection.delete(["12"])
    assert "12" not in {h.key for h in leg.search(vectors[12], 5, Filter()) or []}
    # Another process's row (another connection): caught up after the search that sees its version.
    other = VectorStore(tmp_path / "vectors.lance").collection("message", "m", 32, COLUMNS)
    theirs = _clustered(rng, 1)
    other.upsert(["90002"], theirs, [_row(2)])
    leg._version_checked = 0.0  # the next search asks for the version at once (no 0.25 s wait)
    before = leg.catch_ups
    leg.search(theirs[0], 3, Filter())
    for _ in range(250):
        if leg.catch_ups > before and not leg._catching_up:
            break
        time.sleep(0.02)
    hits = leg.search(theirs[0], 3, Filter())
    assert hits is not None and hits[0].key == "90002"
    # The job's next run: the new rows join the index, the deleted row's codes leave the file.
    work = maintain_faiss(collection, files, min_rows=1)
    assert (work.action, work.added, work.removed) == ("extend", 2, 1)
    meta = files.current()
    assert meta is not None and meta.rows == N + 1
    keys = files.keys(meta)
    assert 12 not in set(keys.tolist()) and {90001, 90002} <= set(keys.tolist())
    assert len(list(files.directory.glob("*.faiss"))) == 1  # the replaced generation is gone
    leg.reopen()
    assert leg.search(fresh[0], 1, Filter())[0].key == "90001"  # from the new generation
    assert leg.tail_rows() == 0
    # Positions renumbered after the removal: every key still finds itself.
    for i in (0, 13, 5999):
        assert leg.search(vectors[i], 1, Filter())[0].key == str(i)


def test_corrupt_index_falls_back_and_repair_rebuilds(setup, caplog) -> None:
    _, collection, files, leg, vectors, _ = setup
    meta = files.current()
    assert meta is not None
    (files.directory / f"{meta.generation:06d}.faiss").write_bytes(b"not an index")
    with caplog.at_level(logging.WARNING):
        assert leg.search(vectors[3], 5, Filter()) is None  # LanceDB's index answers instead
    assert "unusable" in caplog.text and "doctor --repair" in caplog.text
    assert leg.broken is not None
    work = maintain_faiss(collection, files, min_rows=1, repair=True)
    assert work.action == "build" and work.added == N
    leg.reopen()
    assert leg.search(vectors[3], 1, Filter())[0].key == "3"


def test_missing_index_answers_none(tmp_path) -> None:
    collection = VectorStore(tmp_path / "v.lance").collection("message", "m", 32, COLUMNS)
    collection.upsert(["1"], _clustered(np.random.default_rng(1), 1), [_row(1)])
    files = FaissFiles(tmp_path / "ivf")
    leg = FaissLeg(collection, files, AnnIndex(collection).share)
    assert leg.search(np.ones(32, np.float32), 5, Filter()) is None
    assert maintain_faiss(collection, files, min_rows=10).action == "none"  # below its size
