"""The in-memory vector copy answers like LanceDB and never serves stale rows."""

import numpy as np

from app.bootstrap import Services
from app.core.domain import SearchFilters
from app.core.search.messages import MessageQuery, _lance_where, _numpy_mask
from app.core.storage.vector_cache import VectorMatrixCache
from tests.conftest import make_message


def test_cache_matches_lancedb_and_follows_new_commits(services: Services) -> None:
    services.memory.ingest([make_message(i, content=f"topic {i % 7} note {i}") for i in range(40)])
    collection = services.processor.collection
    cache = VectorMatrixCache(collection)
    query = MessageQuery("topic 3", SearchFilters(channels=("general",)), 10, "local")
    vector = services.embedder.embed_query("topic 3 note")
    from_cache = cache.search(vector, 10, lambda c: _numpy_mask(c, query))
    from_lance = collection.search(vector, 10, _lance_where(query))
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
            services.embedder.embed_query("topic 3 note brand new"), 50, lambda c: _numpy_mask(c, query)
        )
        or []
    }
    assert "41" in keys


def test_filters_and_size_limit(services: Services) -> None:
    services.memory.ingest([make_message(1, platform="discord"), make_message(2)])
    collection = services.processor.collection
    query = MessageQuery("x", SearchFilters(platforms=("discord",)), 5, "local")
    hits = VectorMatrixCache(collection).search(
        services.embedder.embed_query("message"), 5, lambda c: _numpy_mask(c, query)
    )
    assert [h.key for h in hits or []] == ["1"]
    assert (
        VectorMatrixCache(collection, max_rows=1).search(np.ones(64, np.float32), 5, lambda c: c["user_id"])
        is None
    )
