"""The sentence-key leg's query vector: partly without the names of the people a query names
(key_query.py), so a named person's keys are not lifted for the name alone."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import numpy as np
import pytest

from app.bootstrap import Services, build_services
from app.core.clock import FixedClock
from app.core.embeddings.hashing import HashingEmbedder
from app.core.search.key_query import key_query_vector
from app.core.search.people import Mentions
from app.core.settings import Settings
from tests.conftest import make_message

EMBEDDER = HashingEmbedder()
MELANIE = Mentions(frozenset({"Melanie"}), frozenset())


def embedded(asked: list[str]):  # type: ignore[no-untyped-def]
    def embed(text: str) -> np.ndarray:
        asked.append(text)
        return EMBEDDER.embed_query(text)

    return embed


def test_a_query_naming_a_person_blends_in_the_query_without_the_name() -> None:
    text = "What are Melanie's new shoes for?"
    vector = EMBEDDER.embed_query(text)
    asked: list[str] = []
    blended = key_query_vector(vector, text, MELANIE, embedded(asked), 0.5)
    assert asked == ["What are new shoes for?"]
    nameless = EMBEDDER.embed_query(asked[0])
    expected = (vector + nameless) / np.linalg.norm(vector + nameless)
    assert np.allclose(blended, expected, atol=1e-6)
    assert np.linalg.norm(blended) == pytest.approx(1.0, abs=1e-5)
    # All the way: the query without the name.
    full = key_query_vector(vector, text, MELANIE, embedded([]), 1.0)
    assert np.allclose(full, nameless / np.linalg.norm(nameless), atol=1e-6)


@pytest.mark.parametrize(
    ("text", "mentions", "mix"),
    [
        ("What are Melanie's new shoes for?", MELANIE, 0.0),  # switched off
        ("What are the new shoes for?", Mentions.none(), 0.5),  # names nobody
        ("What activities does Melanie do with her kids?", MELANIE, 0.5),  # a list question
    ],
)
def test_otherwise_the_keys_are_searched_with_the_query_itself(
    text: str, mentions: Mentions, mix: float
) -> None:
    vector = EMBEDDER.embed_query(text)
    asked: list[str] = []
    assert key_query_vector(vector, text, mentions, embedded(asked), mix) is vector
    assert asked == []  # no second embedding


@pytest.fixture
def svc(settings: Settings, clock: FixedClock) -> Iterator[Services]:
    services = build_services(settings, clock=clock, embedder=HashingEmbedder())
    yield services
    services.close()


def test_a_named_persons_small_talk_no_longer_outranks_the_answer(svc: Services) -> None:
    """Melanie's long messages have keys that name her ("Melanie's kids …"); the answer is a
    short reply of Caroline's. With the keys searched on the whole query, the name lifts
    Melanie's small talk above it; halfway without the name, the answer comes first."""
    talk = [
        "Hey, my week was hectic. My kids painted my garden fence. My sister visits my place soon.",
        "My weekend was quiet. My husband cooked my favourite pasta. My dog slept on my couch.",
        "My mornings are busy lately. My boss moved my meetings again. My coffee went cold twice.",
        "My book club met again. My friends loved my lemon cake. My neighbour joined us later.",
    ]
    batch = [make_message(n, person="Melanie", channel="chat", content=text) for n, text in enumerate(talk)]
    batch.append(
        make_message(9, person="Caroline", channel="chat", content="Those purple running shoes look fast!")
    )
    ids = svc.memory.ingest(batch).ids
    assert svc.memory.keys is not None
    svc.memory.keys.wait()
    searcher = svc.memory.searcher
    # ("write", not "say": "say" is a question-frame word, no evidence since query_words.py, so
    # with it the answer holds every word of the query and comes first at any mix.)
    query = "What did Melanie write about the shoes?"

    def rank_of_answer(mix: float) -> int:
        # The key leg alone (the message leg's own blend is tested in test_message_nameless_mix.py).
        searcher.config = replace(searcher.config, key_nameless_mix=mix, message_nameless_mix=0.0)
        hits = svc.memory.search(query, limit=10, loose=True)
        return [h.id for h in hits].index(str(ids[-1]))

    # (hashing embedder, loose: with the whole query Melanie's book club scores 0.568 against the
    # answer's 0.560; halfway without her name it falls to 0.467.)
    assert rank_of_answer(0.0) > 0
    assert rank_of_answer(0.5) == 0
