"""Question frames and the floor on the real local model: "What did Maria say about zzqxv?" finds
nothing although Maria wrote "say" and "got", and real questions keep their answers."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from app.bootstrap import build_services
from app.core.search.fusion import FusionConfig
from app.core.settings import EmbeddingSettings, Settings
from tests.conftest import NOW_MS, make_message

pytestmark = pytest.mark.model
HOUR = 3_600_000

# Written for this test: greetings and small talk full of "say", "got", "mention", "ever".
CHAT = [
    ("Maria", "Hey John! Just wanted to say hi!"),
    ("John", "Hi Maria! Cool, got any fav tunes lately?"),
    ("Maria", "Got a new playlist from my sister, mostly jazz."),
    ("John", "Did I ever mention my cousin plays the saxophone?"),
    ("Maria", "You did! Say hello to him from me."),
    ("John", "Will do. What got you into jazz?"),
    ("Maria", "I started a pottery class on Tuesdays, and the teacher plays jazz all the time."),
    ("John", "Ha, that is a good reason. How many bowls have you made?"),
    ("Maria", "Three so far, one of them is almost round."),
    ("John", "Tell me when you sell the first one!"),
]


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory):
    data_dir: Path = tmp_path_factory.mktemp("frame-words")
    built = build_services(Settings(data_dir=data_dir, embedding=EmbeddingSettings(provider="local")))
    built.memory.ingest(
        make_message(i, channel="john-maria", person=p, content=t, timestamp=NOW_MS - (len(CHAT) - i) * HOUR)
        for i, (p, t) in enumerate(CHAT)
    )
    if built.memory.keys is not None:
        built.memory.keys.backlog.drain()
    yield built
    built.close()


def _contents(services, query: str, *, frame_words: bool = True, **config) -> list[str]:
    searcher = services.memory.searcher
    default = searcher.config
    fusion = default.fusion.config
    relevance = replace(fusion.relevance, frame_words=frame_words)
    params = replace(default.fusion, config=FusionConfig(relevance=relevance, floor=fusion.floor))
    searcher.config = replace(default, fusion=params, **config)
    try:
        return [h.content for h in services.memory.search(query, limit=10)]
    finally:
        searcher.config = default


NONSENSE = (
    "What did Maria say about zzqxv?",
    "Which blorfs has Maria got?",
    "Did John ever mention the quibnix?",
    "How many flurbos does John have?",
)


def test_a_question_frame_around_a_word_nobody_wrote_finds_nothing(services) -> None:
    for query in NONSENSE:
        assert _contents(services, query) == [], query


def test_before_the_frame_words_carried_some_of_them_over_the_floor(services) -> None:
    """The state this started from: "say", "got", "ever", "mention" counted as the query's words."""
    passed = [q for q in NONSENSE if _contents(services, q, frame_words=False, floor_frame=False)]
    assert passed


def test_real_questions_still_find_their_answers(services) -> None:
    found = _contents(services, "What did Maria say about the pottery class?")
    assert found and "pottery class" in found[0]
    found = _contents(services, "Did John ever mention the saxophone?")
    assert any("saxophone" in text for text in found)
    found = _contents(services, "How many bowls has Maria made?")
    assert any("Three so far" in text or "bowls" in text for text in found)
