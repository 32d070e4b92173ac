"""The vector index keeps its partitions through LanceDB's `optimize` (refresh, compaction, purge)."""

import re
import warnings

import numpy as np
from lancedb.index import IvfSq

from app.core.index import ann as ann_module
from app.core.index.ann import AnnIndex
from app.core.index.filters import Filter, OneOf
from app.core.storage.vectors import VectorCollection, VectorStore

ROWS = 12_000  # 12 partitions of ~PARTITION_ROWS


def _clustered(rng: np.random.Generator, n: int, dims: int = 32) -> np.ndarray:
    centres = rng.normal(size=(60, dims))
    vectors = centres[rng.integers(0, 60, n)] + rng.normal(0, 0.5, size=(n, dims))
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def _partitions(collection: VectorCollection) -> tuple[int, int]:
    """(IVF partitions, index segments), as LanceDB reports them for a query probing them all."""
    probe = np.ones(collection.dimensions, np.float32)
    plan = collection.table.search(probe).distance_type("cosine").nprobes(100_000).limit(5).analyze_plan()
    ranked = re.search(r"partitions_ranked=(\d+)", plan)
    deltas = re.search(r"deltas=(\d+)", plan)
    assert ranked and deltas, plan
    return int(ranked.group(1)), int(deltas.group(1))


def _collection(tmp_path, rng: np.random.Generator) -> tuple[VectorCollection, np.ndarray]:
    collection = VectorStore(tmp_path / "v").collection("t", "m", 32, ("user_id",))
    vectors = _clustered(rng, ROWS)
    collection.upsert([f"k{i}" for i in range(ROWS)], vectors, [{"user_id": "u"}] * ROWS)
    return collection, vectors


def test_the_index_keeps_its_partitions_through_purge_compaction_and_refresh(tmp_path) -> None:
    """What a deletion's purge, a drain's compaction and the index refresh call (`optimize`) leave
    the partitions as built: at most one tiny partition joined per call, new rows as a segment."""
    rng = np.random.default_rng(11)
    collection, vectors = _collection(tmp_path, rng)
    ann = AnnIndex(collection, min_rows=5000, refresh_unindexed_rows=500)
    assert ann.maintain().action == "build"
    built, segments = _partitions(collection)
    assert built >= 10 and segments == 1
    assert ann.keeps_partitions() and ann.plan() == "none"

    collection.delete([f"k{i}" for i in range(0, 300, 3)])  # a deletion, then its purge
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        collection.purge_history()
    assert _partitions(collection)[0] >= built - 1
    collection.optimize()  # the embedding backlog's compaction after a long drain
    assert _partitions(collection)[0] >= built - 2

    fresh = _clustered(rng, 800)
    collection.upsert([f"n{i}" for i in range(800)], fresh, [{"user_id": "u"}] * 800)
    assert ann.plan() == "refresh"
    assert ann.maintain().action == "refresh"
    partitions, segments = _partitions(collection)
    assert segments == 2 and partitions >= 2 * (built - 2)  # the new rows: a segment of their own
    assert ann.keeps_partitions() and ann.plan() == "none" and ann.status().unindexed_rows == 0
    hits = ann.search(fresh[5], 5, Filter(()))
    assert hits[0].key == "n5"
    assert not ann.search(vectors[0], 5, Filter((OneOf("key", ("k0",)),)))  # deleted stays gone


def test_an_index_built_with_a_partition_count_is_trained_anew(tmp_path) -> None:
    """An index built before (a partition count, no recorded size) is re-partitioned by LanceDB's
    first `optimize` to its own 8,192-row target, so every probe reads nearly every row; the
    background job trains it anew once, and the new one keeps its partitions."""
    rng = np.random.default_rng(12)
    collection, vectors = _collection(tmp_path, rng)
    earlier = IvfSq(distance_type="cosine", num_partitions=ROWS // ann_module.PARTITION_ROWS)
    collection.table.create_index("vector", config=earlier, name=ann_module.VECTOR_INDEX)
    ann = AnnIndex(collection, min_rows=5000)
    assert _partitions(collection)[0] == ROWS // ann_module.PARTITION_ROWS
    assert not ann.keeps_partitions() and ann.plan() == "retrain"

    collection.optimize()
    assert _partitions(collection)[0] <= 2  # the state a real archive was left in

    work = ann.maintain()
    assert work.action == "retrain" and work.status.indexed_rows == ROWS
    assert _partitions(collection)[0] >= 10 and ann.keeps_partitions() and ann.plan() == "none"
    collection.optimize()
    assert _partitions(collection)[0] >= 9
    assert ann.search(vectors[42], 5, Filter(()))[0].key == "k42"
