"""The approximate vector index: built off the read path, near-exact, and blind to nothing new."""

import numpy as np

from app.bootstrap import Services
from app.core.index.ann import AnnIndex
from app.core.index.filters import Eq, Filter
from app.core.storage.vectors import VectorStore
from tests.conftest import make_message


def _clustered(rng: np.random.Generator, n: int, dims: int = 32) -> np.ndarray:
    centres = rng.normal(size=(40, dims))
    vectors = centres[rng.integers(0, 40, n)] + rng.normal(0, 0.4, size=(n, dims))
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def test_index_is_built_past_its_threshold_finds_new_rows_and_forgets_deleted_ones(tmp_path) -> None:
    rng = np.random.default_rng(4)
    collection = VectorStore(tmp_path / "v").collection("t", "m", 32, ("user_id", "channel", "archived"))
    vectors = _clustered(rng, 6000)
    keys = [f"k{i}" for i in range(6000)]
    channels = [
        {"user_id": "u", "channel": "even" if i % 2 == 0 else "odd", "archived": i % 20 == 0}
        for i in range(6000)
    ]
    collection.upsert(keys, vectors, channels)
    ann = AnnIndex(collection, min_rows=10_000, refresh_unindexed_rows=100)
    assert ann.plan() == "none"  # small collections stay with the in-memory copy
    ann.min_rows = 5000
    work = ann.maintain()
    assert work.action == "build" and work.status.indexed_rows == 6000 and work.status.unindexed_rows == 0

    found, wanted = 0, 0
    for query in _clustered(rng, 30):
        for where, allowed in (
            (None, np.ones(6000, bool)),
            (Filter((Eq("channel", "odd"),)), np.arange(6000) % 2 == 1),
        ):
            exact = vectors @ query
            exact[~allowed] = -np.inf
            want = {keys[i] for i in np.argsort(-exact)[:10]}
            hits = collection.search(query, 10, where, nprobes=8, refine_factor=10)
            assert all(allowed[int(h.key[1:])] for h in hits)  # the prefilter holds on the index
            found += len(want & {h.key for h in hits})
            wanted += 10
            # Refinement re-scores from the stored vectors: cosines are exact.
            assert np.allclose(
                [h.similarity for h in hits], [vectors[int(h.key[1:])] @ query for h in hits], atol=1e-4
            )
    assert found / wanted >= 0.85  # a hard toy set (coarse codes); the real figure is in the bench

    # Terms nearly every row meets are checked after the search, the others before it.
    not_archived = Filter((Eq("user_id", "u"), Eq("archived", False), Eq("channel", "even")))
    assert ann.share(Eq("archived", False)) == 0.95 and ann.share(Eq("channel", "even")) == 0.5
    for query in _clustered(rng, 10):
        hits = ann.search(query, 10, not_archived)
        assert len(hits) == 10
        assert all(int(h.key[1:]) % 20 != 0 and int(h.key[1:]) % 2 == 0 for h in hits)

    # A narrow prefilter (here: at most 30,000 rows) probes on until enough rows match.
    odd = Filter((Eq("channel", "odd"),))
    for query in _clustered(rng, 10):
        exact = vectors @ query
        exact[np.arange(6000) % 2 == 0] = -np.inf
        assert [h.key for h in ann.search(query, 10, odd)] == [keys[i] for i in np.argsort(-exact)[:10]]

    fresh = _clustered(rng, 150)
    collection.upsert([f"n{i}" for i in range(150)], fresh, [{"user_id": "u", "channel": "odd"}] * 150)
    assert ann.status().unindexed_rows == 150
    # Not in the index yet, and still found (LanceDB scans what the index does not cover).
    assert collection.search(fresh[7], 1, nprobes=8, refine_factor=10)[0].key == "n7"
    collection.delete(["n7"])
    assert "n7" not in {h.key for h in collection.search(fresh[7], 5, nprobes=8, refine_factor=10)}

    assert ann.plan() == "refresh"
    work = ann.maintain()
    assert work.action == "refresh" and work.status.unindexed_rows == 0
    assert collection.search(fresh[8], 1, nprobes=8, refine_factor=10)[0].key == "n8"


def test_large_archives_search_through_the_index_built_by_the_background_job(services: Services) -> None:
    corpus = services.processor.corpus
    corpus.max_cached_rows = 100  # as if this were a million messages
    corpus.ann().min_rows = 300
    services.memory.ingest([make_message(i, content=f"topic {i % 9} note {i} report") for i in range(400)])
    before = services.index.vector_indexes()["message"]
    assert before["approximate"] is False and before["index_type"] is None and before["builds_at_rows"] == 300
    assert services.index.maintain_vector_indexes()["messages"].action == "build"
    state = services.index.vector_indexes()["message"]  # what doctor and GET /api/index show
    assert state["approximate"] is True and state["index_type"] == "IVF_SQ"
    assert state["rows"] == state["indexed_rows"] == 400 and state["unindexed_rows"] == 0
    assert corpus.matrix().search(np.ones(64, np.float32), 5, lambda c: c["user_id"] == "local") is None

    hits = services.memory.search("topic 4 note 13 report", limit=5)
    assert hits and hits[0].content == "topic 4 note 13 report"
    services.memory.ingest([make_message(900, content="zebra crossing tomorrow at noon")])
    fresh = services.memory.search("zebra crossing tomorrow", limit=5)
    assert fresh and fresh[0].content == "zebra crossing tomorrow at noon"
    assert services.index.maintain_vector_indexes() == {}  # one new row: nothing to do yet
    # Keyword-only candidates get their cosine from LanceDB when no in-memory copy is held.
    query = services.embedder.embed_query("topic 4")
    found = corpus.collection.vectors_of(["1", "2", "no-such-key"])
    cosines = {k: float(v @ query) for k, v in found.items()}
    assert set(cosines) == {"1", "2"}
    table = corpus.collection.table.to_arrow()
    stored = dict(zip(table.column("key").to_pylist(), table.column("vector").to_pylist(), strict=True))
    assert all(abs(cosines[k] - float(np.dot(stored[k], query))) < 1e-5 for k in cosines)


def test_an_index_of_the_earlier_coarse_partitions_is_searched_as_built_then_trained_anew(tmp_path) -> None:
    """An index built before partitions were ~1,000 rows (named `vector_idx`) keeps answering with
    the probes it was built for until the background job has trained the new one beside it and
    dropped it."""
    from lancedb.index import IvfSq

    from app.core.index import ann as ann_module

    rng = np.random.default_rng(5)
    collection = VectorStore(tmp_path / "v").collection("t", "m", 32, ("user_id",))
    vectors = _clustered(rng, 6000)
    collection.upsert([f"k{i}" for i in range(6000)], vectors, [{"user_id": "u"}] * 6000)
    coarse = IvfSq(distance_type="cosine", num_partitions=6000 // ann_module.COARSE_PARTITION_ROWS)
    collection.table.create_index("vector", config=coarse, name=ann_module.COARSE_INDEX)
    ann = AnnIndex(collection, min_rows=5000)
    probes: list[int | None] = []
    search = collection.search

    def spy(*args, **kwargs):
        probes.append(kwargs.get("nprobes"))
        return search(*args, **kwargs)

    collection.search = spy  # an instance attribute: the class is untouched
    query = vectors[7]
    assert ann.search(query, 5, Filter(())) and probes[-1] == ann_module.COARSE_NPROBES
    assert ann.status().indexed_rows == 6000 and ann.plan() == "retrain"

    work = ann.maintain()
    assert work.action == "retrain" and work.status.indexed_rows == 6000
    names = {ix.name for ix in collection.table.list_indices()}
    assert ann_module.VECTOR_INDEX in names and ann_module.COARSE_INDEX not in names
    assert ann.plan() == "none"
    hits = ann.search(query, 5, Filter(()))
    assert probes[-1] == ann_module.NPROBES and hits[0].key == "k7"
