"""The in-memory copy follows this process's writes in place: no whole reload after a commit."""

import numpy as np

from app.bootstrap import Services
from app.core.domain import SearchFilters
from app.core.index.filters import to_mask
from app.core.search.message_query import MessageQuery, message_filter
from app.core.storage.vector_cache import VectorMatrixCache
from app.core.storage.vectors import VectorStore
from tests.conftest import make_message


def _unit(rng: np.random.Generator, n: int, dims: int = 8) -> np.ndarray:
    v = rng.normal(size=(n, dims)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _everyone(columns: dict[str, np.ndarray]) -> np.ndarray:
    return columns["user_id"] == "u"


def _exact(vectors: dict[str, np.ndarray], query: np.ndarray, k: int) -> list[str]:
    keys = list(vectors)
    scores = np.array([vectors[key] @ query for key in keys])
    return [keys[i] for i in np.argsort(-scores)[:k]]


def test_appends_updates_and_deletes_are_followed_without_a_reload(tmp_path) -> None:
    rng = np.random.default_rng(7)
    collection = VectorStore(tmp_path / "v").collection("t", "m", 8, ("user_id", "channel", "archived"))
    stored: dict[str, np.ndarray] = {}
    first = _unit(rng, 50)
    collection.upsert([f"k{i}" for i in range(50)], first, [{"user_id": "u", "channel": "c"}] * 50)
    stored.update({f"k{i}": first[i] for i in range(50)})
    cache = VectorMatrixCache(collection)
    query = _unit(rng, 1)[0]
    assert [h.key for h in cache.search(query, 5, _everyone, mask_key="all") or []] == _exact(
        stored, query, 5
    )
    assert cache.reloads == 1

    for batch in range(3):  # appends, one commit each, plus a replaced vector
        fresh = _unit(rng, 20)
        keys = [f"b{batch}-{i}" for i in range(20)]
        collection.upsert(keys, fresh, [{"user_id": "u", "channel": "a-much-longer-channel-name"}] * 20)
        stored.update(dict(zip(keys, fresh, strict=True)))
    stored["k3"] = query.copy()  # k3 now equals the query: it must come first
    collection.upsert(["k3"], query[None, :], [{"user_id": "u", "channel": "c"}])
    hits = cache.search(query, 5, _everyone, mask_key="all") or []
    assert [h.key for h in hits] == _exact(stored, query, 5)
    assert hits[0].key == "k3" and abs(hits[0].similarity - 1.0) < 1e-5
    # The widened string column kept the long name whole.
    long_name = cache.search(query, 100, lambda c: c["channel"] == "a-much-longer-channel-name") or []
    assert len(long_name) == 60

    collection.delete(["k3", "b0-1"])
    for key in ("k3", "b0-1"):
        stored.pop(key)
    hits = cache.search(query, 5, _everyone, mask_key="all") or []
    assert "k3" not in {h.key for h in hits}
    assert [h.key for h in hits] == _exact(stored, query, 5)

    collection.update_columns(["k0", "k1"], {"archived": True})
    archived = cache.search(query, 10, lambda c: c["archived"]) or []
    assert {h.key for h in archived} == {"k0", "k1"}
    assert cache.reloads == 1  # every change above was applied in place


def test_the_copy_hands_over_to_lancedb_when_it_grows_past_its_limit(tmp_path) -> None:
    rng = np.random.default_rng(8)
    collection = VectorStore(tmp_path / "v").collection("t", "m", 8, ("user_id",))
    collection.upsert([f"k{i}" for i in range(10)], _unit(rng, 10), [{"user_id": "u"}] * 10)
    cache = VectorMatrixCache(collection, max_rows=15)
    assert cache.search(_unit(rng, 1)[0], 3, _everyone) is not None
    collection.upsert([f"n{i}" for i in range(10)], _unit(rng, 10), [{"user_id": "u"}] * 10)
    assert cache.search(_unit(rng, 1)[0], 3, _everyone) is None  # LanceDB (its index) answers
    assert cache.view() is None


def test_many_deletes_compact_the_copy_and_projections_follow_appends(tmp_path) -> None:
    rng = np.random.default_rng(9)
    collection = VectorStore(tmp_path / "v").collection("t", "m", 32, ("user_id",))
    vectors = _unit(rng, 3000, 32)
    keys = [f"k{i}" for i in range(3000)]
    collection.upsert(keys, vectors, [{"user_id": "u"}] * 3000)
    # The exact bound (rescore_rows=0): any projection that stopped following the rows would show
    # as a wrong top 10 (the default projected scan is approximate on these random vectors).
    cache = VectorMatrixCache(collection, project_min_rows=100, projected_dimensions=8, rescore_rows=0)
    stored = dict(zip(keys, vectors, strict=True))
    query = _unit(rng, 1, 32)[0]
    assert [h.key for h in cache.search(query, 10, _everyone) or []] == _exact(stored, query, 10)
    collection.delete(keys[:1500])  # half the rows: the copy is rebuilt from itself, not LanceDB
    for key in keys[:1500]:
        stored.pop(key)
    more = _unit(rng, 500, 32)
    collection.upsert([f"m{i}" for i in range(500)], more, [{"user_id": "u"}] * 500)
    stored.update({f"m{i}": more[i] for i in range(500)})
    for query in _unit(rng, 5, 32):
        assert [h.key for h in cache.search(query, 10, _everyone) or []] == _exact(stored, query, 10)
    assert cache._rows is not None and cache._rows.dead == 0 and cache._rows.basis is not None
    assert cache.reloads == 1


def test_an_import_after_a_commit_is_searchable_without_a_reload(services: Services) -> None:
    services.memory.ingest([make_message(i, content=f"topic {i % 5} note {i}") for i in range(30)])
    query = MessageQuery("x", SearchFilters(), 10, "local")
    where = message_filter(query)
    matrix = VectorMatrixCache(services.processor.collection)

    def keys(text: str) -> set[str]:
        found = matrix.search(
            services.embedder.embed_query(text),
            50,
            lambda c: to_mask(where, c, len(c["user_id"])),
            mask_key=where,
        )
        return {h.key for h in found or []}

    assert len(keys("topic 1")) == 30
    services.memory.ingest([make_message(100, content="a brand new thing")])
    assert len(keys("a brand new thing")) == 31
    assert matrix.reloads == 1
