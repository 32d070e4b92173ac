"""Work a search skips when it cannot change the result (an empty key collection's leg and its
second embedding), and the floor's nameless judgement on both paths (real SQLite and LanceDB)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from app.core.domain import SearchFilters
from app.core.search.message_query import MessageQuery
from app.core.storage.vector_cache import VectorMatrixCache
from tests.conftest import make_message

LONG = (
    "Morning all! The quarterly revenue numbers look strong again. "
    "Marketing hired two designers for the spring campaign. "
    "I finally adopted a rescue greyhound named Pixel from the shelter."
)


class _CountingEmbedder:
    """The searcher's embedder, its query embeddings counted."""

    def __init__(self, embedder) -> None:
        self.embedder, self.texts = embedder, []

    def embed_query(self, text: str):
        self.texts.append(text)
        return self.embedder.embed_query(text)

    def embed_queries(self, texts):  # the texts of one search in one model call (query_vectors.py)
        self.texts.extend(texts)
        return self.embedder.embed_queries(texts)

    def __getattr__(self, name: str):
        return getattr(self.embedder, name)


@pytest.fixture
def counted(services) -> Iterator[_CountingEmbedder]:
    searcher = services.memory.searcher
    counting = _CountingEmbedder(searcher.embedder)
    searcher.embedder = counting
    yield counting
    searcher.embedder = counting.embedder


def _search(services, text: str) -> list[tuple[str, float, float]]:
    query = MessageQuery(text, SearchFilters(), 10, services.memory.user_id, loose=True)
    return [(h.id, round(h.score, 6), round(h.relevance, 6)) for h in services.memory.searcher.search(query)]


def test_an_empty_key_collection_costs_no_second_embedding(services, counted, monkeypatch) -> None:
    searcher = services.memory.searcher
    # The floor's and the message leg's nameless embeddings are other tests' subjects.
    searcher.config = replace(searcher.config, floor_nameless=False, message_nameless_mix=0.0)
    batch = [make_message(1, content=LONG, person="bruno")]
    ids = services.memory.ingest([*batch, *(make_message(n, person="bruno") for n in range(2, 8))]).ids
    keys = searcher.keys
    assert keys is not None and keys.collection.count() > 0
    loads = keys.matrix().reloads
    assert not keys.matrix().holds_nothing() and keys.matrix().reloads == loads  # never loads it
    services.memory.delete(ids[0])  # its keys go with it: the collection is there, empty
    assert keys.collection.exists and keys.collection.count() == 0
    query = "what did bruno write about the greyhound message"
    if not keys.matrix().holds_nothing():  # the key copy not loaded yet: this search loads it
        _search(services, query)
    assert keys.matrix().holds_nothing()

    counted.texts.clear()
    found = _search(services, query)
    assert counted.texts == [query]  # the key leg's nameless embedding was not made
    # Searching the empty collection anyway gives the same answer.
    monkeypatch.setattr(VectorMatrixCache, "holds_nothing", lambda self: False)
    counted.texts.clear()
    assert _search(services, query) == found
    assert len(counted.texts) == 2
    monkeypatch.undo()

    # Once a key is stored the leg runs again.
    services.memory.ingest([make_message(9, content=LONG, person="bruno")])
    assert not keys.matrix().holds_nothing()
    counted.texts.clear()
    _search(services, query)
    assert len(counted.texts) == 2


def test_the_floor_judges_a_named_query_alike_on_both_paths(services, counted) -> None:
    """A query naming a person with a word nobody wrote: the floor judges it without the name, from
    the in-memory copy or, above its limit, from the stored vectors: the same hits either way."""
    searcher = services.memory.searcher
    searcher.config = replace(searcher.config, sentence_keys=False)
    services.memory.ingest([make_message(n, person="bruno") for n in range(1, 8)])
    query = "did bruno mention zzqxv"  # a word no message holds: the floor asks for the nameless vector
    in_memory = _search(services, query)
    # The query, then the nameless forms the message leg and the floor ask for.
    asked = sorted(counted.texts)  # the nameless forms are embedded beside the query
    assert query in asked and any("zzqxv" in t and "bruno" not in t for t in asked)
    corpus = searcher.corpus
    corpus.max_cached_rows = 1  # as a collection past the limit: the index path serves
    corpus._caches.clear()
    counted.texts.clear()
    assert _search(services, query) == in_memory
    assert sorted(counted.texts) == asked
