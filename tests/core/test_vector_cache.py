"""The in-memory vector copy answers like LanceDB and never serves stale rows."""

import time

import numpy as np

from app.bootstrap import Services
from app.core.domain import SearchFilters
from app.core.index.filters import to_mask
from app.core.search.message_query import MessageQuery, message_filter
from app.core.storage.vector_cache import Projection, VectorMatrixCache, _bounded_scores
from app.core.storage.vectors import VectorStore
from tests.conftest import make_message


def test_cache_matches_lancedb_and_follows_new_commits(services: Services) -> None:
    services.memory.ingest([make_message(i, content=f"topic {i % 7} note {i}") for i in range(40)])
    collection = services.processor.collection
    cache = VectorMatrixCache(collection)
    query = MessageQuery("topic 3", SearchFilters(channels=("general",)), 10, "local")
    vector = services.embedder.embed_query("topic 3 note")
    from_cache = cache.search(vector, 10, lambda c: _mask(c, query))
    from_lance = collection.search(vector, 10, message_filter(query))
    assert from_cache is not None
    # The test embedder produces ties, so compare the score lists rather than the order of equals.
    assert np.allclose([h.similarity for h in from_cache], [h.similarity for h in from_lance], atol=1e-4)
    assert from_cache[0].key in {
        h.key for h in from_lance if abs(h.similarity - from_lance[0].similarity) < 1e-6
    }

    services.memory.ingest([make_message(99, content="topic 3 note brand new")])
    keys = {
        h.key
        for h in cache.search(
            services.embedder.embed_query("topic 3 note brand new"), 50, lambda c: _mask(c, query)
        )
        or []
    }
    assert "41" in keys


def test_filters_and_size_limit(services: Services) -> None:
    services.memory.ingest([make_message(1, platform="discord"), make_message(2)])
    collection = services.processor.collection
    query = MessageQuery("x", SearchFilters(platforms=("discord",)), 5, "local")
    hits = VectorMatrixCache(collection).search(
        services.embedder.embed_query("message"), 5, lambda c: _mask(c, query)
    )
    assert [h.key for h in hits or []] == ["1"]
    assert (
        VectorMatrixCache(collection, max_rows=1).search(np.ones(64, np.float32), 5, lambda c: c["user_id"])
        is None
    )


def test_a_large_first_load_runs_in_the_background_while_lancedb_answers(services: Services) -> None:
    """A cold search must not wait for a large copy (the sentence keys' ~180k rows take seconds):
    from `background_load_rows` the first search says "use LanceDB" and the copy loads beside it."""
    services.memory.ingest([make_message(i, content=f"topic {i % 5} note {i}") for i in range(30)])
    collection = services.processor.collection
    vector = services.embedder.embed_query("topic 3 note")
    query = MessageQuery("topic 3", SearchFilters(), 5, "local")
    at_once = VectorMatrixCache(collection)
    assert at_once.search(vector, 5, lambda c: _mask(c, query))  # below the mark: loads and answers

    later = VectorMatrixCache(collection)
    later.background_load_rows = 30
    assert later.search(vector, 5, lambda c: _mask(c, query)) is None  # LanceDB answers this one
    deadline = time.monotonic() + 10
    while later.memory_bytes() == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    hits = later.search(vector, 5, lambda c: _mask(c, query))
    assert hits and [h.key for h in hits] == [
        h.key for h in at_once.search(vector, 5, lambda c: _mask(c, query)) or []
    ]
    # Given back when idle, the next cold search again goes to LanceDB while it reloads.
    assert later.release_if_idle(0.0, now=time.monotonic() + 1) > 0
    assert later.search(vector, 5, lambda c: _mask(c, query)) is None


def _mask(columns: dict[str, np.ndarray], query: MessageQuery) -> np.ndarray:
    return to_mask(message_filter(query), columns, len(columns["user_id"]))


def _clustered(rng: np.random.Generator, n: int, dims: int = 64) -> np.ndarray:
    """Unit vectors near an 8-dimensional subspace, like sentence embeddings' dominant axes."""
    mixing = rng.normal(size=(8, dims))
    vectors = rng.normal(size=(n, 8)) @ mixing + rng.normal(0, 0.3, size=(n, dims))
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def test_projection_bound_gives_the_exact_top_k_while_scoring_few_rows() -> None:
    rng = np.random.default_rng(3)
    matrix = _clustered(rng, 5000)
    projection = Projection.of(matrix, 16)
    keep = rng.random(5000) < 0.7
    for query in _clustered(rng, 20):
        rows, scores = _bounded_scores(matrix, projection, query, keep, 10)
        exact = matrix @ query
        exact[~keep] = -np.inf
        want = set(np.argsort(-exact)[:10])
        got = set(rows[np.argsort(-scores)[:10]])
        assert got == want
        assert len(rows) < 5000 // 4  # the bound ruled most rows out
        assert keep[rows].all()


def test_cache_with_projection_answers_like_the_full_scan(services: Services) -> None:
    texts = [f"topic {i % 13} note {i % 17} n{i}" for i in range(300)]
    services.memory.ingest([make_message(i, content=text) for i, text in enumerate(texts)])
    collection = services.processor.collection
    projected = VectorMatrixCache(collection, project_min_rows=1, projected_dimensions=16)
    full = VectorMatrixCache(collection, project_min_rows=10**9)
    for text in ("topic 3 note 5", "note 11", "n42 topic 12"):
        vector = services.embedder.embed_query(text)
        for filters in (SearchFilters(), SearchFilters(channels=("general",))):
            query = MessageQuery(text, filters, 10, "local")
            a = projected.search(vector, 10, lambda c, q=query: _mask(c, q), mask_key=filters)
            b = full.search(vector, 10, lambda c, q=query: _mask(c, q))
            assert a is not None and b is not None
            assert np.allclose([h.similarity for h in a], [h.similarity for h in b], atol=1e-5)
    assert projected._rows is not None and projected._rows.basis is not None


def test_own_writes_show_at_once_and_other_writers_commits_catch_up_in_the_background(tmp_path) -> None:
    ours = VectorStore(tmp_path / "v").collection("t", "m", 4, ("user_id",))
    theirs = VectorStore(tmp_path / "v").collection("t", "m", 4, ("user_id",))  # another process
    unit = np.eye(4, dtype=np.float32)
    ours.upsert(["a"], unit[:1], [{"user_id": "u"}])
    cache = VectorMatrixCache(ours)

    def keys() -> set[str]:
        return {h.key for h in cache.search(unit[1], 10, lambda c: c["user_id"] == "u") or []}

    assert keys() == {"a"}
    ours.upsert(["b"], unit[1:2], [{"user_id": "u"}])
    assert keys() == {"a", "b"}  # read your writes
    theirs.upsert(["c"], unit[2:3], [{"user_id": "u"}])
    first = keys()  # never waits for the reload another process's commit caused
    assert first <= {"a", "b", "c"}
    deadline = time.time() + 10
    while keys() != {"a", "b", "c"}:
        assert time.time() < deadline, "the background reload never caught up"
        time.sleep(0.02)
