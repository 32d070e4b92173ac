"""The message leg searches partly without the names a query names (`message_nameless_mix`,
key_query.py), from the one second embedding the key leg already had."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import numpy as np
import pytest

from app.bootstrap import Services, build_services
from app.core.clock import FixedClock
from app.core.embeddings.hashing import HashingEmbedder
from app.core.search.key_query import blend, nameless_text
from app.core.search.people import Mentions
from app.core.settings import Settings
from tests.conftest import make_message

CAROLINE = Mentions(frozenset({"Caroline"}), frozenset())
TALK = [
    ("Melanie", "Caroline! Caroline, so good to hear from you, Caroline."),
    ("Caroline", "Hi! I signed up for a pottery class on Tuesdays."),
    ("Melanie", "Caroline, you are the best, Caroline. Tell me everything, Caroline!"),
    ("Caroline", "My week was busy with work and errands."),
]


class CountingEmbedder(HashingEmbedder):
    """The test embedder, noting every query it embeds."""

    def __init__(self) -> None:
        super().__init__()
        self.queries: list[str] = []

    def embed_query(self, text: str) -> np.ndarray:
        self.queries.append(text)
        return super().embed_query(text)


@pytest.fixture
def counting() -> CountingEmbedder:
    return CountingEmbedder()


@pytest.fixture
def svc(settings: Settings, clock: FixedClock, counting: CountingEmbedder) -> Iterator[Services]:
    services = build_services(settings, clock=clock, embedder=counting)
    batch = [make_message(n, person=p, channel="chat", content=t) for n, (p, t) in enumerate(TALK)]
    services.memory.ingest(batch)
    assert services.memory.keys is not None
    services.memory.keys.wait()
    yield services
    services.close()


def _relevance(svc: Services, query: str, mix: float) -> dict[str, float]:
    searcher = svc.memory.searcher
    searcher.config = replace(searcher.config, message_nameless_mix=mix)
    return {h.content: h.relevance for h in svc.memory.search(query, limit=10, loose=True)}


def test_a_message_matching_only_the_name_counts_less(svc: Services) -> None:
    """Melanie's greetings share nothing with the question but Caroline's name: halfway without
    it, they lose relevance, while Caroline's answer keeps what it had."""
    query = "Which class did Caroline sign up for?"
    whole, blended = _relevance(svc, query, 0.0), _relevance(svc, query, 0.5)
    answer = TALK[1][1]
    assert max(blended, key=blended.__getitem__) == answer
    assert blended[answer] == pytest.approx(whole[answer], abs=0.01)
    for greeting in (TALK[0][1], TALK[2][1]):
        assert blended[greeting] < whole[greeting] - 0.03


def test_both_legs_share_one_embedding_of_the_query_without_the_names(
    svc: Services, counting: CountingEmbedder
) -> None:
    embedder = counting
    embedder.queries.clear()
    _relevance(svc, "Which class did Caroline sign up for?", 0.5)
    assert sorted(embedder.queries) == sorted(
        ["Which class did Caroline sign up for?", "Which class did sign up for?"]
    )
    # A query naming nobody is embedded once.
    embedder.queries.clear()
    _relevance(svc, "pottery class", 0.5)
    assert embedder.queries == ["pottery class"]


@pytest.mark.parametrize(
    ("text", "mentions", "expected"),
    [
        ("Which class did Caroline sign up for?", CAROLINE, "Which class did sign up for?"),
        ("Caroline's pottery class", CAROLINE, "pottery class"),
        ("pottery class", Mentions.none(), None),  # names nobody
        ("Which cities has Caroline been to?", CAROLINE, None),  # a list question keeps the name
        ("Caroline", CAROLINE, None),  # nothing left without the name
    ],
)
def test_which_queries_are_searched_without_their_names(
    text: str, mentions: Mentions, expected: str | None
) -> None:
    assert nameless_text(text, mentions) == expected


def test_blend_is_a_unit_vector_between_the_two() -> None:
    a = np.array([1.0, 0.0], dtype=np.float32)
    b = np.array([0.0, 1.0], dtype=np.float32)
    assert np.allclose(blend(a, b, 0.5), [2**-0.5, 2**-0.5], atol=1e-6)
    assert np.allclose(blend(a, b, 0.0), a)
