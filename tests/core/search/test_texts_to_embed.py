"""`texts_to_embed`: the texts a search embeds before its first ranking, known ahead of it (issue 16).

The REST server embeds waiting searches' texts in batches and hands each worker its vectors
(app/api/query_batch.py); it asks the searcher which texts a search will embed, so a query naming
people gets its second text (the query without the names) from the batch as well.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pytest

from app.bootstrap import Services, build_services
from app.core.clock import FixedClock
from app.core.embeddings.hashing import HashingEmbedder
from app.core.settings import Settings
from tests.conftest import NOW_MS, make_message


class Spy(HashingEmbedder):
    """The test embedder, recording the texts of each model call."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[list[str]] = []

    def embed_query(self, text: str) -> np.ndarray:
        self.calls.append([text])
        return super().embed_query(text)

    def embed_queries(self, texts: Sequence[str]) -> list[np.ndarray]:
        self.calls.append(list(texts))
        return [super(Spy, self).embed_query(t) for t in texts]


@pytest.fixture
def spied(settings: Settings) -> Iterator[tuple[Services, Spy]]:
    spy = Spy()
    services = build_services(settings, clock=FixedClock(NOW_MS), embedder=spy)
    people = ("anna", "Tom Berg")
    services.memory.ingest(
        make_message(n, person=people[n % 2], content=f"Pasta recipe {n} at the hut. Then the invoice came.")
        for n in range(12)
    )
    # With sentence keys built, as a served archive has them (without, the key leg does not run
    # and a first-person query embeds its nameless text for nobody: `texts_to_embed`'s docstring).
    assert services.memory.keys is not None
    services.memory.keys.wait(timeout_s=60)
    yield services, spy
    services.close()


QUERIES = (
    "pasta recipe",  # nobody named: the query alone
    "what did anna cook",  # a name: also without it
    "did I pay Tom for the hut",  # the first person: the key leg still blends the nameless text
    "what did anna cook last week",  # a date phrase comes off first
    "  hut invoice  ",
)


def test_they_are_the_texts_the_search_embeds_in_its_first_model_call(spied: tuple[Services, Spy]) -> None:
    services, spy = spied
    services.memory.search("warm up")  # reads the people directory
    for query in QUERIES:
        texts = services.memory.query_texts(query, dated=False)
        assert texts
        spy.calls.clear()
        services.memory.search(query)
        assert spy.calls[0] == list(texts), query
    # A query naming someone has two; its date phrase is gone from both.
    assert services.memory.query_texts("what did anna cook last week", dated=False) == (
        "what did anna cook",
        "what did cook",
    )


def test_a_request_with_its_own_dates_keeps_the_date_words(spied: tuple[Services, Spy]) -> None:
    services, _ = spied
    services.memory.search("warm up")
    assert services.memory.query_texts("pasta last week", dated=True) == ("pasta last week",)
    assert services.memory.query_texts("pasta last week", dated=False) == ("pasta",)
    assert services.memory.query_texts("   ", dated=False) == ()


def test_it_never_reads_the_people_directory_itself(spied: tuple[Services, Spy]) -> None:
    """The server asks on its event loop: before any search read the directory, it says so (None)
    instead of waiting on SQLite, and the server batches the first text alone as before."""
    services, _ = spied
    assert services.memory.query_texts("what did anna cook", dated=False) is None
    services.memory.search("warm up")
    assert services.memory.query_texts("what did anna cook", dated=False) == (
        "what did anna cook",
        "what did cook",
    )
