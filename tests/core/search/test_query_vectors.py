"""A search's query vectors in one model call: the same vectors and hits as one call per text."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import numpy as np
import pytest

from app.core.domain import SearchFilters
from app.core.embeddings.hashing import HashingEmbedder
from app.core.embeddings.onnx_minilm import OnnxMiniLMEmbedder
from app.core.embeddings.switchable import SwitchableEmbedder
from app.core.search.message_query import MessageQuery
from app.core.search.query_vectors import QueryVectors, batched
from tests.conftest import make_message


class OneAtATime:
    """An embedder without `embed_queries` (as the int8 query model and remote ones), calls noted."""

    def __init__(self, inner: HashingEmbedder) -> None:
        self.inner, self.calls = inner, []
        self.model_id, self.dimensions = inner.model_id, inner.dimensions

    def embed_documents(self, texts):
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        self.calls.append(text)
        return self.inner.embed_query(text)


@pytest.mark.model
def test_the_model_gives_the_same_vectors_batched_as_one_by_one() -> None:
    model = OnnxMiniLMEmbedder()
    texts = ["what did Caroline say about the pottery class?", "what did say about the pottery class?", "ok"]
    single = [model.embed_query(t) for t in texts]
    model._query_cache.clear()
    model.embed_query(texts[2])  # one of them cached, two embedded in one call
    together = model.embed_queries(texts)
    for a, b in zip(single, together, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-6)
    assert list(model._query_cache) == [texts[2], texts[0], texts[1]]
    together[0][:] = 0  # callers get copies: the cache is not poisoned
    assert np.linalg.norm(model.embed_query(texts[0])) == pytest.approx(1.0, abs=1e-5)


def test_an_embedder_without_batches_embeds_each_text_beside_the_query() -> None:
    plain = OneAtATime(HashingEmbedder())
    assert batched(plain) is None and batched(SwitchableEmbedder(plain)) is None
    assert batched(SwitchableEmbedder(HashingEmbedder())) is not None
    with ThreadPoolExecutor(2) as pool:
        vectors = QueryVectors(plain, ["a query", "a", "a query"], pool)
        assert sorted(plain.calls) == ["a", "a query"]  # each text once
        for text in ("a query", "a"):
            np.testing.assert_array_equal(vectors[text], HashingEmbedder().embed_query(text))
        assert "a" in vectors and "b" not in vectors


def test_a_search_finds_the_same_with_one_call_or_one_per_text(services) -> None:
    """A query naming a person on the index path needs three vectors (the query, without the name,
    the floor's text): the same hits whether they come from one call or three."""
    searcher = services.memory.searcher
    searcher.config = replace(searcher.config, sentence_keys=False)
    talk = [
        "Caroline, so good to hear from you!",
        "I signed up for a pottery class on Tuesdays.",
        "Did you get the tickets for the concert?",
        "My week was busy with work and errands.",
    ]
    services.memory.ingest(
        [make_message(n, person=("Caroline", "Melanie")[n % 2], content=t) for n, t in enumerate(talk)]
    )
    corpus = searcher.corpus
    corpus.max_cached_rows = 1  # past the in-memory limit: the index path, where the floor's text is early
    corpus._caches.clear()

    def search(text: str) -> list[tuple[str, float, float]]:
        query = MessageQuery(text, SearchFilters(), 10, services.memory.user_id, loose=True)
        return [(h.id, round(h.score, 6), round(h.relevance, 6)) for h in searcher.search(query)]

    texts = ["what did Caroline say she got for the zzqxv class?", "did Caroline sign up for pottery"]
    together = [search(t) for t in texts]
    held = searcher.embedder
    one_at_a_time = OneAtATime(HashingEmbedder())
    searcher.embedder = one_at_a_time
    try:
        assert [search(t) for t in texts] == together
    finally:
        searcher.embedder = held
    assert len(one_at_a_time.calls) >= 3 and together[0]  # the query, without the name, the floor's
